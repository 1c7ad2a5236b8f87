//go:build linux

package gitstore

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// processStart reads a process's start time (clock ticks since boot, field
// 22 of /proc/<pid>/stat) and whether it is a zombie; ok is false when
// there is no such process or /proc cannot tell.
func processStart(pid int) (start string, zombie bool, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false, false
	}
	// The command name in parentheses may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", false, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return "", false, false
	}
	return f[19], f[0] == "Z" || f[0] == "X", true
}
