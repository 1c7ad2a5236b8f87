package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorNamesTheUnmergedFiles is issue 24's finding 7 (doctor): a
// merge stops on a conflict in a memory file and in a code file; doctor
// names both, sends the memory file to `memvault resolve` and the other
// to git, and says how the merge goes on.
func TestDoctorNamesTheUnmergedFiles(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the end-to-end run of vault/doctor's TestDoctorChecks (unmerged files) and gitstore's TestUnmergedFiles; runs without -short, as CI does")
	}
	tc := newTeamClones(t)
	id := tc.idOf(tc.mine, "Deploys run ops/deploy.sh")
	edit := func(dir, script, title string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "ops", "deploy.sh"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		tc.git(dir, "commit", "-q", "-am", "ops: "+title)
		tc.memvault(dir, "update", id, "--title", title, "--reason", "the script changed")
	}
	edit(tc.their, "#!/bin/sh\necho deploy blue\n", "Deploys run blue first")
	tc.git(tc.their, "push", "-q", "origin", "main")
	edit(tc.mine, "#!/bin/sh\necho deploy green\n", "Deploys run green first")
	tc.git(tc.mine, "fetch", "-q", "origin")
	// The merge driver fails (as it would when one side does not parse):
	// git leaves the memory file unmerged.
	merge := exec.CommandContext(t.Context(), "git", "-c", "merge.memvault.driver=false", "merge", "-q", "origin/main")
	merge.Dir = tc.mine
	if out, err := merge.CombinedOutput(); err == nil {
		t.Fatalf("the merge did not stop:\n%s", out)
	}
	files := strings.Fields(tc.git(tc.mine, "diff", "--name-only", "--diff-filter=U"))
	if len(files) != 2 {
		t.Fatalf("unmerged: %q, want the script and the memory file", files)
	}
	memFile := strings.TrimPrefix(files[0], ".memory/")
	if files[0] == "ops/deploy.sh" {
		memFile = strings.TrimPrefix(files[1], ".memory/")
	}

	doctor := exec.CommandContext(t.Context(), tc.bin, "--vault", filepath.Join(tc.mine, ".memory"), "doctor")
	doctor.Dir = tc.mine
	out, err := doctor.CombinedOutput()
	if err == nil {
		t.Errorf("doctor during the stopped merge exits 0:\n%s", out)
	}
	for _, want := range []string{
		"a merge is in progress",
		"1 memory file unmerged: " + memFile + "; run `memvault resolve` to settle it",
		"`git merge --continue`",
		"1 file unmerged outside the vault's memories: ops/deploy.sh; resolve them with git",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}
