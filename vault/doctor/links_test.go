//go:build unix

package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault/internal/vaulttest"
)

// TestDoctorLinks: doctor names the linked memory files the loader left
// out (issue 27's finding 11), each with its target.
func TestDoctorLinks(t *testing.T) {
	t.Parallel()
	c := &vaulttest.Committer{}
	v := doctorVault(t, map[string]string{"project/real.md": "---\nid: real\ntitle: Real\n---\nreal\n"}, c)
	if err := os.Symlink("real.md", filepath.Join(v.Dir(), "project", "alias.md")); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), v, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if lines := checkLines(rep); !hasLine(lines, "problem links: 1 linked memory file not loaded", "project/alias.md → real.md", "memvault lint") {
		t.Errorf("report:\n%s", strings.Join(lines, "\n"))
	}
}
