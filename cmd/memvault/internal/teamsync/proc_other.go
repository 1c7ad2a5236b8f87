//go:build !unix

package teamsync

import "os/exec"

// ownGroup leaves cmd as it is: no process groups here; cancelling kills
// git alone.
func ownGroup(cmd *exec.Cmd) {}
