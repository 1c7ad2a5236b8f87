package vault

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Issue 13, finding 10: `update C --supersedes C` succeeded and C hid
// itself; a cycle hid both; duplicates in supersedes were kept.
func TestSupersessionRefusesSelfAndCycles(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	list := func(ids ...string) *[]string { return &ids }
	tests := []struct {
		name string
		// setup and write run against a vault holding a (A), b (B, which
		// supersedes A) and c (C); write returns the refused write's error.
		setup func(v *Vault, a, b, c string) error
		write func(v *Vault, a, b, c string) error
		want  error
	}{
		{"update supersedes itself", nil, func(v *Vault, _, _, c string) error {
			_, err := v.Update(ctx, c, 0, Patch{Supersedes: list(c)}, Author{})
			return err
		}, ErrSupersedesSelf},
		{"update supersedes itself among others", nil, func(v *Vault, a, _, c string) error {
			_, err := v.Update(ctx, c, 0, Patch{Supersedes: list(a, c)}, Author{})
			return err
		}, ErrSupersedesSelf},
		{"update closes a two-memory ring", nil, func(v *Vault, a, b, _ string) error {
			_, err := v.Update(ctx, a, 0, Patch{Supersedes: list(b)}, Author{})
			return err
		}, ErrSupersessionCycle},
		{"update closes a three-memory ring", func(v *Vault, _, b, c string) error {
			_, err := v.Update(ctx, c, 0, Patch{Supersedes: list(b)}, Author{})
			return err
		}, func(v *Vault, a, _, c string) error {
			_, err := v.Update(ctx, a, 0, Patch{Supersedes: list(c)}, Author{})
			return err
		}, ErrSupersessionCycle},
		{"create with a given id that another lists", func(v *Vault, _, _, _ string) error {
			// A hand-written memory lists an id nobody holds yet.
			writeFiles(t, v.Dir(), map[string]string{"project/hand.md": "---\nid: hand\nsupersedes: [newcomer]\n---\nh\n"})
			return v.Refresh(ctx, []string{"project/hand.md"})
		}, func(v *Vault, _, _, _ string) error {
			_, err := v.Create(ctx, NewMemory{ID: "newcomer", Title: "Newcomer", Content: "x", Supersedes: []string{"hand"}}, Author{})
			return err
		}, ErrSupersessionCycle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, rec := openRecorded(t, t.TempDir())
			a := mustCreate(t, v, NewMemory{Title: "Alpha rule", Content: "a"}).ID
			b := mustCreate(t, v, NewMemory{Title: "Beta rule", Content: "b", Supersedes: []string{a}}).ID
			c := mustCreate(t, v, NewMemory{Title: "Gamma rule", Content: "c"}).ID
			if tt.setup != nil {
				if err := tt.setup(v, a, b, c); err != nil {
					t.Fatal(err)
				}
			}
			commits, files := len(rec.commits), treeFiles(t, v.Dir())
			status := map[string]Status{}
			for _, m := range v.All() {
				status[m.ID] = m.Status
			}
			err := tt.write(v, a, b, c)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if len(rec.commits) != commits {
				t.Errorf("a refused write committed")
			}
			after := treeFiles(t, v.Dir())
			for rel, data := range files {
				if after[rel] != data {
					t.Errorf("%s changed by a refused write", rel)
				}
			}
			if len(after) != len(files) {
				t.Errorf("a refused write left %d files, want %d", len(after), len(files))
			}
			for _, m := range v.All() {
				if m.Status != status[m.ID] {
					t.Errorf("%s (%s) is %s after a refused write, was %s", m.ID, m.Title, m.Status, status[m.ID])
				}
			}
		})
	}
}

func TestSupersedesDuplicatesRemoved(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	v, _ := openRecorded(t, t.TempDir())
	a := mustCreate(t, v, NewMemory{Title: "Alpha rule", Content: "a"}).ID
	b := mustCreate(t, v, NewMemory{Title: "Beta rule", Content: "b", Supersedes: []string{a, a}})
	if !slices.Equal(b.Supersedes, []string{a}) {
		t.Errorf("create: supersedes = %q, want [%s]", b.Supersedes, a)
	}
	c := mustCreate(t, v, NewMemory{Title: "Gamma rule", Content: "c"}).ID
	res, err := v.Update(ctx, c, 0, Patch{Supersedes: &[]string{a, b.ID, a, b.ID}}, Author{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{a, b.ID}; !slices.Equal(res.Memory.Supersedes, want) {
		t.Errorf("update: supersedes = %q, want %q", res.Memory.Supersedes, want)
	}
	data, err := os.ReadFile(filepath.Join(v.Dir(), filepath.FromSlash(res.Memory.Path)))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), a); n != 1 {
		t.Errorf("the file names %s %d times, want once:\n%s", a, n, data)
	}
}

// lint reports rings and repeats in files written by hand.
func TestLintReportsSupersessionProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"project/a.md": "---\nid: ida\ntitle: A\nsupersedes:\n  - idb\n---\na\n",
		"project/b.md": "---\nid: idb\ntitle: B\nsupersedes: [idc]\n---\nb\n",
		"project/c.md": "---\nid: idc\ntitle: C\nsupersedes: [ida]\n---\nc\n",
		"project/d.md": "---\nid: idd\ntitle: D\nsupersedes: [idd]\n---\nd\n",
		"project/e.md": "---\nid: ide\ntitle: E\nsupersedes: [idd, idd]\n---\ne\n",
		"project/f.md": "---\nid: idf\ntitle: F\nsupersedes: [ide]\n---\nf\n",
	})
	v, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range v.Diagnostics() {
		if d.Field == "supersedes" {
			got = append(got, d.Error())
		}
	}
	want := []string{
		"project/a.md:4: supersedes: supersession cycle among ida, idb, idc",
		"project/b.md:4: supersedes: supersession cycle among ida, idb, idc",
		"project/c.md:4: supersedes: supersession cycle among ida, idb, idc",
		"project/d.md:4: supersedes: a memory cannot supersede itself",
		`project/e.md:4: supersedes: "idd" is listed more than once`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d supersedes problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\n got %s\nwant %s...", i, got[i], want[i])
		}
	}
	if s := v.Stats(); s.Errors != 3 {
		t.Errorf("Stats().Errors = %d, want the 3 ring members", s.Errors)
	}
}

// An import skips the items that would close a ring, with the vault or
// with earlier items, and writes the rest.
func TestImportSkipsSupersessionRings(t *testing.T) {
	t.Parallel()
	v, _ := openRecorded(t, t.TempDir())
	a := mustCreate(t, v, NewMemory{Title: "Alpha rule", Content: "a"}).ID
	writeFiles(t, v.Dir(), map[string]string{"project/hand.md": "---\nid: hand\nsupersedes: [imp-b]\n---\nh\n"})
	if err := v.Refresh(t.Context(), []string{"project/hand.md"}); err != nil {
		t.Fatal(err)
	}
	item := func(id string, olds ...string) BatchItem {
		return BatchItem{Memory: NewMemory{ID: id, Title: "Imported " + id, Content: id, Supersedes: olds}}
	}
	res, err := v.CreateBatch(t.Context(), Batch{Items: []BatchItem{
		item("imp-x", "imp-y"), // fine alone
		item("imp-y", "imp-x"), // closes imp-y → imp-x → imp-y
		item("imp-z", a, a),    // fine, the repeat dropped
		item("imp-b", "hand"),  // closes imp-b → hand → imp-b
	}, Source: "test"}, Author{Reason: "import"})
	if err != nil {
		t.Fatal(err)
	}
	var skipped []int
	for _, s := range res.Skipped {
		if !errors.Is(s.Err, ErrSupersessionCycle) {
			t.Errorf("item %d skipped for %v, want a ring", s.Index, s.Err)
		}
		skipped = append(skipped, s.Index)
	}
	if !slices.Equal(skipped, []int{1, 3}) || !slices.Equal(res.Index, []int{0, 2}) {
		t.Errorf("skipped %v, created %v; want items 1 and 3 skipped", skipped, res.Index)
	}
	if m, err := v.Get("imp-z"); err != nil || !slices.Equal(m.Supersedes, []string{a}) {
		t.Errorf("imp-z: %v, %v; want supersedes [%s]", m, err, a)
	}
}
