package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// committedFiles is a CommittedReader over a map: the files as at HEAD.
type committedFiles map[string]string

func (c committedFiles) ReadCommitted(_ context.Context, rel string) ([]byte, error) {
	s, ok := c[rel]
	if !ok {
		return nil, fmt.Errorf("%s at HEAD: %w", rel, fs.ErrNotExist)
	}
	return []byte(s), nil
}

const committedMoney = "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Money is int64 cents\n---\nNever float64.\n"

// markerFiles holds a memory with a conflict block in its body and a file
// that starts with a marker (which would load as a memory named after it).
var markerFiles = map[string]string{
	"project/money.md": "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Money is int64 cents\n---\n" +
		"<<<<<<< HEAD\nNever float64.\n=======\nNever float32.\n>>>>>>> topic\n",
	"project/ghost.md": "<<<<<<< HEAD\n---\nid: 01JDX3Q8W7BBBBBBBBBBBBBBBB\n---\nours\n=======\ntheirs\n>>>>>>> topic\n",
}

func TestConflictMarkersAreNeverLoaded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		committed CommittedReader
		served    []string // ids served
		stats     []ConflictedFile
	}{
		{
			name:   "no repository: left out, reported",
			served: nil,
			stats: []ConflictedFile{
				{Path: "project/ghost.md", What: []string{ConflictedMarkers}},
				{Path: "project/money.md", What: []string{ConflictedMarkers}},
			},
		},
		{
			name:      "HEAD's version served, labelled",
			committed: committedFiles{"project/money.md": committedMoney},
			served:    []string{"01JDX3Q8W7AAAAAAAAAAAAAAAA"},
			stats: []ConflictedFile{
				{Path: "project/ghost.md", What: []string{ConflictedMarkers}},
				{Path: "project/money.md", ID: "01JDX3Q8W7AAAAAAAAAAAAAAAA", What: []string{ConflictedMarkers}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, markerFiles)
			v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T00:00:00Z").Now, Committed: tc.committed})
			if err != nil {
				t.Fatal(err)
			}
			var served []string
			for _, m := range v.All() {
				served = append(served, m.ID)
				if strings.Contains(m.Body, "<<<<<<<") || strings.Contains(m.Title, "<<<<<<<") {
					t.Errorf("served a memory with markers: %q %q", m.Title, m.Body)
				}
				if !slices.Equal(m.Conflicted, []string{ConflictedMarkers}) || m.Body != "Never float64.\n" {
					t.Errorf("%s: conflicted %v body %q; want HEAD's body, labelled markers", m.ID, m.Conflicted, m.Body)
				}
			}
			if !slices.Equal(served, tc.served) {
				t.Errorf("served %v, want %v", served, tc.served)
			}
			lines := map[string]int{}
			for _, d := range v.Diagnostics() {
				if errors.Is(d.Err, ErrConflictMarkers) {
					lines[d.Path] = d.Line
				}
			}
			if want := map[string]int{"project/money.md": 5, "project/ghost.md": 1}; !cmp.Equal(lines, want) {
				t.Errorf("marker diagnostics at %v, want %v", lines, want)
			}
			if d := cmp.Diff(tc.stats, v.Stats().Conflicted); d != "" {
				t.Errorf("Stats.Conflicted (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.stats, v.Conflicted()); d != "" {
				t.Errorf("Conflicted() (-want +got):\n%s", d)
			}
			if v.Len() != v.Stats().Total {
				t.Errorf("Len() = %d, Stats().Total = %d", v.Len(), v.Stats().Total)
			}
		})
	}
}

func TestConflictEntryLabelsTheMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"project/money.md": "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Money is int64 cents\n" +
		"conflict: {fields: 'title, body', theirs_title: 金额用分, theirs_body: \"x\\n\"}\n---\nNever float64.\n"})
	v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T00:00:00Z").Now})
	if err != nil {
		t.Fatal(err)
	}
	m, err := v.Get("01JDX3Q8W7AAAAAAAAAAAAAAAA")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"title", "body"}; !slices.Equal(m.Conflicted, want) {
		t.Errorf("Conflicted = %v, want %v", m.Conflicted, want)
	}
	if want := map[string]string{"title": "金额用分", "body": "x\n"}; !cmp.Equal(m.ConflictTheirs, want) {
		t.Errorf("ConflictTheirs = %v, want %v", m.ConflictTheirs, want)
	}
	want := []ConflictedFile{{Path: "project/money.md", ID: m.ID, What: []string{"title", "body"}}}
	if d := cmp.Diff(want, v.Stats().Conflicted); d != "" {
		t.Errorf("Stats.Conflicted (-want +got):\n%s", d)
	}
	// lint names the unresolved conflict on the entry's line.
	var named bool
	for _, d := range v.Diagnostics() {
		named = named || (d.Path == "project/money.md" && d.Line == 4 && d.Field == "conflict" &&
			strings.Contains(d.Err.Error(), "unresolved merge conflict: both sides changed title, body"))
	}
	if !named {
		t.Errorf("no diagnostic names the conflict entry: %v", v.Diagnostics())
	}
}

func TestUpdateRefusesAFileWithConflictMarkers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"project/money.md": committedMoney})
	v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T00:00:00Z").Now})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"project/money.md": markerFiles["project/money.md"]})
	imp := 9
	_, err = v.Update(t.Context(), "01JDX3Q8W7AAAAAAAAAAAAAAAA", 0, Patch{Importance: &imp}, Author{})
	if !errors.Is(err, ErrConflictMarkers) || !errors.Is(err, ErrMalformedFile) {
		t.Fatalf("Update = %v, want ErrMalformedFile wrapping ErrConflictMarkers", err)
	}
}

// TestWritesRefuseConflictMarkers: a memory written with a marker line
// would not load, so no write makes one.
func TestWritesRefuseConflictMarkers(t *testing.T) {
	t.Parallel()
	c := &recordingCommitter{}
	v, err := Open(t.Context(), t.TempDir(), Options{Now: newClock("2026-11-30T00:00:00Z").Now, Committer: c})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Create(t.Context(), NewMemory{Title: "Resolving merges", Content: "Git writes:\n\n<<<<<<< HEAD\nours\n"}, Author{})
	if !errors.Is(err, ErrConflictMarkers) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("Create = %v, want ErrInvalid wrapping ErrConflictMarkers", err)
	}
	res, err := v.Create(t.Context(), NewMemory{Title: "Resolving merges", Content: "Git writes:\n\n    <<<<<<< HEAD\n"}, Author{})
	if err != nil {
		t.Fatalf("indented marker refused: %v", err)
	}
	content := "now:\n>>>>>>> topic\n"
	if _, err := v.Update(t.Context(), res.Memory.ID, 0, Patch{Content: &content}, Author{}); !errors.Is(err, ErrConflictMarkers) {
		t.Errorf("Update = %v, want ErrConflictMarkers", err)
	}
	if len(c.commits) != 1 {
		t.Errorf("%d commits, want the one clean create", len(c.commits))
	}
}

// TestWritesSettleTheConflictRecord: a write that sets a field the record
// lists decides it, and its entry goes (the record with it, when it was
// the last); ResolveConflict removes the whole record; a write of other
// fields leaves it.
func TestWritesSettleTheConflictRecord(t *testing.T) {
	t.Parallel()
	const id = "01JDX3Q8W7AAAAAAAAAAAAAAAA"
	title, body, tags, imp := "Money is int64 cents (ledger)", "Never float64 nor float32.", []string{"money"}, 9
	tests := []struct {
		name  string
		patch Patch
		want  []string // Conflicted after the write
		their map[string]string
	}{
		{"title settles the title", Patch{Title: &title}, []string{"body"}, map[string]string{"body": "x\n"}},
		{"content settles the body", Patch{Content: &body}, []string{"title"}, map[string]string{"title": "金额用分"}},
		{"title and content settle both", Patch{Title: &title, Content: &body}, nil, nil},
		{"resolve removes the record", Patch{ResolveConflict: true}, nil, nil},
		{"resolve with a change", Patch{Tags: &tags, ResolveConflict: true}, nil, nil},
		{"another field leaves it", Patch{Importance: &imp}, []string{"title", "body"}, map[string]string{"title": "金额用分", "body": "x\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"project/money.md": "---\nid: " + id + "\ntitle: Money is int64 cents\nversion: 2\n" +
				"conflict: {fields: 'title, body', theirs_title: 金额用分, theirs_body: \"x\\n\"}\n---\nNever float64.\n"})
			v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T00:00:00Z").Now})
			if err != nil {
				t.Fatal(err)
			}
			// The write normalises what its fields point to: each
			// parallel subtest writes its own copies.
			patch := tt.patch
			if patch.Title != nil {
				c := *patch.Title
				patch.Title = &c
			}
			if patch.Content != nil {
				c := *patch.Content
				patch.Content = &c
			}
			if patch.Tags != nil {
				c := slices.Clone(*patch.Tags)
				patch.Tags = &c
			}
			res, err := v.Update(t.Context(), id, 0, patch, Author{Reason: "settled with Bob"})
			if err != nil {
				t.Fatal(err)
			}
			if m := res.Memory; !slices.Equal(m.Conflicted, tt.want) || !cmp.Equal(m.ConflictTheirs, tt.their) || m.Version != 3 {
				t.Errorf("after the write: conflicted %v theirs %v version %d; want %v %v 3", m.Conflicted, m.ConflictTheirs, m.Version, tt.want, tt.their)
			}
			v2, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T00:00:00Z").Now})
			if err != nil {
				t.Fatal(err)
			}
			m, err := v2.Get(id)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(m.Conflicted, tt.want) {
				t.Errorf("read back: conflicted %v, want %v", m.Conflicted, tt.want)
			}
		})
	}
	t.Run("resolve without a record changes nothing", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"project/money.md": committedMoney})
		v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T00:00:00Z").Now})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Update(t.Context(), id, 0, Patch{ResolveConflict: true}, Author{}); !errors.Is(err, ErrUnchanged) {
			t.Errorf("err = %v, want ErrUnchanged", err)
		}
	})
}
