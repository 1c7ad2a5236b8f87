package store

import (
	"os"
	"strconv"
)

// ExecutableStamp names the running program's file: path, size and
// modification time. A cache written by another build is not read: the
// parser or the tokenizer may have changed how a header or a title's
// terms are derived. "" when it cannot be known; no cache is used then.
func ExecutableStamp() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return exe + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}
