package vault

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestConfirmSetsVerifiedAtInOneCommit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	orig := "---\nid: keep\ntitle: Retry policy\nrefs:\n  - internal/retry.go#Backoff\n  - docs/\nversion: 4\nupdated_at: 2026-01-01T00:00:00Z\n---\nRetry three times.\n"
	writeFiles(t, dir, map[string]string{"project/retry.md": orig})
	v, c := openRecorded(t, dir)
	m, err := v.Get("keep")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"internal/retry.go#Backoff", "docs/"}; !slices.Equal(m.Refs, want) {
		t.Fatalf("Refs = %q, want %q", m.Refs, want)
	}
	res, err := v.Confirm(t.Context(), "keep", Author{Reason: "checked the backoff code"})
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	if !res.Memory.VerifiedAt.Equal(want) || res.Memory.Version != 4 || !res.Memory.UpdatedAt.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("after confirm: verified_at=%v version=%d updated_at=%v; want %v, 4, unchanged", res.Memory.VerifiedAt, res.Memory.Version, res.Memory.UpdatedAt, want)
	}
	if len(c.commits) != 1 || !strings.Contains(c.commits[0].message, "confirm") || !strings.Contains(c.commits[0].message, "checked the backoff code") {
		t.Fatalf("commits = %+v, want one confirm commit with the reason", c.commits)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "project/retry.md"))
	if got := string(data); !strings.Contains(got, "verified_at: 2026-11-30T10:00:00Z\n") || !strings.Contains(got, "refs:\n  - internal/retry.go#Backoff\n  - docs/\n") {
		t.Fatalf("file after confirm:\n%s", got)
	}
}

func TestCreateAndUpdateWriteRefs(t *testing.T) {
	t.Parallel()
	v, _ := openRecorded(t, t.TempDir())
	res, err := v.Create(t.Context(), NewMemory{Title: "Cache layout", Content: "See cache.go", Refs: []string{"cache.go"}}, Author{Reason: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Memory.Refs, []string{"cache.go"}) {
		t.Fatalf("created Refs = %q", res.Memory.Refs)
	}
	refs := []string{"cache.go", "store/"}
	res, err = v.Update(t.Context(), res.Memory.ID, 0, Patch{Refs: &refs}, Author{Reason: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Memory.Refs, refs) {
		t.Fatalf("updated Refs = %q, want %q", res.Memory.Refs, refs)
	}
	none := []string{}
	res, err = v.Update(t.Context(), res.Memory.ID, 0, Patch{Refs: &none}, Author{Reason: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Memory.Refs) != 0 {
		t.Fatalf("cleared Refs = %q", res.Memory.Refs)
	}
}
