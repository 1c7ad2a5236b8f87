package vault

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRememberRefusesNearDuplicates checks that Remember never replaces
// an existing memory's body: a same or near-identical title in the same
// layer of the target vault is refused, naming the memory and its
// version; anything else is a new memory.
func TestRememberRefusesNearDuplicates(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	ctx := t.Context()
	first := tv.remember(t, NewMemory{Title: "Tests use pytest", Content: "Run pytest.", Tags: []string{"testing"}}, "")
	id := first.Memory.ID
	tests := []struct {
		name    string
		n       NewMemory
		scope   string
		dup     bool
		version int // of the memory named by the refusal
		vault   string
	}{
		{"same title, other case and punctuation", NewMemory{Title: "tests use pytest!", Content: "Run pytest -q.", Tags: []string{"python"}}, "", true, 1, ProjectVault},
		{"a stop word more", NewMemory{Title: "The tests use pytest.", Content: "Content for the tests."}, "", true, 1, ProjectVault},
		{"full-width", NewMemory{Title: "Ｔｅｓｔｓ ｕｓｅ ｐｙｔｅｓｔ", Content: "Content, full-width."}, "", true, 1, ProjectVault},
		{"narrower rule is a new memory", NewMemory{Title: "Use pytest for integration tests", Content: "Content for integration tests."}, "", false, 0, ProjectVault},
		{"negation is a new memory", NewMemory{Title: "Tests do not use pytest", Content: "Content for the negation."}, "", false, 0, ProjectVault},
		{"other layer is a new memory", NewMemory{Title: "Tests use pytest", Content: "I like pytest.", Layer: Preference}, "project", false, 0, ProjectVault},
		{"other vault is a new memory", NewMemory{Title: "Tests use pytest", Content: "Everywhere."}, "user", false, 0, UserVault},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pBefore, uBefore := len(tv.pc.commits), len(tv.uc.commits)
			r, err := tv.set.Remember(ctx, tc.n, tc.scope, Author{Reason: "r"})
			if !tc.dup {
				if err != nil || r.Memory.ID == id || r.Vault != tc.vault || r.Memory.Version != 1 {
					t.Fatalf("got %+v, %v; want a new memory in the %s vault", r, err, tc.vault)
				}
				return
			}
			var de *DuplicateError
			if !errors.As(err, &de) || !errors.Is(err, ErrDuplicate) {
				t.Fatalf("got %+v, %v; want a *DuplicateError", r, err)
			}
			if de.ID != id || de.Version != tc.version || de.Title != "Tests use pytest" || de.Path != first.Memory.Path || de.Vault != tc.vault {
				t.Errorf("refusal names %+v, want %s version %d at %s in the %s vault", de, id, tc.version, first.Memory.Path, tc.vault)
			}
			for _, w := range []string{id, "version 1", "expected version 1", "supersede", "distinct title"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err, w)
				}
			}
			if len(tv.pc.commits) != pBefore || len(tv.uc.commits) != uBefore {
				t.Errorf("a refused remember committed")
			}
		})
	}
	m, err := tv.project.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if m.Body != "Run pytest.\n" || m.Version != 1 || !slices.Equal(m.Tags, []string{"testing"}) {
		t.Errorf("the existing memory changed: body %q, version %d, tags %v", m.Body, m.Version, m.Tags)
	}

	t.Run("the refusal names the current version", func(t *testing.T) {
		body := "Run pytest -q."
		if _, err := tv.project.Update(ctx, id, 1, Patch{Content: &body}, Author{Reason: "quiet"}); err != nil {
			t.Fatal(err)
		}
		_, err := tv.set.Remember(ctx, NewMemory{Title: "Tests use pytest", Content: "Again."}, "", Author{})
		var de *DuplicateError
		if !errors.As(err, &de) || de.Version != 2 || !strings.Contains(err.Error(), "expected version 2") {
			t.Errorf("got %v, want a refusal naming version 2", err)
		}
	})
	t.Run("superseding the same-titled memory replaces it", func(t *testing.T) {
		r, err := tv.set.Remember(ctx, NewMemory{Title: "Tests use pytest", Content: "Run pytest -x.", Supersedes: []string{id}}, "", Author{})
		if err != nil || r.Memory.ID == id || !slices.Equal(r.Superseded, []string{id}) {
			t.Fatalf("got %+v, %v; want a new memory superseding %s", r, err, id)
		}
		// The successor is active now: a third one is refused, naming it.
		_, err = tv.set.Remember(ctx, NewMemory{Title: "Tests use pytest", Content: "Again."}, "", Author{})
		var de *DuplicateError
		if !errors.As(err, &de) || de.ID != r.Memory.ID {
			t.Errorf("got %v, want a refusal naming the successor %s", err, r.Memory.ID)
		}
	})
	if got := tv.project.Stats().Total + tv.user.Stats().Total; got != 6 {
		t.Errorf("memories: got %d, want 6 (first, narrower, negation, preference, user's, successor)", got)
	}
}

// TestRememberSupersedesAcrossVaultsInOneCommit checks a supersedes list
// naming memories of both vaults: the target vault's own one is marked
// superseded, the other vault's is recorded only, all in one commit of
// the target's repository; an id no vault holds is refused without a
// commit.
func TestRememberSupersedesAcrossVaultsInOneCommit(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	ctx := t.Context()
	own := tv.remember(t, NewMemory{Title: "Lint with flake8", Content: "Run flake8 before committing."}, "")
	pref := tv.remember(t, NewMemory{Title: "Prefer pylint", Content: "Lint Python with pylint.", Layer: Preference}, "")
	prefFile := filepath.Join(tv.user.Dir(), filepath.FromSlash(pref.Memory.Path))
	prefBytes, err := os.ReadFile(prefFile)
	if err != nil {
		t.Fatal(err)
	}
	pBefore, uBefore := len(tv.pc.commits), len(tv.uc.commits)
	both, err := tv.set.Remember(ctx, NewMemory{Title: "Lint with ruff", Content: "Run ruff check; it replaces flake8 and pylint here.",
		Supersedes: []string{own.Memory.ID, pref.Memory.ID}}, "", Author{Reason: "ruff is faster"})
	if err != nil {
		t.Fatal(err)
	}
	if both.Vault != ProjectVault || !slices.Equal(both.Superseded, []string{own.Memory.ID}) {
		t.Errorf("remember = %+v, want a project memory that marked only %s superseded", both, own.Memory.ID)
	}
	if got := len(tv.pc.commits) - pBefore; got != 1 {
		t.Fatalf("project commits: %d, want 1", got)
	}
	c := tv.pc.commits[len(tv.pc.commits)-1]
	for _, rel := range []string{both.Memory.Path, own.Memory.Path} {
		if !slices.Contains(c.paths, filepath.Join(tv.project.Dir(), filepath.FromSlash(rel))) {
			t.Errorf("commit paths %v lack %s", c.paths, rel)
		}
	}
	for _, id := range []string{own.Memory.ID, pref.Memory.ID} {
		if !strings.Contains(c.message, "Memory-Supersedes: "+id+"\n") {
			t.Errorf("commit message lacks the trailer for %s:\n%s", id, c.message)
		}
	}
	if len(tv.uc.commits) != uBefore {
		t.Errorf("the user vault got %d commits, want none", len(tv.uc.commits)-uBefore)
	}
	if b, err := os.ReadFile(prefFile); err != nil || string(b) != string(prefBytes) {
		t.Errorf("the user vault's file changed: %v\n%s", err, b)
	}
	for _, tc := range []struct {
		v       *Vault
		id      string
		status  Status
		version int
	}{
		{tv.project, own.Memory.ID, StatusSuperseded, 2},
		{tv.user, pref.Memory.ID, StatusActive, 1},
	} {
		if m, err := tc.v.Get(tc.id); err != nil || m.Status != tc.status || m.Version != tc.version {
			t.Errorf("%s: %+v, %v; want %s version %d", tc.id, m, err, tc.status, tc.version)
		}
	}
	rs, err := tv.set.Recall(ctx, Query{Text: "lint flake8 pylint ruff"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Memory.ID != both.Memory.ID || !slices.Equal(refIDs(rs[0].Supersedes), []string{own.Memory.ID, pref.Memory.ID}) {
		t.Errorf("recall = %+v, want only %s, superseding both", rs, both.Memory.ID)
	}

	t.Run("a preference supersedes a project memory", func(t *testing.T) {
		pBefore, uBefore := len(tv.pc.commits), len(tv.uc.commits)
		r, err := tv.set.Remember(ctx, NewMemory{Title: "Prefer ruff everywhere", Content: "Lint with ruff in every project.", Layer: Preference,
			Supersedes: []string{both.Memory.ID}}, "", Author{})
		if err != nil || r.Vault != UserVault || len(r.Superseded) != 0 {
			t.Fatalf("got %+v, %v; want a user memory marking nothing", r, err)
		}
		if len(tv.uc.commits)-uBefore != 1 || len(tv.pc.commits) != pBefore {
			t.Errorf("commits: user %d, project %d; want 1 and 0", len(tv.uc.commits)-uBefore, len(tv.pc.commits)-pBefore)
		}
		if m, _ := tv.project.Get(both.Memory.ID); m.Status != StatusActive || m.Version != 1 {
			t.Errorf("project memory %+v, want active version 1", m)
		}
	})

	t.Run("an id no vault holds", func(t *testing.T) {
		pBefore, uBefore := len(tv.pc.commits), len(tv.uc.commits)
		total := tv.project.Stats().Total
		_, err := tv.set.Remember(ctx, NewMemory{Title: "Lint nothing", Content: "x",
			Supersedes: []string{pref.Memory.ID, "01NOSUCHMEMORY0000000000000"}}, "", Author{})
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("got %v, want ErrNotFound", err)
		}
		if len(tv.pc.commits) != pBefore || len(tv.uc.commits) != uBefore || tv.project.Stats().Total != total {
			t.Errorf("a refused remember wrote something")
		}
	})
}
