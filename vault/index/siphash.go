package index

import (
	"encoding/binary"
	"math/bits"
)

// sipKey is the 128-bit key of the vocabulary's hash. Unlike a
// hash/maphash seed, it can be written into a snapshot, so a later
// process places terms where this one did and can use the stored hash
// table as it is.
type sipKey [2]uint64

// sip13 is SipHash-1-3 of b under key k: one compression round per
// block and three finalisation rounds, the variant hash tables use
// (Rust's standard hasher, CPython's str hash). A keyed pseudorandom
// function, so text crafted without the key cannot be made to collide
// any more than it can under a per-process maphash seed. Written here,
// not imported: the domain packages use the standard library only
// (docs/architecture.md, "Import rules"), which has no keyed hash whose key can be stored.
func sip13(k sipKey, b []byte) uint64 {
	v0 := k[0] ^ 0x736f6d6570736575
	v1 := k[1] ^ 0x646f72616e646f6d
	v2 := k[0] ^ 0x6c7967656e657261
	v3 := k[1] ^ 0x7465646279746573
	m := uint64(len(b)) << 56
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		v3 ^= w
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0 ^= w
		b = b[8:]
	}
	switch len(b) {
	case 7:
		m |= uint64(b[6]) << 48
		fallthrough
	case 6:
		m |= uint64(b[5]) << 40
		fallthrough
	case 5:
		m |= uint64(b[4]) << 32
		fallthrough
	case 4:
		m |= uint64(binary.LittleEndian.Uint32(b))
	case 3:
		m |= uint64(b[2]) << 16
		fallthrough
	case 2:
		m |= uint64(b[1]) << 8
		fallthrough
	case 1:
		m |= uint64(b[0])
	}
	v3 ^= m
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0 ^= m
	v2 ^= 0xff
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	return v0 ^ v1 ^ v2 ^ v3
}

// sipHash is SipHash-c-d (c compression rounds per block, d
// finalisation rounds); sipHash(k, b, 2, 4) is the reference SipHash-2-4
// the tests check against its published vectors.
func sipHash(k sipKey, b []byte, c, d int) uint64 {
	v0 := k[0] ^ 0x736f6d6570736575
	v1 := k[1] ^ 0x646f72616e646f6d
	v2 := k[0] ^ 0x6c7967656e657261
	v3 := k[1] ^ 0x7465646279746573
	n := len(b)
	for len(b) >= 8 {
		m := binary.LittleEndian.Uint64(b)
		v3 ^= m
		for range c {
			v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		}
		v0 ^= m
		b = b[8:]
	}
	m := uint64(n) << 56
	for i := len(b) - 1; i >= 0; i-- {
		m |= uint64(b[i]) << (8 * i)
	}
	v3 ^= m
	for range c {
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	}
	v0 ^= m
	v2 ^= 0xff
	for range d {
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	}
	return v0 ^ v1 ^ v2 ^ v3
}

func sipRound(v0, v1, v2, v3 uint64) (uint64, uint64, uint64, uint64) {
	v0 += v1
	v1 = bits.RotateLeft64(v1, 13)
	v1 ^= v0
	v0 = bits.RotateLeft64(v0, 32)
	v2 += v3
	v3 = bits.RotateLeft64(v3, 16)
	v3 ^= v2
	v0 += v3
	v3 = bits.RotateLeft64(v3, 21)
	v3 ^= v0
	v2 += v1
	v1 = bits.RotateLeft64(v1, 17)
	v1 ^= v2
	v2 = bits.RotateLeft64(v2, 32)
	return v0, v1, v2, v3
}
