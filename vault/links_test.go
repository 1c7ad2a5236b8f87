//go:build unix

package vault

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLinkedMemoryFilesAreNotLoaded is issue 27's finding 11: a memory
// file that is a symbolic link (to a memory of the vault, or to a file
// outside it) is not loaded, by a load or by a refresh of a file that
// became a link, and lint (and doctor, vault/doctor's
// TestDoctorLinks) name each with its target and the
// fix.
func TestLinkedMemoryFilesAreNotLoaded(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir, outside := filepath.Join(base, "vault"), filepath.Join(base, "outside")
	writeFiles(t, dir, map[string]string{
		"project/real.md": "---\nid: real\ntitle: Real\n---\nreal\n",
		"project/swap.md": "---\nid: swap\ntitle: Swap\n---\nswap\n",
	})
	writeFiles(t, outside, map[string]string{"key.md": "---\nid: key\ntitle: Outside\n---\nouter\n"})
	mustSymlink(t, "real.md", filepath.Join(dir, "project", "alias.md"))
	mustSymlink(t, filepath.Join(outside, "key.md"), filepath.Join(dir, "project", "leak.md"))
	mustSymlink(t, "gone.md", filepath.Join(dir, "project", "dangling.md"))

	for _, cache := range []bool{false, true, true} {
		v, err := Open(t.Context(), dir, Options{IndexCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range v.All() {
			got = append(got, m.Path)
		}
		slices.Sort(got)
		if want := []string{"project/real.md", "project/swap.md"}; !slices.Equal(got, want) {
			t.Errorf("cache %v: loaded %v, want %v", cache, got, want)
		}
		if d := v.Diagnostics(); len(d) != 0 {
			t.Errorf("cache %v: load diagnostics %v, want none (lint asks LinkDiagnostics)", cache, d)
		}
	}

	v, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	swap := filepath.Join(dir, "project", "swap.md")
	if err := os.Remove(swap); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, filepath.Join(outside, "key.md"), swap)
	if err := v.Refresh(t.Context(), []string{"project/swap.md"}); err != nil {
		t.Fatal(err)
	}
	if m, err := v.Get("swap"); err == nil {
		t.Errorf("a file that became a link is still served: %+v", m)
	}
	if m, err := v.Get("key"); err == nil {
		t.Errorf("the link's target is served: %+v", m)
	}

	diags, err := v.LinkDiagnostics(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, d := range diags {
		if !errors.Is(d.Err, ErrLinkedFile) {
			t.Errorf("%v does not wrap ErrLinkedFile", d)
		}
		lines = append(lines, d.Error())
	}
	for _, want := range []string{
		"project/alias.md: link: linked memory file: a symbolic link to real.md; memvault does not load linked memory files: replace the link by a copy of the file it names, or remove it (git rm), then commit",
		"project/dangling.md: link: linked memory file: a symbolic link to gone.md;",
		"project/leak.md: link: linked memory file: a symbolic link to " + filepath.Join(outside, "key.md") + ";",
		"project/swap.md: link: linked memory file: a symbolic link to " + filepath.Join(outside, "key.md") + ";",
	} {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("lint lines %q\nwant one starting %q", lines, want)
		}
	}
}
