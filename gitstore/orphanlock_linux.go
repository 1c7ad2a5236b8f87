package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// processAt reports whether a live git process, or a memvault merge
// driver, other than this process works under one of dirs (absolute): its
// working directory, an argument of its command line or an open file lies
// there. One that cannot be inspected counts as live. ok is false when
// processes cannot be listed. Other memvault processes (a server, an MCP
// server an assistant keeps running in the project) do not count: every
// git lock memvault takes has its owner record (stalelock.go), so a lock
// without one is never theirs, and counting them would keep an orphaned
// lock for as long as an assistant runs.
func processAt(dirs []string) (live, ok bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false, false
	}
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		proc := "/proc/" + e.Name()
		comm, err := os.ReadFile(proc + "/comm")
		if err != nil {
			continue // gone meanwhile
		}
		cmdline, _ := os.ReadFile(proc + "/cmdline")
		switch name := strings.TrimSpace(string(comm)); {
		case strings.HasPrefix(name, "git"):
		case strings.HasPrefix(name, "memvault") && bytes.Contains(cmdline, []byte("merge-driver")):
		default:
			continue
		}
		if _, zombie, ok := processStart(pid); ok && zombie {
			continue
		}
		if procUnder(proc, cmdline, dirs) {
			return true, true
		}
	}
	return false, true
}

// procUnder reports whether the process at proc (/proc/<pid>), with the
// command line cmdline, works under one of dirs, true when it cannot be
// told.
func procUnder(proc string, cmdline []byte, dirs []string) bool {
	cwd, err := os.Readlink(proc + "/cwd")
	if err != nil {
		return !os.IsNotExist(err) // another user's process: in doubt, live
	}
	paths := []string{cwd}
	for _, a := range bytes.Split(cmdline, []byte{0}) {
		if filepath.IsAbs(string(a)) {
			paths = append(paths, string(a))
		}
	}
	if fds, err := os.ReadDir(proc + "/fd"); err == nil {
		for _, fd := range fds {
			if p, err := os.Readlink(proc + "/fd/" + fd.Name()); err == nil {
				paths = append(paths, p)
			}
		}
	}
	for _, p := range paths {
		for _, d := range dirs {
			if d != "" && (p == d || strings.HasPrefix(p, d+string(filepath.Separator))) {
				return true
			}
		}
	}
	return false
}
