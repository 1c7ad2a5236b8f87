package merge

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/memvault/memvault/parser"
	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the merged.md and conflicts sections of testdata/rules")

// TestRules runs one archive per merge rule (its comment says which):
// base.md, ours.md and theirs.md in, merged.md and conflicts (one name a
// line) the golden output.
func TestRules(t *testing.T) {
	files, err := filepath.Glob("testdata/rules/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no rules: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sec := map[string][]byte{}
			for _, f := range ar.Files {
				sec[f.Name] = f.Data
			}
			res, err := Files(sec["base.md"], sec["ours.md"], sec["theirs.md"])
			if want, ok := sec["error"]; ok {
				// A rule that takes neither side: the error says why.
				if err == nil || !strings.Contains(err.Error(), strings.TrimSpace(string(want))) {
					t.Fatalf("err = %v, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			gotConflicts := strings.Join(res.Conflicts, "\n")
			if gotConflicts != "" {
				gotConflicts += "\n"
			}
			if *update {
				ar.Files = append(ar.Files[:3], txtar.File{Name: "merged.md", Data: res.Data}, txtar.File{Name: "conflicts", Data: []byte(gotConflicts)})
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if d := cmp.Diff(string(sec["merged.md"]), string(res.Data)); d != "" {
				t.Errorf("merged file (-want +got):\n%s", d)
			}
			if d := cmp.Diff(string(sec["conflicts"]), gotConflicts); d != "" {
				t.Errorf("conflicts (-want +got):\n%s", d)
			}
			assertMerged(t, sec["ours.md"], res)
		})
	}
}

// assertMerged checks what every merge promises: the result parses, keeps
// our id, holds no conflict marker, and carries a record exactly when
// there are conflicts.
func assertMerged(t *testing.T, ours []byte, res Result) {
	t.Helper()
	o, _ := parser.Parse("ours", ours)
	d, diags := parser.Parse("merged", res.Data)
	if d == nil {
		t.Fatalf("merged file does not parse: %v", diags)
	}
	for _, e := range diags {
		if e.Severity == parser.SeverityError && !errors.Is(e.Err, parser.ErrNoFrontMatter) {
			t.Errorf("merged file: %v", e)
		}
	}
	if d.Meta.ID != o.Meta.ID {
		t.Errorf("id %q, want ours %q", d.Meta.ID, o.Meta.ID)
	}
	// A marker is a line that starts with one; theirs' markers may sit
	// inside the record's quoted value, which is no marker.
	if line := MarkerLine(res.Data); line > 0 && MarkerLine(ours) == 0 {
		t.Errorf("merged file holds a marker at line %d", line)
	}
	rec := fieldsOf(d)
	if len(res.Conflicts) == 0 && rec != nil && fieldsOf(o) == nil {
		t.Errorf("clean merge wrote a conflict record %v", rec)
	}
	if len(res.Conflicts) > 0 && (len(rec) < len(res.Conflicts) || !cmp.Equal(rec[:len(res.Conflicts)], res.Conflicts)) {
		t.Errorf("record names %v, want %v first", rec, res.Conflicts)
	}
}

func TestUnmergeable(t *testing.T) {
	good := []byte("---\nid: a\n---\nbody\n")
	for _, tc := range []struct {
		name         string
		ours, theirs []byte
	}{
		{"ours not closed", []byte("---\nid: a\nbody\n"), good},
		{"theirs not YAML", good, []byte("---\nid: [\n---\nbody\n")},
		{"theirs binary", good, []byte("---\nid: a\n---\n\x00")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Files(good, tc.ours, tc.theirs); !errors.Is(err, ErrUnmergeable) {
				t.Errorf("err = %v, want ErrUnmergeable", err)
			}
		})
	}
}

// TestTwoMemoriesAtOnePath: the same title added on two branches gives one
// path two ids; the merge takes neither (an add/add must never cost a
// memory), while an add/add of one id merges and a base with an id keeps
// the id rule (a conflict, recorded).
func TestTwoMemoriesAtOnePath(t *testing.T) {
	a := []byte("---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Redis\n---\nours\n")
	z := []byte("---\nid: 01JDX3Q8W7ZZZZZZZZZZZZZZZZ\ntitle: Redis\n---\ntheirs\n")
	for _, tc := range []struct {
		name       string
		base       []byte
		two, fails bool
	}{
		{"empty base", nil, true, true},
		{"base without an id", []byte("---\ntitle: Redis\n---\n"), true, true},
		{"base with our id, theirs another", a, true, true},
		{"base with their id, ours another", z, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Files(tc.base, a, z)
			var two *TwoMemoriesError
			if got := errors.As(err, &two); got != tc.two || (err != nil) != tc.fails {
				t.Fatalf("err = %v, want two memories %v", err, tc.two)
			}
			if tc.two && (!errors.Is(err, ErrUnmergeable) || !errors.Is(err, ErrTwoMemories) || two.Ours != "01JDX3Q8W7AAAAAAAAAAAAAAAA" || two.Theirs != "01JDX3Q8W7ZZZZZZZZZZZZZZZZ") {
				t.Errorf("err = %#v, want ErrTwoMemories with both ids, matching ErrUnmergeable", err)
			}
		})
	}
}

func TestRecordOfConflictedMerge(t *testing.T) {
	base := []byte("---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: A\nimportance: 5\n---\nx\n")
	ours := []byte("---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: B\nimportance: 5\n---\ny\n")
	theirs := []byte("---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: C\nimportance: 5\n---\nz\n")
	res, err := Files(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := parser.Parse("m", res.Data)
	v, _ := d.Value(ConflictKey)
	want := map[string]any{"fields": "title, body", "theirs_title": "C", "theirs_body": "z\n"}
	if d := cmp.Diff(want, v); d != "" {
		t.Errorf("record (-want +got):\n%s", d)
	}
	if d.Meta.Title != "B" || string(d.BodyBytes()) != "y\n" {
		t.Errorf("ours not kept: title %q body %q", d.Meta.Title, d.BodyBytes())
	}
	// Merging the conflicted file again with a clean change on one side
	// keeps the record: it goes away only when someone resolves it.
	again, err := Files(res.Data, res.Data, bytes.Replace(res.Data, []byte("importance: 5"), []byte("importance: 6"), 1))
	if err != nil {
		t.Fatal(err)
	}
	fields, values := Record(mustParse(t, again.Data))
	if !cmp.Equal(fields, []string{"title", "body"}) {
		t.Errorf("record after a clean merge: %v", fields)
	}
	if want := map[string]string{"title": "C", "body": "z\n"}; !cmp.Equal(values, want) {
		t.Errorf("their values %v, want %v", values, want)
	}
}

// fieldsOf is what a document's record names as disagreeing.
func fieldsOf(d *parser.Document) []string {
	fields, _ := Record(d)
	return fields
}

func mustParse(t *testing.T, b []byte) *parser.Document {
	t.Helper()
	d, _ := parser.Parse("m", b)
	if d == nil {
		t.Fatal("does not parse")
	}
	return d
}

// TestExpiresRenewal: an expiry both sides moved follows the later one
// unless a side brought it earlier than the base, which a person decides.
func TestExpiresRenewal(t *testing.T) {
	doc := func(tags, expires string) []byte {
		s := "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\nlayer: short-term\ntags: [" + tags + "]\n"
		if expires != "" {
			s += "expires_at: " + expires + "\n"
		}
		return []byte(s + "---\nBody.\n")
	}
	const base = "2026-12-08T10:00:00Z"
	tests := []struct {
		name, base, ours, theirs string
		want                     string // the merged expiry, "" for a conflict
	}{
		{"ours renewed later", base, "2026-12-13T13:00:01Z", "2026-12-13T13:00:00Z", "2026-12-13T13:00:01Z"},
		{"theirs renewed later", base, "2026-12-13T13:00:00Z", "2026-12-13T13:00:01Z", "2026-12-13T13:00:01Z"},
		{"no expiry in the base", "", "2026-12-13T13:00:00Z", "2026-12-14T00:00:00Z", "2026-12-14T00:00:00Z"},
		{"both shortened", base, "2026-12-08T08:00:00Z", "2026-12-08T09:00:00Z", ""},
		{"ours shortened", base, "2026-12-07T00:00:00Z", "2026-12-13T13:00:00Z", ""},
		{"theirs shortened", base, "2026-12-13T13:00:00Z", "2026-12-07T00:00:00Z", ""},
		{"theirs removed it", base, "2026-12-13T13:00:00Z", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Files(doc("admin", tt.base), doc("admin, performance", tt.ours), doc("admin", tt.theirs))
			if err != nil {
				t.Fatal(err)
			}
			d, errs := parser.Parse("m.md", res.Data)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if tt.want == "" {
				if !slices.Equal(res.Conflicts, []string{"expires_at"}) {
					t.Errorf("conflicts %q, want expires_at\n%s", res.Conflicts, res.Data)
				}
				return
			}
			if len(res.Conflicts) > 0 || d.Meta.ExpiresAt == nil || d.Meta.ExpiresAt.UTC().Format(time.RFC3339) != tt.want {
				t.Errorf("conflicts %q, merged:\n%s\nwant expires_at %s and no conflict", res.Conflicts, res.Data, tt.want)
			}
		})
	}
}

// TestSettle: a write's fields leave the conflict record; the record
// goes with its last entry; an unreadable record stays.
func TestSettle(t *testing.T) {
	const rec = "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: T\nconflict: {fields: 'title, body, tags', theirs_title: U, theirs_body: \"x\\n\"}\n---\nB\n"
	tests := []struct {
		name, in string
		fields   []string
		changed  bool
		want     string
	}{
		{"one entry", rec, []string{"title"}, true,
			"---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: T\nconflict: {fields: 'body, tags', theirs_body: \"x\\n\"}\n---\nB\n"},
		{"a deleted field's entry", rec, []string{"tags", "importance"}, true,
			"---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: T\nconflict: {fields: 'title, body', theirs_title: U, theirs_body: \"x\\n\"}\n---\nB\n"},
		{"every entry", rec, []string{"title", "body", "tags"}, true, "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: T\n---\nB\n"},
		{"fields the record does not list", rec, []string{"importance"}, false, rec},
		{"no record", "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\n---\nB\n", []string{"title"}, false, "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\n---\nB\n"},
		{"an unreadable record", "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\nconflict: [title]\n---\nB\n", []string{"title", "conflict"}, false,
			"---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\nconflict: [title]\n---\nB\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, errs := parser.Parse("m.md", []byte(tt.in))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			changed, err := Settle(d, tt.fields)
			if err != nil {
				t.Fatal(err)
			}
			if changed != tt.changed {
				t.Errorf("changed = %v, want %v", changed, tt.changed)
			}
			if diff := cmp.Diff(tt.want, string(d.Format())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
