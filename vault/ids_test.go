package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// trackedSet is a Tracker over a fixed set of paths.
type trackedSet map[string]bool

func (s trackedSet) Tracked(_ context.Context, rels []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, r := range rels {
		if s[r] {
			out[r] = true
		}
	}
	return out, nil
}

// Issue 13, finding 8: duplicate ids resolved by path order, so an
// untracked file carrying a committed memory's id took it over, and an
// update of that id then wrote (and committed) the impostor.
func TestTrackedFileKeepsItsID(t *testing.T) {
	t.Parallel()
	committed := "---\nid: checkout\ncreated_at: 2026-11-01T00:00:00Z\ntitle: Checkout uses the strategy pattern\n---\nPromotions multiply.\n"
	impostor := "---\nid: checkout\ncreated_at: 2026-11-01T00:00:00Z\ntitle: Checkout uses if/else chains\n---\nNo patterns here.\n"
	tests := []struct {
		name    string
		files   map[string]string
		tracker Tracker
		// want is the file that holds the id; lost the one skipped, with
		// the fragment its problem says.
		want, lost, says string
	}{
		{"untracked sorts first", map[string]string{"aaa-impostor.md": impostor, "project/checkout.md": committed},
			trackedSet{"project/checkout.md": true}, "project/checkout.md", "aaa-impostor.md", "already used by project/checkout.md, which git tracks; this untracked file is skipped"},
		{"untracked sorts last", map[string]string{"project/checkout.md": committed, "zzz-impostor.md": impostor},
			trackedSet{"project/checkout.md": true}, "project/checkout.md", "zzz-impostor.md", "already used by project/checkout.md; this file is skipped"},
		{"both tracked: path order", map[string]string{"aaa-impostor.md": impostor, "project/checkout.md": committed},
			trackedSet{"project/checkout.md": true, "aaa-impostor.md": true}, "aaa-impostor.md", "project/checkout.md", "already used by aaa-impostor.md; this file is skipped"},
		{"no tracker: path order", map[string]string{"aaa-impostor.md": impostor, "project/checkout.md": committed},
			nil, "aaa-impostor.md", "project/checkout.md", "already used by aaa-impostor.md; this file is skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			c := &recordingCommitter{}
			v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T10:00:00Z").Now, Committer: c, Tracker: tt.tracker})
			if err != nil {
				t.Fatal(err)
			}
			m, err := v.Get("checkout")
			if err != nil || m.Path != tt.want {
				t.Fatalf("Get = %v, %v; want the memory of %s", m, err, tt.want)
			}
			if rs := v.Recall(Query{Text: "checkout"}); len(rs) != 1 || rs[0].Memory.Path != tt.want {
				t.Errorf("recall finds %v, want %s alone", rs, tt.want)
			}
			var problems []string
			for _, d := range v.Diagnostics() {
				problems = append(problems, d.Error())
			}
			if len(problems) != 1 || !strings.HasPrefix(problems[0], tt.lost+":2: id: duplicate memory id \"checkout\": "+tt.says) {
				t.Errorf("problems:\n%s\nwant one on %s saying %q", strings.Join(problems, "\n"), tt.lost, tt.says)
			}
			// A write to the id is refused, naming both files, and
			// changes nothing.
			content := "Changed."
			for name, write := range map[string]func() error{
				"update": func() error {
					_, err := v.Update(t.Context(), "checkout", 0, Patch{Content: &content}, Author{})
					return err
				},
				"forget": func() error { _, err := v.Forget(t.Context(), "checkout", true, Author{Reason: "gone"}); return err },
				"supersede": func() error {
					_, err := v.Create(t.Context(), NewMemory{Title: "Checkout v2", Content: "x", Supersedes: []string{"checkout"}}, Author{})
					return err
				},
			} {
				err := write()
				if !errors.Is(err, ErrAmbiguousID) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.lost) {
					t.Errorf("%s: err = %v, want ErrAmbiguousID naming %s and %s", name, err, tt.want, tt.lost)
				}
			}
			if len(c.commits) != 0 {
				t.Errorf("refused writes committed %v", c.commits)
			}
			for rel, data := range tt.files {
				if got, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || string(got) != data {
					t.Errorf("%s changed: %q, %v", rel, got, err)
				}
			}
			// Once the other file is gone, writes go through.
			if err := os.Remove(filepath.Join(dir, tt.lost)); err != nil {
				t.Fatal(err)
			}
			if _, err := v.Update(t.Context(), "checkout", 0, Patch{Content: &content}, Author{}); err != nil {
				t.Errorf("update after the duplicate is removed: %v", err)
			}
		})
	}
}

// A headers-only vault (memvault add) settles an id two files carry as a
// full load does.
func TestHeadersOnlyTrackedFileKeepsItsID(t *testing.T) {
	t.Parallel()
	committed := "---\nid: checkout\ncreated_at: 2026-11-01T00:00:00Z\ntitle: Checkout uses the strategy pattern\n---\nPromotions multiply.\n"
	impostor := "---\nid: checkout\ncreated_at: 2026-11-01T00:00:00Z\ntitle: Checkout uses if/else chains\n---\nNo patterns here.\n"
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"aaa-impostor.md": impostor, "project/checkout.md": committed})
	v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T10:00:00Z").Now, Committer: &recordingCommitter{},
		Tracker: trackedSet{"project/checkout.md": true}, HeadersOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := v.Get("checkout"); err != nil || m.Path != "project/checkout.md" {
		t.Fatalf("Get = %v, %v; want the tracked project/checkout.md", m, err)
	}
}
