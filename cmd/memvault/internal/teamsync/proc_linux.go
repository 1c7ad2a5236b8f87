package teamsync

import (
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own, which cancelling its
// context kills whole (git and what it started: the merge driver, hooks,
// remote helpers), and has the kernel kill it when sync dies, even by
// kill -9: a git merge that outlives sync works outside its write lock
// and leaves index.lock behind (issue 27 finding 5).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
