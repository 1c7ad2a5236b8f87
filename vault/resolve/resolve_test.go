package resolve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/merge"
)

// fakeIndex is a MergeIndex over fixed stages; Stage records what it was
// asked to stage.
type fakeIndex struct {
	files  []Unmerged
	staged []string
}

func (f *fakeIndex) Unmerged(context.Context) ([]Unmerged, error) { return f.files, nil }
func (f *fakeIndex) Stage(_ context.Context, rels []string) error {
	f.staged = append(f.staged, rels...)
	return nil
}

const (
	rsID  = "01JDX3Q8W7AAAAAAAAAAAAAAAA"
	rsID2 = "01JDX3Q8W7ZZZZZZZZZZZZZZZZ"
)

func rsMemory(id, title, extra, body string) []byte {
	return []byte("---\nid: " + id + "\ntitle: " + title + "\nimportance: 5\n" + extra + "---\n" + body)
}

func TestResolve(t *testing.T) {
	base := rsMemory(rsID, "Money", "tags: [money]\n", "Cents.\n")
	oursTags := rsMemory(rsID, "Money", "tags: [money, ledger]\n", "Cents.\n")
	theirsImp := []byte(strings.Replace(string(base), "importance: 5", "importance: 8", 1))
	merged := rsMemory(rsID, "Money", "tags: [money, ledger]\n", "Cents.\n")
	merged = []byte(strings.Replace(string(merged), "importance: 5", "importance: 8", 1))
	oursTitle := rsMemory(rsID, "Money is cents", "tags: [money]\n", "Cents.\n")
	theirsTitle := rsMemory(rsID, "金额用分", "tags: [money]\n", "Cents.\n")
	const p = "project/money.md"
	brokenOurs := []byte("---\nid: [\n---\n")
	keptTheirs, _, err := merge.Keep(brokenOurs, theirsImp)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		u       Unmerged
		side    Side
		disk    map[string]string // files already in the work tree
		want    Resolved
		files   map[string]string // expected contents ("" = absent)
		staged  []string
		wantErr string
	}{
		{name: "different fields merge", u: Unmerged{Path: p, Base: base, Ours: oursTags, Theirs: theirsImp},
			want: Resolved{Path: p, Action: ActionMerged, ID: rsID}, files: map[string]string{p: string(merged)}, staged: []string{p}},
		{name: "same field is a recorded conflict", u: Unmerged{Path: p, Base: base, Ours: oursTitle, Theirs: theirsTitle},
			want:  Resolved{Path: p, Action: ActionConflict, ID: rsID, Conflicts: []string{"title"}},
			files: map[string]string{p: strings.Replace(string(oursTitle), "tags: [money]\n", "tags: [money]\nconflict: {fields: title, theirs_title: 金额用分}\n", 1)}, staged: []string{p}},
		{name: "ours whole", side: Ours, u: Unmerged{Path: p, Base: base, Ours: oursTitle, Theirs: theirsTitle},
			want: Resolved{Path: p, Action: ActionOurs, ID: rsID}, files: map[string]string{p: string(oursTitle)}, staged: []string{p}},
		{name: "theirs whole", side: Theirs, u: Unmerged{Path: p, Base: base, Ours: oursTitle, Theirs: theirsTitle},
			want: Resolved{Path: p, Action: ActionTheirs, ID: rsID}, files: map[string]string{p: string(theirsTitle)}, staged: []string{p}},
		{name: "theirs whole when theirs deleted", side: Theirs, u: Unmerged{Path: p, Base: base, Ours: oursTitle},
			disk: map[string]string{p: string(oursTitle)},
			want: Resolved{Path: p, Action: ActionDeleted, Note: "theirs deleted the file"}, files: map[string]string{p: ""}, staged: []string{p}},
		{name: "add/add of two memories keeps both", u: Unmerged{Path: p, Ours: rsMemory(rsID, "Money", "", "ours\n"), Theirs: rsMemory(rsID2, "Money", "", "theirs\n")},
			disk: map[string]string{"project/money-zzzzzz.md": "taken"},
			want: Resolved{Path: p, Action: ActionSplit, ID: rsID, NewPath: "project/money-zzzzzzz.md", NewID: rsID2,
				Note: "two memories met at this file name: the one from theirs went to project/money-zzzzzzz.md"},
			files:  map[string]string{p: string(rsMemory(rsID, "Money", "", "ours\n")), "project/money-zzzzzzz.md": string(rsMemory(rsID2, "Money", "", "theirs\n"))},
			staged: []string{p, "project/money-zzzzzzz.md"}},
		{name: "add/add: the greater id moves, from either side", u: Unmerged{Path: p, Ours: rsMemory(rsID2, "Money", "", "ours\n"), Theirs: rsMemory(rsID, "Money", "", "theirs\n")},
			want: Resolved{Path: p, Action: ActionSplit, ID: rsID, NewPath: "project/money-zzzzzz.md", NewID: rsID2,
				Note: "two memories met at this file name: the one from ours went to project/money-zzzzzz.md"},
			files:  map[string]string{p: string(rsMemory(rsID, "Money", "", "theirs\n")), "project/money-zzzzzz.md": string(rsMemory(rsID2, "Money", "", "ours\n"))},
			staged: []string{p, "project/money-zzzzzz.md"}},
		{name: "add/add: the mover joins its file from an earlier split", u: Unmerged{Path: p, Ours: rsMemory(rsID2, "Money v2", "", "ours\n"), Theirs: rsMemory(rsID, "Money", "", "theirs\n")},
			disk: map[string]string{"project/money-zzzzzz.md": string(rsMemory(rsID2, "Money", "", "ours\n"))},
			want: Resolved{Path: p, Action: ActionSplit, ID: rsID, NewPath: "project/money-zzzzzz.md", NewID: rsID2, Conflicts: []string{"title"},
				Note: "two memories met at this file name: the one from ours went to project/money-zzzzzz.md"},
			files:  map[string]string{p: string(rsMemory(rsID, "Money", "", "theirs\n")), "project/money-zzzzzz.md": "---\nid: " + rsID2 + "\ntitle: Money\nimportance: 5\nconflict: {fields: title, theirs_title: Money v2}\n---\nours\n"},
			staged: []string{p, "project/money-zzzzzz.md"}},
		{name: "an edit of the memory whose path went to another joins its new file", u: Unmerged{Path: p, Base: rsMemory(rsID2, "Money", "", "ours\n"), Ours: rsMemory(rsID, "Money", "", "other\n"), Theirs: rsMemory(rsID2, "Money v2", "", "ours\n")},
			disk: map[string]string{"project/money-zzzzzz.md": string(rsMemory(rsID2, "Money", "tags: [x]\n", "ours\n"))},
			want: Resolved{Path: p, Action: ActionSplit, ID: rsID, NewPath: "project/money-zzzzzz.md", NewID: rsID2,
				Note: "two memories met at this file name: the one from theirs went to project/money-zzzzzz.md"},
			files:  map[string]string{p: string(rsMemory(rsID, "Money", "", "other\n")), "project/money-zzzzzz.md": string(rsMemory(rsID2, "Money v2", "tags: [x]\n", "ours\n"))},
			staged: []string{p, "project/money-zzzzzz.md"}},
		{name: "the path went to another memory, the one it held moved: its copies join", u: Unmerged{Path: p, Base: rsMemory(rsID2, "Money", "", "x\n"), Ours: rsMemory(rsID, "Money", "", "other\n")},
			disk: map[string]string{
				"project/money-zzzzzz.md": string(rsMemory(rsID2, "Money", "tags: [split]\n", "x\n")),
				"meta/money.md":           string(rsMemory(rsID2, "Money", "layer: meta\n", "x\n")),
			},
			want: Resolved{Path: p, Action: ActionKept, ID: rsID, Note: "theirs moved " + rsID2 + " away from this file name; the memory here stays"},
			files: map[string]string{p: string(rsMemory(rsID, "Money", "", "other\n")), "project/money-zzzzzz.md": "",
				"meta/money.md": string(rsMemory(rsID2, "Money", "layer: meta\ntags: [split]\n", "x\n"))},
			staged: []string{p, "meta/money.md", "project/money-zzzzzz.md"}},
		{name: "changed here, deleted there: kept", u: Unmerged{Path: p, Base: base, Theirs: theirsImp},
			want:  Resolved{Path: p, Action: ActionKept, ID: rsID, Note: "theirs changed it, ours deleted it: the change is kept (forget it again if it should go)"},
			files: map[string]string{p: string(theirsImp)}, staged: []string{p}},
		{name: "changed here, moved there: merged into the move", u: Unmerged{Path: p, Base: base, Ours: oursTags},
			disk:  map[string]string{"meta/money.md": string(theirsImp)},
			want:  Resolved{Path: p, Action: ActionRenamed, ID: rsID, NewPath: "meta/money.md", NewID: rsID, Note: "ours changed it, theirs moved it to meta/money.md"},
			files: map[string]string{p: "", "meta/money.md": string(merged)}, staged: []string{p, "meta/money.md"}},
		{name: "one side does not parse: the other kept, it in the record", u: Unmerged{Path: p, Base: base, Ours: brokenOurs, Theirs: theirsImp},
			want: Resolved{Path: p, Action: ActionConflict, ID: rsID, Conflicts: []string{merge.FileField},
				Note: "cannot merge by fields (cannot merge the memory field by field: ours: ours:3: invalid front matter: did not find expected node content): " +
					"kept theirs, the other side's whole file is in the conflict entry; choose, then delete the entry"},
			files: map[string]string{p: string(keptTheirs.Data)}, staged: []string{p}},
		{name: "neither side parses: the file and the way out", u: Unmerged{Path: p, Base: base, Ours: brokenOurs, Theirs: brokenOurs},
			wantErr: p + ": cannot merge the memory field by field: ours"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for rel, s := range tc.disk {
				writeTestFile(t, filepath.Join(dir, rel), s)
			}
			idx := &fakeIndex{files: []Unmerged{tc.u, {Path: "README.md", Ours: []byte("x")}}}
			got, err := Run(t.Context(), dir, idx, Options{Side: tc.side})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]Resolved{tc.want}, got); d != "" {
				t.Errorf("resolved (-want +got):\n%s", d)
			}
			for rel, want := range tc.files {
				data, err := os.ReadFile(filepath.Join(dir, rel))
				if want == "" {
					if !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s exists (%v), want it gone", rel, err)
					}
					continue
				}
				if string(data) != want {
					t.Errorf("%s:\n%s\nwant:\n%s", rel, data, want)
				}
			}
			if !slices.Equal(idx.staged, tc.staged) {
				t.Errorf("staged %v, want %v", idx.staged, tc.staged)
			}
		})
	}
}

// TestResolveBoth keeps two rival memories that link each other, theirs
// under a new id.
func TestResolveBoth(t *testing.T) {
	dir := t.TempDir()
	base := rsMemory(rsID, "Money", "", "Cents.\n")
	ours := rsMemory(rsID, "Money is cents", "", "Cents.\n")
	theirs := rsMemory(rsID, "金额用分", "links: [other]\n", "Cents.\n")
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	idx := &fakeIndex{files: []Unmerged{{Path: "project/money.md", Base: base, Ours: ours, Theirs: theirs}}}
	got, err := Run(t.Context(), dir, idx, Options{Side: Both, Now: func() time.Time { return now }, Entropy: strings.NewReader(strings.Repeat("\x01", 10))})
	if err != nil {
		t.Fatal(err)
	}
	newID, _ := vault.NewULID(now, strings.NewReader(strings.Repeat("\x01", 10)))
	if len(got) != 1 || got[0].Action != ActionBoth || got[0].NewID != newID || got[0].ID != rsID {
		t.Fatalf("resolved %+v, want both with new id %s", got, newID)
	}
	o := parseTestFile(t, filepath.Join(dir, "project/money.md"))
	th := parseTestFile(t, filepath.Join(dir, got[0].NewPath))
	if o.Meta.ID != rsID || o.Meta.Title != "Money is cents" || !slices.Equal(o.Meta.Links, []string{newID}) {
		t.Errorf("ours: id %s title %q links %v", o.Meta.ID, o.Meta.Title, o.Meta.Links)
	}
	if th.Meta.ID != newID || th.Meta.Title != "金额用分" || !slices.Equal(th.Meta.Links, []string{"other", rsID}) {
		t.Errorf("theirs: id %s title %q links %v", th.Meta.ID, th.Meta.Title, th.Meta.Links)
	}
	if !slices.Equal(idx.staged, []string{"project/money.md", got[0].NewPath}) {
		t.Errorf("staged %v", idx.staged)
	}
}

// TestResolveOnly selects files by path or id; a name matching no
// unmerged memory file is an error naming it, and nothing is written.
func TestResolveOnly(t *testing.T) {
	a := Unmerged{Path: "project/a.md", Base: rsMemory(rsID, "A", "", "x\n"), Ours: rsMemory(rsID, "A", "", "x\n"), Theirs: rsMemory(rsID, "A", "tags: [t]\n", "x\n")}
	b := Unmerged{Path: "project/b.md", Base: rsMemory(rsID2, "B", "", "x\n"), Ours: rsMemory(rsID2, "B", "", "x\n"), Theirs: rsMemory(rsID2, "B", "tags: [t]\n", "x\n")}
	for _, tc := range []struct {
		only    []string
		staged  []string
		wantErr string
	}{
		{only: []string{rsID2}, staged: []string{"project/b.md"}},
		{only: []string{"project/a.md", rsID}, staged: []string{"project/a.md"}},
		{only: []string{"project/c.md"}, wantErr: "project/c.md: not an unmerged memory file"},
	} {
		idx := &fakeIndex{files: []Unmerged{a, b}}
		_, err := Run(t.Context(), t.TempDir(), idx, Options{Only: tc.only})
		if (err != nil) != (tc.wantErr != "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("only %v: err = %v, want %q", tc.only, err, tc.wantErr)
		}
		if !slices.Equal(idx.staged, tc.staged) {
			t.Errorf("only %v: staged %v, want %v", tc.only, idx.staged, tc.staged)
		}
	}
}

func writeTestFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func parseTestFile(t *testing.T, p string) *parser.Document {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := parser.Parse(p, data)
	if d == nil {
		t.Fatalf("%s does not parse", p)
	}
	return d
}

// TestJoinCopies joins the two files a merge left for one memory moved to
// two layers: one file, the fields merged, the layers a conflict record.
func TestJoinCopies(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "meta", "money.md"), string(rsMemory(rsID, "Money", "layer: meta\ntags: [a]\n", "x\n")))
	writeTestFile(t, filepath.Join(dir, "short-term", "money.md"), string(rsMemory(rsID, "Money", "layer: short-term\ntags: [b]\n", "x\n")))
	writeTestFile(t, filepath.Join(dir, "project", "other.md"), string(rsMemory(rsID2, "Other", "", "y\n")))
	got, err := JoinCopies(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Resolved{{Path: "meta/money.md", Action: ActionConflict, ID: rsID, NewPath: "short-term/money.md", Conflicts: []string{"layer"}, Note: "the merge left 2 files with this id"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("joined (-want +got):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "short-term", "money.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the second copy is still there: %v", err)
	}
	d := parseTestFile(t, filepath.Join(dir, "meta", "money.md"))
	if d.Meta.ID != rsID || !slices.Equal(d.Meta.Tags, []string{"a", "b"}) {
		t.Errorf("joined file: id %s tags %v", d.Meta.ID, d.Meta.Tags)
	}
	if again, err := JoinCopies(t.Context(), dir, nil); err != nil || len(again) != 0 {
		t.Errorf("a second pass joined %v (%v)", again, err)
	}
}

// TestJoinCopiesAgainstTheFork: with the memory as it was where the
// sides forked, a field one copy alone changed (the title) is taken, and
// only what both changed (the layer) is a conflict.
func TestJoinCopiesAgainstTheFork(t *testing.T) {
	dir := t.TempDir()
	forked := rsMemory(rsID, "Money", "layer: project\n", "x\n")
	writeTestFile(t, filepath.Join(dir, "meta", "money.md"), string(rsMemory(rsID, "Money in cents", "layer: meta\n", "x\n")))
	writeTestFile(t, filepath.Join(dir, "short-term", "money.md"), string(rsMemory(rsID, "Money", "layer: short-term\n", "x\n")))
	base := func(_ context.Context, id string) ([]byte, error) {
		if id != rsID {
			t.Errorf("base asked for %s", id)
		}
		return forked, nil
	}
	got, err := JoinCopies(t.Context(), dir, base)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !slices.Equal(got[0].Conflicts, []string{"layer"}) {
		t.Fatalf("joined %+v, want one memory with a conflict on layer only", got)
	}
	if d := parseTestFile(t, filepath.Join(dir, "meta", "money.md")); d.Meta.Title != "Money in cents" || d.Meta.Layer != "meta" {
		t.Errorf("joined file: title %q layer %q, want the retitle in meta", d.Meta.Title, d.Meta.Layer)
	}
}
