package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two branches each raised the memory to version 2 with different
// contents; after a textually clean merge the file holds one of them.
const (
	etagID    = "01JDX3Q8W7AAAAAAAAAAAAAAAA"
	etagOurs  = "---\nid: " + etagID + "\ntitle: Money is int64 cents\nversion: 2\ncreated_at: 2026-11-01T00:00:00Z\nupdated_at: 2026-11-02T00:00:00Z\n---\nNever float64.\n"
	etagTheir = "---\nid: " + etagID + "\ntitle: Money is int64 cents\nversion: 2\ncreated_at: 2026-11-01T00:00:00Z\nupdated_at: 2026-11-02T00:00:00Z\n---\nNever float64; round half to even.\n"
)

func TestUpdateStaleETagIsAConflict(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"project/money.md": etagOurs})
	v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T00:00:00Z").Now})
	if err != nil {
		t.Fatal(err)
	}
	seen, err := v.Get(etagID)
	if err != nil {
		t.Fatal(err)
	}
	oursTag := seen.ETag()
	if !IsETag(oursTag) || !strings.HasPrefix(oursTag, "2-") {
		t.Fatalf("ETag = %q, want 2-<12 hex>", oursTag)
	}

	// The pull brings the other side's content, at the same version.
	writeFiles(t, dir, map[string]string{"project/money.md": etagTheir})
	if err := v.Refresh(t.Context(), []string{"project/money.md"}); err != nil {
		t.Fatal(err)
	}
	now, err := v.Get(etagID)
	if err != nil {
		t.Fatal(err)
	}
	theirTag := now.ETag()
	if now.Version != seen.Version || theirTag == oursTag {
		t.Fatalf("versions %d/%d, etags %q/%q: want one version, two etags", seen.Version, now.Version, oursTag, theirTag)
	}

	content := "Never float64; use int64 cents."
	_, err = v.Update(t.Context(), etagID, 0, Patch{Content: &content, ExpectedETag: oursTag}, Author{Reason: "stale"})
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), theirTag) {
		t.Fatalf("update with the other content's etag: err = %v, want ErrConflict naming %s", err, theirTag)
	}
	var stale *StaleError
	if !errors.As(err, &stale) || !stale.ByETag || stale.ETag != theirTag || stale.Version != 2 || stale.Expected != oursTag {
		t.Fatalf("update with the other content's etag: err = %#v, want a StaleError by etag at %s", err, theirTag)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "project/money.md")); string(b) != etagTheir {
		t.Fatalf("a refused update changed the file:\n%s", b)
	}

	res, err := v.Update(t.Context(), etagID, 0, Patch{Content: &content, ExpectedETag: theirTag}, Author{Reason: "fresh"})
	if err != nil {
		t.Fatalf("update with the current etag: %v", err)
	}
	// The etag a write reports is the one the next read gives, in this
	// process and in another (a vault opened afresh).
	again, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := again.Get(etagID)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := loaded.ETag(), res.Memory.ETag(); got != want || !strings.HasPrefix(got, "3-") {
		t.Fatalf("etag after the write: loaded %q, reported %q; want equal, at version 3", got, want)
	}
}

func TestUpdateVersionOnlyIgnoresContent(t *testing.T) {
	t.Parallel()
	// A version alone keeps its old meaning: the same number passes
	// whatever the content, which is why ExpectedETag exists.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"project/money.md": etagTheir})
	v, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	content := "Never float64; use int64 cents."
	if _, err := v.Update(t.Context(), etagID, 2, Patch{Content: &content}, Author{Reason: "version only"}); err != nil {
		t.Fatalf("update at the right version: %v", err)
	}
	_, err = v.Update(t.Context(), etagID, 2, Patch{Content: &content}, Author{Reason: "stale"})
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "version 3 (etag 3-") {
		t.Fatalf("stale version: err = %v, want ErrConflict naming version 3 and its etag", err)
	}
}
