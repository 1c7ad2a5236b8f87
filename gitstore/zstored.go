package gitstore

import (
	"encoding/binary"
	"hash/adler32"
	"slices"
)

// maxStoredBlock is the most bytes one deflate stored block holds.
const maxStoredBlock = 65535

// appendStoredZlib appends to dst a zlib stream of the concatenation of
// parts in deflate's stored blocks: what compress/zlib writes at
// NoCompression, without copying the data through its window a block at
// a time and writing each block on its own (a measurable part of a large
// vault's write; docs/git.md, "Figures behind the code's comments").
func appendStoredZlib(dst []byte, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	blocks := max(1, (n+maxStoredBlock-1)/maxStoredBlock)
	dst = slices.Grow(dst, 2+5*blocks+n+4)
	dst = append(dst, 0x78, 0x01) // deflate, 32 KiB window, fastest: (0x78<<8|0x01)%31 == 0
	sum := adler32.New()
	left := n
	part, off := 0, 0 // the next byte: parts[part][off]
	for b := 0; b < blocks; b++ {
		size := min(left, maxStoredBlock)
		left -= size
		var final byte
		if b == blocks-1 {
			final = 1
		}
		dst = append(dst, final, byte(size), byte(size>>8), ^byte(size), ^byte(size>>8))
		for size > 0 {
			for off == len(parts[part]) {
				part, off = part+1, 0
			}
			chunk := parts[part][off:min(off+size, len(parts[part]))]
			dst = append(dst, chunk...)
			sum.Write(chunk)
			off += len(chunk)
			size -= len(chunk)
		}
	}
	return binary.BigEndian.AppendUint32(dst, sum.Sum32())
}
