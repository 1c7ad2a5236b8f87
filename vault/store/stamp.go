package store

// The stamp names the running program for the caches that memoise
// what it computes (the index cache, the header cache): two processes
// with the same stamp compute the same things.
//
// The stamp is the Go build ID the linker writes into the executable, a
// hash of everything that went into the build: the same program built
// again, installed elsewhere, copied or run by `go run` has the same one,
// and any change to its source or toolchain gives another. A stamp of the
// executable's path, size and modification time (what the caches used
// before) changed with every rebuild and differed between two copies of
// one build, so a CLI on PATH and a server the MCP client spawns from
// another path each found the other's cache foreign, loaded the vault from
// its files and wrote the cache again for themselves: a 100k vault stayed
// cold however often it was served (issue 25). Where no build ID can be
// read, the stamp falls back to the path, size and modification time.

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"strconv"
)

// ExecutableStamp returns the running executable's stamp, "" if it cannot be read
// (then the caches are off).
func ExecutableStamp() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, headSize)
	n, _ := io.ReadFull(f, head)
	if id := buildID(head[:n]); id != "" {
		return "go-build-id\x00" + id
	}
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	return exe + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}

// headSize is how much of the executable is searched: the linker puts
// the build ID in the first page of an ELF file (its .note.go.buildid
// note) and at the start of the text of the others.
const headSize = 32 << 10

// buildID finds the Go build ID in the head of an executable: the
// ELF note (name "Go", type 4) or the string the linker writes at the
// start of the text ("\xff Go build ID: \"...\"\n \xff"). It returns ""
// when there is none, or it is empty.
func buildID(head []byte) string {
	const prefix, suffix = "\xff Go build ID: \"", "\"\n \xff"
	if i := bytes.Index(head, []byte(prefix)); i >= 0 {
		rest := head[i+len(prefix):]
		if j := bytes.Index(rest, []byte(suffix)); j > 0 {
			return string(rest[:j])
		}
	}
	// An ELF note: name size 4, description size, type 4, "Go\0\0",
	// the description (the ID).
	note := []byte("\x04\x00\x00\x00")
	for i := 0; ; {
		k := bytes.Index(head[i:], note)
		if k < 0 {
			return ""
		}
		at := i + k
		i = at + 1
		if len(head) < at+16 || string(head[at+8:at+16]) != "\x04\x00\x00\x00Go\x00\x00" {
			continue
		}
		size := int(binary.LittleEndian.Uint32(head[at+4:]))
		if size == 0 || size > 1024 || len(head) < at+16+size {
			continue
		}
		return string(head[at+16 : at+16+size])
	}
}
