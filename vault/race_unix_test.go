//go:build unix

package vault

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault/diskwrite"
)

// plantFirst is a vault's folderOpener with a race in front of it: the
// first folder a write opens, after its path checks passed, finds plant
// done.
type plantFirst struct {
	folderOpener
	plant func()
}

func (p *plantFirst) OpenFolder(dir string, create bool) (*diskwrite.Root, error) {
	if plant := p.plant; plant != nil {
		p.plant = nil
		plant()
	}
	return p.folderOpener.OpenFolder(dir, create)
}

// TestWriteRaceWithPlantedLink plants a symbolic link after the write has
// checked its paths and before it touches a file (as it opens the vault
// folder: plantFirst),
// the window docs/hardening.md used to admit. The write must fail with a
// clear error, leave everything outside the vault as it was, record no
// commit, and leave the vault as it was once the link is taken away: no
// file half written, no journal to recover.
func TestWriteRaceWithPlantedLink(t *testing.T) {
	t.Parallel()
	type env struct {
		t                  *testing.T
		v                  *Vault
		dir, outside       string
		proj, pref         *Memory
		restore            func()
		outsideFileWanted  string // a file outside that must keep its content
		outsideFileContent string
	}
	// swapFolder moves the vault folder rel out of the way (outside/held)
	// and puts a link to target in its place; restore undoes it.
	swapFolder := func(e *env, rel, target string) {
		p := filepath.Join(e.dir, rel)
		held := filepath.Join(e.outside, "held")
		if err := os.Rename(p, held); err != nil {
			e.t.Fatal(err)
		}
		mustSymlink(e.t, target, p)
		e.restore = func() {
			if err := os.Remove(p); err != nil {
				e.t.Fatal(err)
			}
			if err := os.Rename(held, p); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	// decoy makes outside/decoy holding a copy of e.proj's file, the one
	// the writes aim at, so a write or delete that followed the link would show.
	decoy := func(e *env) string {
		d := filepath.Join(e.outside, "decoy")
		mustMkdir(e.t, d)
		src := filepath.Join(e.dir, filepath.FromSlash(e.proj.Path))
		data, err := os.ReadFile(src)
		if err != nil {
			e.t.Fatal(err)
		}
		e.outsideFileWanted = filepath.Join(d, filepath.Base(src))
		e.outsideFileContent = string(data)
		if err := os.WriteFile(e.outsideFileWanted, data, 0o644); err != nil {
			e.t.Fatal(err)
		}
		return d
	}
	content := "changed by the racing write"
	tests := []struct {
		name    string
		plant   func(e *env)
		write   func(e *env) error
		wantErr error
		wantMsg string
	}{
		{
			name:  "create: layer folder swapped for a link outside",
			plant: func(e *env) { swapFolder(e, "project", decoy(e)) },
			write: func(e *env) error {
				_, err := e.v.Create(e.t.Context(), NewMemory{Title: "Racing create", Content: "x"}, Author{Reason: "race"})
				return err
			},
			wantErr: ErrOutsideVault, wantMsg: "project is a symbolic link to",
		},
		{
			name: "create: missing layer folder appears as a link outside",
			plant: func(e *env) {
				p := filepath.Join(e.dir, "short-term")
				mustSymlink(e.t, decoy(e), p)
				e.restore = func() { os.Remove(p) }
			},
			write: func(e *env) error {
				_, err := e.v.Create(e.t.Context(), NewMemory{Title: "Racing create", Content: "x", Layer: ShortTerm}, Author{Reason: "race"})
				return err
			},
			wantErr: ErrOutsideVault, wantMsg: "short-term is a symbolic link to",
		},
		{
			// os.Root itself would follow this one: it stays inside.
			name:  "create: layer folder swapped for a relative link inside the vault",
			plant: func(e *env) { swapFolder(e, "project", "preferences") },
			write: func(e *env) error {
				_, err := e.v.Create(e.t.Context(), NewMemory{Title: "Racing create", Content: "x"}, Author{Reason: "race"})
				return err
			},
			wantErr: ErrInvalid, wantMsg: "inside the vault",
		},
		{
			name:  "create: layer folder swapped for an absolute link inside the vault",
			plant: func(e *env) { swapFolder(e, "project", filepath.Join(e.dir, "preferences")) },
			write: func(e *env) error {
				_, err := e.v.Create(e.t.Context(), NewMemory{Title: "Racing create", Content: "x"}, Author{Reason: "race"})
				return err
			},
			wantErr: ErrInvalid, wantMsg: "inside the vault",
		},
		{
			name:  "create superseding: second file's folder swapped, first file rolled back",
			plant: func(e *env) { swapFolder(e, "project", decoy(e)) },
			write: func(e *env) error {
				_, err := e.v.Create(e.t.Context(), NewMemory{Title: "Racing preference", Content: "x", Layer: Preference,
					Supersedes: []string{e.proj.ID}}, Author{Reason: "race"})
				return err
			},
			wantErr: ErrOutsideVault, wantMsg: "project is a symbolic link to",
		},
		{
			name:  "update: layer folder swapped for a link outside",
			plant: func(e *env) { swapFolder(e, "project", decoy(e)) },
			write: func(e *env) error {
				_, err := e.v.Update(e.t.Context(), e.proj.ID, 0, Patch{Content: &content}, Author{Reason: "race"})
				return err
			},
			wantErr: ErrOutsideVault, wantMsg: "project is a symbolic link to",
		},
		{
			name: "update: memory file swapped for a link outside",
			plant: func(e *env) {
				d := decoy(e)
				p := filepath.Join(e.dir, filepath.FromSlash(e.proj.Path))
				orig, err := os.ReadFile(p)
				if err != nil {
					e.t.Fatal(err)
				}
				if err := os.Remove(p); err != nil {
					e.t.Fatal(err)
				}
				mustSymlink(e.t, filepath.Join(d, filepath.Base(p)), p)
				e.restore = func() {
					os.Remove(p)
					if err := os.WriteFile(p, orig, 0o644); err != nil {
						e.t.Fatal(err)
					}
				}
			},
			write: func(e *env) error {
				_, err := e.v.Update(e.t.Context(), e.proj.ID, 0, Patch{Content: &content}, Author{Reason: "race"})
				return err
			},
			wantErr: ErrOutsideVault, wantMsg: "is a symbolic link to",
		},
		{
			name:  "forget --delete: layer folder swapped for a link outside",
			plant: func(e *env) { swapFolder(e, "project", decoy(e)) },
			write: func(e *env) error {
				_, err := e.v.Forget(e.t.Context(), e.proj.ID, true, Author{Reason: "race"})
				return err
			},
			wantErr: ErrOutsideVault, wantMsg: "project is a symbolic link to",
		},
		{
			name: "create: journal planted as a link outside",
			plant: func(e *env) {
				target := filepath.Join(decoy(e), "journal.json")
				if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
					e.t.Fatal(err)
				}
				p := filepath.Join(e.dir, JournalName)
				mustSymlink(e.t, target, p)
				e.restore = func() { os.Remove(p) }
			},
			write: func(e *env) error {
				_, err := e.v.Create(e.t.Context(), NewMemory{Title: "Racing create", Content: "x"}, Author{Reason: "race"})
				return err
			},
			wantErr: ErrOutsideVault, wantMsg: JournalName + " is a symbolic link to",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{t: t, dir: t.TempDir(), outside: t.TempDir()}
			c := &recordingCommitter{}
			var err error
			if e.v, err = Open(t.Context(), e.dir, Options{Committer: c}); err != nil {
				t.Fatal(err)
			}
			e.proj = mustCreate(t, e.v, NewMemory{Title: "Checkout uses the strategy pattern", Content: "结账用策略模式。"})
			e.pref = mustCreate(t, e.v, NewMemory{Title: "Prefer table-driven tests", Content: "x", Layer: Preference})
			// The race plants once the memories above are written.
			planted := false
			e.v.disk = &plantFirst{folderOpener: e.v.disk, plant: func() { planted = true; tt.plant(e) }}
			before := treeFiles(t, e.dir)
			commits := len(c.commits)
			err = tt.write(e)
			if !planted {
				t.Fatal("the write never opened the vault folder")
			}
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("write = %v, want %v mentioning %q", err, tt.wantErr, tt.wantMsg)
			}
			if n := len(c.commits); n != commits {
				t.Errorf("commits = %d after the refused write, want %d", n, commits)
			}
			// Outside: the decoy file unchanged, nothing else added.
			if e.outsideFileWanted != "" {
				got, err := os.ReadFile(e.outsideFileWanted)
				if err != nil || string(got) != e.outsideFileContent {
					t.Errorf("file outside the vault changed: %q, %v", got, err)
				}
			}
			for rel := range treeFiles(t, e.outside) {
				if base := filepath.Base(rel); base != filepath.Base(e.outsideFileWanted) && base != "journal.json" && !strings.HasPrefix(rel, "held/") {
					t.Errorf("the write left %s outside the vault", rel)
				}
			}
			e.restore()
			if after := treeFiles(t, e.dir); !maps.Equal(after, before) {
				t.Errorf("vault changed by the refused write:\ngot  %v\nwant %v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
			}
			// A new process finds nothing to finish and the same memories.
			v2, err := Open(t.Context(), e.dir, Options{Committer: c})
			if err != nil {
				t.Fatal(err)
			}
			if done, err := v2.Recover(t.Context()); err != nil || len(done) != 0 {
				t.Errorf("Recover after the refused write = %v, %v; want nothing to do", done, err)
			}
			var got []string
			for _, m := range v2.All() {
				got = append(got, m.ID+" "+string(m.Status))
			}
			want := []string{e.proj.ID + " active", e.pref.ID + " active"}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("memories after reopening = %v, want %v", got, want)
			}
			if n := len(c.commits); n != commits {
				t.Errorf("commits = %d after reopening, want %d", n, commits)
			}
		})
	}
}
