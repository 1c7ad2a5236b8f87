package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testAWSKey is an access key id the guard detects, built at run time so
// no file of the repository holds one.
var testAWSKey = "AKIA" + "UJZDEGXDNCF32EPF"

func TestCreateBatch(t *testing.T) {
	t.Parallel()
	created := time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		existing    []NewMemory
		items       []BatchItem
		wantPaths   []string // of the created memories, in order
		wantSkipped []int    // indexes
		wantErr     []error  // per skipped item
	}{
		{
			name: "titles sharing a slug get distinct files",
			items: []BatchItem{
				{Memory: NewMemory{Title: "Tests use pytest", Content: "a"}},
				{Memory: NewMemory{Title: "Tests: use pytest!", Content: "b"}},
				{Memory: NewMemory{Title: "测试用 pytest", Content: "c", Layer: Preference}},
			},
			wantPaths: []string{"project/tests-use-pytest.md", "project/tests-use-pytest-2.md", "preferences/测试用-pytest.md"},
		},
		{
			name:     "an existing id and a repeated id are skipped, the rest written",
			existing: []NewMemory{{ID: "kg-alice-1", Title: "Alice", Content: "x"}},
			items: []BatchItem{
				{Memory: NewMemory{ID: "kg-alice-1", Title: "Alice", Content: "x"}},
				{Memory: NewMemory{ID: "kg-bob-2", Title: "Bob", Content: "y"}},
				{Memory: NewMemory{ID: "kg-bob-2", Title: "Bob again", Content: "z"}},
			},
			wantPaths:   []string{"project/bob.md"},
			wantSkipped: []int{0, 2},
			wantErr:     []error{ErrDuplicateID, ErrDuplicateID},
		},
		{
			name: "invalid items are skipped with the reason",
			items: []BatchItem{
				{Memory: NewMemory{Title: "", Content: "no title"}},
				{Memory: NewMemory{Title: "ok", Content: strings.Repeat("x", MaxContentBytes+1)}},
				{Memory: NewMemory{Title: "kept", Content: "fine"}},
				{Memory: NewMemory{Title: "bad status", Content: "x"}, Keep: &Imported{Status: "deleted"}},
				{Memory: NewMemory{Title: "bad extra", Content: "x"}, Keep: &Imported{Extra: []ExtraField{{"title", "x"}}}},
			},
			wantPaths:   []string{"project/kept.md"},
			wantSkipped: []int{0, 1, 3, 4},
			wantErr:     []error{ErrInvalid, ErrInvalid, ErrInvalid, ErrInvalid},
		},
		{
			name: "the secret guard refuses content, tags, aliases and extra keys",
			items: []BatchItem{
				{Memory: NewMemory{Title: "deploy", Content: "aws_access_key_id = " + testAWSKey}},
				{Memory: NewMemory{Title: "alias", Content: "x", Aliases: []string{testAWSKey}}},
				{Memory: NewMemory{Title: "extra", Content: "x"}, Keep: &Imported{Extra: []ExtraField{{"note", "key " + testAWSKey}}}},
				{Memory: NewMemory{Title: "clean", Content: "x"}},
			},
			wantPaths:   []string{"project/clean.md"},
			wantSkipped: []int{0, 1, 2},
			wantErr:     []error{ErrSecret, ErrSecret, ErrSecret},
		},
		{
			name: "original paths that could lead elsewhere or sit in another layer are not reused",
			items: []BatchItem{
				{Memory: NewMemory{Title: "up", Content: "x"}, Keep: &Imported{Path: "../../etc/up.md"}},
				{Memory: NewMemory{Title: "abs", Content: "x"}, Keep: &Imported{Path: "/tmp/abs.md"}},
				{Memory: NewMemory{Title: "back", Content: "x"}, Keep: &Imported{Path: `project/a\..\..\back.md`}},
				{Memory: NewMemory{Title: "other", Content: "x"}, Keep: &Imported{Path: "meta/other.md"}},
				{Memory: NewMemory{Title: "dot", Content: "x"}, Keep: &Imported{Path: "project/.hidden.md"}},
				{Memory: NewMemory{Title: "fine", Content: "x"}, Keep: &Imported{Path: "project/sub/fine-name.md"}},
			},
			wantPaths: []string{"project/up.md", "project/abs.md", "project/back.md", "project/other.md", "project/dot.md", "project/sub/fine-name.md"},
		},
		{
			name: "imported fields and a free original path are kept",
			items: []BatchItem{{
				Memory: NewMemory{ID: "01JDEMO", Title: "Old decision", Content: "\n# Old decision\n\nbody\n\n", Layer: ShortTerm},
				Keep: &Imported{CreatedAt: created, UpdatedAt: created.Add(time.Hour), Status: StatusArchived, Version: 4,
					Source: &Source{Client: "cursor", Kind: "manual"}, Path: "short-term/old.md", ExactBody: true,
					Extra: []ExtraField{{"reviewer", "alice"}, {"refs", []string{"ADR-12", "ADR-13"}}}},
			}},
			wantPaths: []string{"short-term/old.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			v, c := openRecorded(t, dir)
			for _, n := range tt.existing {
				if _, err := v.Create(t.Context(), n, Author{}); err != nil {
					t.Fatal(err)
				}
			}
			before := len(c.commits)
			res, err := v.CreateBatch(t.Context(), Batch{Items: tt.items, Source: "test.jsonl"}, Author{Reason: "test import"})
			if err != nil {
				t.Fatal(err)
			}
			var gotPaths []string
			for _, m := range res.Created {
				gotPaths = append(gotPaths, m.Path)
			}
			if strings.Join(gotPaths, " ") != strings.Join(tt.wantPaths, " ") {
				t.Errorf("paths = %q, want %q", gotPaths, tt.wantPaths)
			}
			if len(res.Skipped) != len(tt.wantSkipped) {
				t.Fatalf("skipped = %v, want indexes %v", res.Skipped, tt.wantSkipped)
			}
			for i, s := range res.Skipped {
				if s.Index != tt.wantSkipped[i] || !errors.Is(s.Err, tt.wantErr[i]) {
					t.Errorf("skipped[%d] = %d %v, want %d %v", i, s.Index, s.Err, tt.wantSkipped[i], tt.wantErr[i])
				}
			}
			if got := len(c.commits) - before; got != 1 {
				t.Fatalf("%d commits, want 1", got)
			}
			msg := c.commits[len(c.commits)-1].message
			if !strings.HasPrefix(msg, "memory: import ") || !strings.Contains(msg, "from test.jsonl\n\ntest import\n") {
				t.Errorf("commit message:\n%s", msg)
			}
			for _, m := range res.Created {
				if !strings.Contains(msg, "Memory-Id: "+m.ID+"\n") {
					t.Errorf("commit message lacks the trailer of %s:\n%s", m.ID, msg)
				}
				if got, err := v.Get(m.ID); err != nil || got.Path != m.Path {
					t.Errorf("Get(%s) = %v, %v", m.ID, got, err)
				}
			}
		})
	}
}

func TestCreateBatchKeepsImportedFields(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T10:00:00Z").Now})
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)
	body := "\n# Old decision\n\nbody\n\n"
	res, err := v.CreateBatch(t.Context(), Batch{Items: []BatchItem{{
		Memory: NewMemory{ID: "01JDEMO", Title: "Old decision", Content: body, Layer: ShortTerm, Importance: 7},
		Keep: &Imported{CreatedAt: created, UpdatedAt: created.Add(time.Hour), Status: StatusArchived, Version: 4,
			Source: &Source{Client: "cursor", Kind: "manual"}, Path: "short-term/old.md", ExactBody: true,
			Extra: []ExtraField{{"reviewer", "alice"}, {"refs", []string{"ADR-12", "ADR-13"}}}},
	}}}, Author{})
	if err != nil || len(res.Created) != 1 {
		t.Fatalf("CreateBatch = %+v, %v", res, err)
	}
	m := res.Created[0]
	if m.CreatedAt != created || m.UpdatedAt != created.Add(time.Hour) || m.Status != StatusArchived || m.Version != 4 ||
		m.Source != (Source{Client: "cursor", Kind: "manual"}) || m.Body != body || m.Importance != 7 ||
		m.ExpiresAt != created.Add(time.Hour).Add(ShortTerm.TTL()) {
		t.Errorf("memory = %+v", m)
	}
	data, err := os.ReadFile(filepath.Join(dir, "short-term", "old.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"reviewer: alice\n", "refs: [ADR-12, ADR-13]\n", "version: 4\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("file lacks %q:\n%s", want, data)
		}
	}
}

func TestCreateBatchDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v, c := openRecorded(t, dir)
	var progress []int
	res, err := v.CreateBatch(t.Context(), Batch{DryRun: true, Progress: func(done, _ int) { progress = append(progress, done) },
		Items: []BatchItem{{Memory: NewMemory{Title: "a", Content: "a"}}, {Memory: NewMemory{Title: "b", Content: "b"}}}}, Author{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Created) != 2 || res.Commit != "" || len(c.commits) != 0 {
		t.Fatalf("dry run: %d created, commit %q, %d commits", len(res.Created), res.Commit, len(c.commits))
	}
	if len(progress) != 2 || progress[1] != 2 {
		t.Errorf("progress = %v", progress)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("dry run wrote %d entries in the vault folder", len(ents))
	}
	if len(v.All()) != 0 {
		t.Errorf("dry run changed the index")
	}
}

func TestCreateBatchRollsBackOnFailedCommit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := &recordingCommitter{fail: errors.New("disk full")}
	v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T10:00:00Z").Now, Committer: c})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.CreateBatch(t.Context(), Batch{Items: []BatchItem{{Memory: NewMemory{Title: "a", Content: "a"}}, {Memory: NewMemory{Title: "b", Content: "b"}}}}, Author{})
	if err == nil {
		t.Fatal("no error from a failed commit")
	}
	for _, p := range []string{"project/a.md", "project/b.md"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s left behind after the rollback", p)
		}
	}
	if len(v.All()) != 0 {
		t.Errorf("index holds %d memories after the rollback", len(v.All()))
	}
}
