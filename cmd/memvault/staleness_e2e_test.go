package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

const staleCacheGo = "package cache\n\nfunc Get(k string) string {\n\treturn k\n}\n\nfunc Put(k string) {\n\t_ = k\n}\n"

// TestStalenessAtBothDoors drives memories with refs through a real
// repository's history, one step at a time, and reads them through the
// CLI (show --json, recall --json, confirm) on one copy and through
// `memvault serve` (get_memory, recall, confirm_memory) on an identical
// copy: both must say the same, and what the step calls for: an unrelated
// change leaves them fresh, an edit makes them possibly stale naming the
// commit (for a #Symbol ref only an edit of that symbol), an uncommitted
// edit says so, confirm clears it in one commit, a rename names the new
// path and a delete says the file is gone.
func TestStalenessAtBothDoors(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	// Every step is a minute after the last; the git commits are dated by
	// the same clock as the writes, as in real life.
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	clock := &testClock{now: t0}
	cli := newParitySide(t, "cli")
	srv := newParitySide(t, "mcp")
	sides := []*paritySide{cli, srv}
	step := 0
	git := func(root string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "git", args...)
		cmd.Dir = root
		date := clock.Now().Format(time.RFC3339)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada",
			"GIT_COMMITTER_EMAIL=ada@example.com", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// each applies a change to both projects; commit "" leaves it uncommitted.
	each := func(commit string, files map[string]string, gitArgs ...string) {
		t.Helper()
		step++
		clock.mu.Lock()
		clock.now = t0.Add(time.Duration(step) * time.Minute)
		clock.mu.Unlock()
		for _, s := range sides {
			for rel, data := range files {
				p := filepath.Join(s.projectRoot, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if len(gitArgs) > 0 {
				git(s.projectRoot, gitArgs...)
			}
			if commit != "" {
				git(s.projectRoot, "add", "-A")
				git(s.projectRoot, "commit", "-q", "-m", commit)
			}
		}
	}
	each("init", map[string]string{"internal/cache.go": staleCacheGo, "README.md": "hello\n", "docs/old.md": "old\n"})
	each("memory: add", map[string]string{
		".memory/project/cache.md": "---\ncreated_at: 2026-11-01T00:02:00Z\nid: 01KCACHE0000000000000000AA\ntitle: Cache keys are plain strings\nimportance: 9\nrefs:\n  - internal/cache.go\n---\nThe cache keys are plain strings.\n",
		".memory/project/get.md":   "---\ncreated_at: 2026-11-01T00:02:00Z\nid: 01KCACHE0000000000000000BB\ntitle: Cache Get returns the key\nrefs: [internal/cache.go#Get]\n---\nGet returns its key.\n",
		".memory/project/docs.md":  "---\ncreated_at: 2026-11-01T00:02:00Z\nid: 01KCACHE0000000000000000CC\ntitle: Old docs explain the cache\nrefs: [docs/old.md]\n---\nSee the old docs.\n",
	})
	const file, sym, docs = "01KCACHE0000000000000000AA", "01KCACHE0000000000000000BB", "01KCACHE0000000000000000CC"
	srv.client = serveParity(t, clock.Now, srv)

	hashes := regexp.MustCompile(`\b[0-9a-f]{7}\b`)
	read := func(id string) (fromCLI, fromMCP *view.Staleness) {
		t.Helper()
		out, errText := cli.runCLI(t, clock.Now(), parityOp{cli: []string{"show", id}})
		if errText != "" {
			t.Fatalf("show %s: %s", id, errText)
		}
		var a, b view.Memory
		if err := json.Unmarshal(out, &a); err != nil {
			t.Fatal(err)
		}
		out, errText = srv.callMCP(t, parityOp{name: "get_memory", tool: "get_memory", args: map[string]any{"id": id}})
		if errText != "" {
			t.Fatalf("get_memory %s: %s", id, errText)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatal(err)
		}
		return a.Staleness, b.Staleness
	}
	type want struct {
		id, state, reason string
	}
	check := func(name string, ws ...want) {
		t.Helper()
		for _, w := range ws {
			a, b := read(w.id)
			if a == nil || b == nil {
				t.Errorf("%s: %s: staleness missing (cli %v, mcp %v)", name, w.id, a, b)
				continue
			}
			if a.State != w.state || !strings.Contains(a.Reason, w.reason) {
				t.Errorf("%s: %s = %+v, want %s with %q", name, w.id, *a, w.state, w.reason)
			}
			if a.State != b.State || hashes.ReplaceAllString(a.Reason, "H") != hashes.ReplaceAllString(b.Reason, "H") {
				t.Errorf("%s: %s: cli %+v, mcp %+v", name, w.id, *a, *b)
			}
		}
	}
	check("written", want{file, "fresh", "none of its 1 ref changed"}, want{sym, "fresh", ""}, want{docs, "fresh", ""})
	each("readme", map[string]string{"README.md": "hello again\n"})
	check("unrelated change", want{file, "fresh", ""}, want{sym, "fresh", ""})
	each("tune put", map[string]string{"internal/cache.go": strings.Replace(staleCacheGo, "_ = k", "_ = k + k", 1)})
	check("other symbol edited", want{file, "possibly_stale", `internal/cache.go changed in 1 commit since the memory was last written or confirmed, latest`},
		want{file, "possibly_stale", `"tune put"`}, want{sym, "fresh", ""})
	tuned := strings.Replace(strings.Replace(staleCacheGo, "_ = k", "_ = k + k", 1), "return k", `return k + "!"`, 1)
	each("", map[string]string{"internal/cache.go": tuned})
	// An MCP recall right after the edit, whose barrier is begun before
	// its search and waited for after it, sees the edit.
	if out, errText := srv.callMCP(t, parityOp{name: "recall", tool: "recall", args: map[string]any{"query": "cache get"}}); errText != "" {
		t.Fatalf("recall after the uncommitted edit: %s", errText)
	} else {
		var r view.Recall
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, res := range r.Results {
			if res.ID == sym {
				found = true
				if st := res.Staleness; st == nil || st.State != "possibly_stale" || !strings.Contains(st.Reason, "uncommitted changes") {
					t.Errorf("recall right after an uncommitted edit of the symbol: %s staleness %+v, want possibly_stale, uncommitted", sym, st)
				}
			}
		}
		if !found {
			t.Errorf("recall after the uncommitted edit did not return %s: %s", sym, out)
		}
	}
	check("uncommitted edit", want{file, "possibly_stale", `internal/cache.go changed in 1 commit since the memory was last written or confirmed, latest`}, want{file, "possibly_stale", `"tune put", and has uncommitted changes in the working tree`},
		want{sym, "possibly_stale", "internal/cache.go#Get has uncommitted changes in the working tree"})
	each("tune get", nil)
	check("symbol edited", want{sym, "possibly_stale", `internal/cache.go#Get changed in 1 commit`}, want{sym, "possibly_stale", `"tune get"`},
		want{file, "possibly_stale", "2 commits"})

	step++
	clock.mu.Lock()
	clock.now = t0.Add(time.Duration(step) * time.Minute)
	clock.mu.Unlock()
	before := len(gitLog(t, cli.projectRoot, "--format=%H"))
	var stdout, stderr bytes.Buffer
	m := NewMain(strings.NewReader(""), &stdout, &stderr)
	m.Now = clock.Now
	if code := m.Run(context.Background(), []string{"--vault", cli.projectVault(), "confirm", file, "--reason", "keys are still strings"}); code != 0 {
		t.Fatalf("confirm: exit %d: %s", code, stderr.String())
	}
	if got := stdout.String(); !strings.Contains(got, "confirmed "+file) || !strings.Contains(got, "staleness:  fresh") {
		t.Errorf("confirm printed %q", got)
	}
	out, errText := srv.callMCP(t, parityOp{name: "confirm_memory", tool: "confirm_memory", args: map[string]any{"id": file, "reason": "keys are still strings"}})
	if errText != "" {
		t.Fatalf("confirm_memory: %s", errText)
	}
	var c view.Confirm
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatal(err)
	}
	if c.Staleness == nil || c.Staleness.State != "fresh" || c.Commit == "" || c.VerifiedAt != clock.Now().Format(time.RFC3339) {
		t.Errorf("confirm_memory = %+v, want fresh, a commit, verified now", c)
	}
	for _, s := range sides {
		if got := len(gitLog(t, s.projectRoot, "--format=%H")); got != before+1 {
			t.Errorf("%s: confirm made %d commits, want 1", s.name, got-before)
		}
	}
	check("confirmed", want{file, "fresh", ""}, want{sym, "possibly_stale", "tune get"})

	each("move cache", nil, "mv", "internal/cache.go", "internal/cache_store.go")
	check("renamed", want{file, "stale", "internal/cache.go was renamed to internal/cache_store.go in"}, want{file, "stale", `"move cache"`},
		want{sym, "stale", "renamed to internal/cache_store.go"})
	each("drop old docs", nil, "rm", "-q", "docs/old.md")
	check("deleted", want{docs, "stale", `docs/old.md was deleted in`}, want{docs, "stale", `"drop old docs"`})

	// why tells the story with the staleness.
	stdout.Reset()
	stderr.Reset()
	if code := m.Run(context.Background(), []string{"--vault", cli.projectVault(), "why", "cache keys plain strings", "--json"}); code != 0 {
		t.Fatalf("why: exit %d: %s", code, stderr.String())
	}
	var why struct{ Memory view.Memory }
	if err := json.Unmarshal(stdout.Bytes(), &why); err != nil {
		t.Fatal(err)
	}
	if st := why.Memory.Staleness; why.Memory.ID != file || st == nil || st.State != "stale" || !strings.Contains(st.Reason, "renamed to internal/cache_store.go") {
		t.Errorf("why: memory %s staleness %+v, want %s stale, renamed", why.Memory.ID, st, file)
	}

	// memory://context marks the stale rule.
	ctx := &mcpSession{t: t, c: srv.client}
	if got := readResource(t, ctx, "memory://context"); !strings.Contains(got, "Cache keys are plain strings") ||
		!strings.Contains(got, "[stale: internal/cache.go was renamed to internal/cache_store.go") {
		t.Errorf("memory://context does not mark the stale rule:\n%s", got)
	}

	// A new memory gets refs proposed from what it mentions, and added
	// only when accepted.
	content := "`Get` in `internal/cache_store.go` returns the key; see README.md and lib/gone.go."
	wantProposed := []string{"internal/cache_store.go#Get", "README.md"}
	for _, accept := range []bool{false, true} {
		title := fmt.Sprintf("Get returns the key (accept %v)", accept)
		out, errText := cli.runCLI(t, clock.Now(), parityOp{cli: []string{"add", title, "--content", content, fmt.Sprintf("--accept-refs=%v", accept)}})
		out2, errText2 := srv.callMCP(t, parityOp{name: "remember", tool: "remember", args: map[string]any{"title": title, "content": content, "accept_refs": accept}})
		if errText != "" || errText2 != "" {
			t.Fatalf("add: %s; remember: %s", errText, errText2)
		}
		for _, raw := range []json.RawMessage{out, out2} {
			var w view.Write
			if err := json.Unmarshal(raw, &w); err != nil {
				t.Fatal(err)
			}
			gotRefs, gotProposed := w.Refs, w.ProposedRefs
			if accept {
				gotRefs, gotProposed = gotProposed, gotRefs
			}
			if !slices.Equal(gotProposed, wantProposed) || len(gotRefs) != 0 {
				t.Errorf("accept %v: refs %q, proposed %q; want %q on the %s side", accept, w.Refs, w.ProposedRefs, wantProposed, map[bool]string{false: "proposed", true: "refs"}[accept])
			}
		}
	}

	// An update whose text mentions code gets refs proposed too, added
	// only when accepted.
	for _, accept := range []bool{false, true} {
		content := fmt.Sprintf("The cache keys are plain strings; README.md says why (accept %v).", accept)
		out, errText := cli.runCLI(t, clock.Now(), parityOp{cli: []string{"update", "01KCACHE0000000000000000AA", "--content", content,
			"--reason", "reworded", fmt.Sprintf("--accept-refs=%v", accept)}})
		got, errText2 := srv.callMCP(t, parityOp{name: "get_memory", tool: "get_memory", args: map[string]any{"id": "01KCACHE0000000000000000AA"}})
		var cur view.Memory
		if err := json.Unmarshal(got, &cur); errText2 != "" || err != nil {
			t.Fatalf("get_memory: %s %v", errText2, err)
		}
		out2, errText2 := srv.callMCP(t, parityOp{name: "update_memory", tool: "update_memory", args: map[string]any{
			"id": "01KCACHE0000000000000000AA", "expected_version": cur.Version, "content": content, "reason": "reworded", "accept_refs": accept}})
		if errText != "" || errText2 != "" {
			t.Fatalf("update: %s; update_memory: %s", errText, errText2)
		}
		for _, raw := range []json.RawMessage{out, out2} {
			var w view.Write
			if err := json.Unmarshal(raw, &w); err != nil {
				t.Fatal(err)
			}
			wantRefs, wantProposed := []string{"internal/cache.go"}, []string{"README.md"}
			if accept {
				wantRefs, wantProposed = []string{"internal/cache.go", "README.md"}, nil
			}
			if !slices.Equal(w.Refs, wantRefs) || !slices.Equal(w.ProposedRefs, wantProposed) {
				t.Errorf("update, accept %v: refs %q, proposed %q; want %q, %q", accept, w.Refs, w.ProposedRefs, wantRefs, wantProposed)
			}
		}
	}

	// recall carries the staleness at both doors.
	for _, s := range sides {
		var out json.RawMessage
		var errText string
		if s == cli {
			out, errText = s.runCLI(t, clock.Now(), parityOp{cli: []string{"recall", "cache"}})
		} else {
			out, errText = s.callMCP(t, parityOp{name: "recall", tool: "recall", args: map[string]any{"query": "cache"}})
		}
		if errText != "" {
			t.Fatalf("%s recall: %s", s.name, errText)
		}
		var r view.Recall
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, res := range r.Results {
			if res.Staleness != nil && res.Staleness.State == "stale" {
				seen++
			}
		}
		if seen != 3 {
			t.Errorf("%s recall: %d stale results, want 3: %s", s.name, seen, out)
		}
	}
}
