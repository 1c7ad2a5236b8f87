//go:build unix && !linux

package teamsync

import (
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own, which cancelling its
// context kills whole (git and what it started). Only Linux can have the
// kernel kill it when sync dies.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
