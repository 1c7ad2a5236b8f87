package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// openIndexFiles lists this process's descriptors open on the repository's
// index, by the names /proc gives them: a replaced index shows as
// "<git dir>/index (deleted)".
func openIndexFiles(t *testing.T, gitDir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fd := range fds {
		name, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(name, filepath.Join(gitDir, "index")) {
			out = append(out, name)
		}
	}
	return out
}

// Commit keeps the index it replaces open past the rename, so the kernel
// frees it off the commit's path; every such descriptor must be closed by
// the time the Store is, or a long-running server would leak one per write.
func TestCommitReleasesReplacedIndex(t *testing.T) {
	_, s := newRepo(t)
	for i := range 20 {
		commitFiles(t, s, fmt.Sprintf("write %d", i), map[string]string{fmt.Sprintf("mem/%d.md", i): "x\n"})
	}
	// Only the last commits' releases can still be running.
	s.mu.Lock()
	s.releases.Wait()
	s.mu.Unlock()
	if open := openIndexFiles(t, s.gitDir); len(open) != 0 {
		t.Fatalf("after 20 commits, %d descriptors still open on replaced indexes: %v", len(open), open)
	}

	// And the hold is real: while a release is pending, the replaced
	// index is still open.
	release := holdReplaced(filepath.Join(s.gitDir, "index"), &s.releases)
	commitFiles(t, s, "held", map[string]string{"mem/held.md": "x\n"})
	// The commit closes its own descriptor on the replaced index in the
	// background: wait for that (the hold joins releases only when
	// released), or it can still be open here on a loaded machine.
	s.mu.Lock()
	s.releases.Wait()
	s.mu.Unlock()
	if open := openIndexFiles(t, s.gitDir); len(open) != 1 || !strings.HasSuffix(open[0], "(deleted)") {
		t.Fatalf("with a hold, open index descriptors = %v, want the one replaced index", open)
	}
	release()
	s.releases.Wait()
	if open := openIndexFiles(t, s.gitDir); len(open) != 0 {
		t.Fatalf("after release, still open: %v", open)
	}
}
