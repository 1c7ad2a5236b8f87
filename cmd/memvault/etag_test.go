package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// TestUpdateExpectedETag: update --expected-version takes the etag that
// show --json and update --json give, and refuses an update prepared
// before a merge left another content at the same version, which the
// version alone lets through.
func TestUpdateExpectedETag(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	id := r.addMemory("Refunds are synchronous", "The admin waits for the provider.")
	r.tick(time.Hour)
	var w view.Write
	if err := json.Unmarshal([]byte(r.ok("update", id, "--importance", "7", "--reason", "r", "--json")), &w); err != nil {
		t.Fatal(err)
	}
	var shown view.Memory
	if err := json.Unmarshal([]byte(r.ok("show", id, "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	if w.Version != 2 || !strings.HasPrefix(w.ETag, "2-") || shown.ETag != w.ETag {
		t.Fatalf("update --json etag %q (version %d), show --json etag %q: want one etag at version 2", w.ETag, w.Version, shown.ETag)
	}

	// The other branch's content arrives at the same version.
	p := filepath.Join(r.dir, filepath.FromSlash(w.Path))
	theirs := strings.Replace(readFile(t, p), "The admin waits for the provider.", "The admin waits; the provider calls back.", 1)
	if err := os.WriteFile(p, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	headBefore, _ := r.head()
	code, _ := r.run("", "update", id, "--content", "Queued.", "--expected-version", w.ETag, "--reason", "stale")
	if code != 1 || !strings.Contains(r.lastStderr, "version conflict") || !strings.Contains(r.lastStderr, "is at etag 2-") {
		t.Fatalf("update with the etag read before the merge: exit %d, stderr %q; want 1 and a conflict naming the current etag", code, r.lastStderr)
	}
	if got := readFile(t, p); got != theirs {
		t.Fatalf("a refused update changed the file:\n%s", got)
	}
	if h, _ := r.head(); h != headBefore {
		t.Fatalf("HEAD moved from %s to %s", headBefore, h)
	}

	for _, bad := range []string{"two", "2-XYZ", "-1"} {
		if code, _ := r.run("", "update", id, "--content", "Queued.", "--expected-version", bad, "--reason", "r"); code != 1 || !strings.Contains(r.lastStderr, "--expected-version: ") {
			t.Errorf("--expected-version %q: exit %d, stderr %q; want 1 naming the flag", bad, code, r.lastStderr)
		}
	}

	if err := json.Unmarshal([]byte(r.ok("show", id, "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Version != 2 || shown.ETag == w.ETag {
		t.Fatalf("show after the merge: version %d etag %q; want version 2 and another etag than %q", shown.Version, shown.ETag, w.ETag)
	}
	r.ok("update", id, "--content", "Queued.", "--expected-version", shown.ETag, "--reason", "fresh")
	if m := r.memory(id); m.Version != 3 || m.Body != "Queued.\n" {
		t.Errorf("after the update with the current etag: version %d, body %q", m.Version, m.Body)
	}
}
