package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// liveWord is a made-up word unique to memory i: no vowels and no s, so
// the analyser keeps it whole and no two share a stem.
func liveWord(i int) string {
	const letters = "bcdfghjklmnpqrtvwxz"
	n := len(letters)
	return "v" + string(letters[i/(n*n)%n]) + string(letters[i/n%n]) + string(letters[i%n])
}

// liveCall is a tool call safe to make from any goroutine: failures come
// back as errors, not t.Fatal.
func liveCall(c *client.Client, name string, args map[string]any, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		return fmt.Errorf("%s(%v): %s", name, args, resultText(res))
	}
	if out == nil {
		return nil
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// liveDrainStderr copies the server's standard error into a buffer.
// startLoggedServe starts the real `memvault serve` in root and returns
// the session and its log, printed when the test fails.
func startLoggedServe(t *testing.T, root string) (*mcpSession, *lockedBuffer) {
	t.Helper()
	s := &mcpSession{t: t, bin: buildMemvault(t), root: root}
	s.connect()
	log := liveDrainStderr(t, s.c)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	if err := s.c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s, log
}

func liveDrainStderr(t *testing.T, c *client.Client) *lockedBuffer {
	t.Helper()
	var buf lockedBuffer
	r, ok := client.GetStderr(c)
	if !ok {
		t.Fatal("no stderr on the stdio client")
	}
	go io.Copy(&buf, r)
	return &buf
}

// liveRecallFinds reports whether recall in s returns id for query.
func liveRecallFinds(s *mcpSession, query, id string) bool {
	var got view.Recall
	s.ok("recall", map[string]any{"query": query, "limit": 5}, &got)
	return slices.ContainsFunc(got.Results, func(r view.RecallResult) bool { return r.ID == id })
}

func liveGitOut(t *testing.T, root string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// liveAwait waits until cond holds, checking it again after each
// resources/list_changed the server sends: files changed on disk reach a
// server through its watcher, which announces what it applied. The wait
// for each notification is bounded (notifications.waitFor).
func liveAwait(t *testing.T, n *notifications, what string, cond func() bool) {
	t.Helper()
	for {
		n.reset() // before cond: a notification sent after it is waited for
		if cond() {
			return
		}
		n.waitFor(t, "list_changed on the way to "+what, func(x mcp.JSONRPCNotification) bool {
			return x.Method == mcp.MethodNotificationResourcesListChanged
		})
	}
}

// liveAwaitLog waits until cond holds, checking it again each time the
// server's log says line after mark: a change of a memory that is already
// listed sends no list_changed, but the watcher logs every batch it
// applies.
func liveAwaitLog(t *testing.T, log *lockedBuffer, mark int, line string, cond func() bool) {
	t.Helper()
	for !cond() {
		mark = log.waitFor(t, mark, line)
	}
}

// TestLiveTwoServersOneVault runs two `memvault serve` processes on one
// repository, as Cursor and Claude Code would, and writes through both
// at once: nothing is lost, every memory shows up in both, history stays
// linear and clean, and a stale update is refused across processes.
func TestLiveTwoServersOneVault(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs two servers")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	bin := buildMemvault(t)
	root := newRepo(t)
	a := &mcpSession{t: t, bin: bin, root: root}
	a.connect()
	b := &mcpSession{t: t, bin: bin, root: root}
	b.connect()
	servers := []*mcpSession{a, b}
	logs := make([]*lockedBuffer, len(servers))
	notes := make([]*notifications, len(servers))
	for k, s := range servers {
		// Read the server's log as it comes: an unread pipe fills up and
		// blocks the server at its next log line.
		logs[k] = liveDrainStderr(t, s.c)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("server %d log:\n%s", k, logs[k].String())
			}
		})
		// NewStdioMCPClient starts only the transport; Client.Start
		// installs the notification dispatch.
		if err := s.c.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		notes[k] = newNotifications()
		s.c.OnNotification(notes[k].add)
	}
	commitsBefore := len(a.commits())

	const n = 200
	ids := make([]string, n)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for k, s := range servers {
		wg.Go(func() {
			for i := k; i < n; i += 2 {
				var w view.Write
				err := liveCall(s.c, "remember", map[string]any{
					"title":   "Rule " + liveWord(i),
					"content": fmt.Sprintf("Remember %s: written through server %d as write %d.", liveWord(i), k, i),
					"reason":  "two-server test",
				}, &w)
				if err == nil && (w.ID == "" || w.Commit == "") {
					err = fmt.Errorf("remember %d: got %+v, want a new memory with a commit", i, w)
				}
				if err != nil {
					errs <- err
					return
				}
				ids[i] = w.ID
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	writes := time.Since(start)

	// Each call brings its server up to date with the other's commits
	// (HEAD moved): every memory is in both recalls at once.
	start = time.Now()
	for i, id := range ids {
		for k, s := range servers {
			if !liveRecallFinds(s, liveWord(i), id) {
				t.Errorf("memory %d (%s) is not in server %d's recall", i, id, k)
			}
		}
	}
	checked := time.Since(start)
	t.Logf("%d interleaved writes through 2 servers: %s (%.1f ms/write); %d recalls checking them %s",
		n, writes.Round(time.Millisecond), float64(writes.Milliseconds())/n, 2*n, checked.Round(time.Millisecond))

	t.Run("history", func(t *testing.T) {
		if got := len(a.commits()) - commitsBefore; got != n {
			t.Errorf("new commits: got %d, want %d", got, n)
		}
		if merges := liveGitOut(t, root, "rev-list", "--min-parents=2", "--count", "HEAD"); merges != "0" {
			t.Errorf("merge commits: %s, want a linear history", merges)
		}
		total, _ := strconv.Atoi(liveGitOut(t, root, "rev-list", "--count", "HEAD"))
		firstParent, _ := strconv.Atoi(liveGitOut(t, root, "rev-list", "--first-parent", "--count", "HEAD"))
		if total != firstParent {
			t.Errorf("rev-list: %d commits, %d on the first-parent chain; want one chain", total, firstParent)
		}
		liveGitOut(t, root, "fsck", "--strict")
		if status := liveGitOut(t, root, "status", "--porcelain"); status != "" {
			t.Errorf("git status --porcelain:\n%s\nwant clean", status)
		}
	})

	t.Run("stale update refused across processes", func(t *testing.T) {
		id := ids[0] // written through a
		var m view.Memory
		b.ok("get_memory", map[string]any{"id": id}, &m)
		if m.Version != 1 {
			t.Fatalf("b sees version %d, want 1", m.Version)
		}
		var u view.Write
		a.ok("update_memory", map[string]any{"id": id, "expected_version": 1, "content": "Updated through a.", "reason": "newer"}, &u)
		if u.Version != 2 {
			t.Fatalf("a's update: version %d, want 2", u.Version)
		}
		commits := len(a.commits())
		msg := b.fails("update_memory", map[string]any{"id": id, "expected_version": 1, "content": "Stale write through b.", "reason": "stale"})
		if !strings.Contains(msg, "version 2") {
			t.Errorf("refusal %q does not name the current version 2", msg)
		}
		if got := len(a.commits()); got != commits {
			t.Errorf("commits after the refused update: %d, want %d", got, commits)
		}
		// b's refused call read a's commit: b has version 2.
		b.ok("get_memory", map[string]any{"id": id}, &m)
		if m.Version != 2 || !strings.Contains(m.Body, "Updated through a.") {
			t.Errorf("b sees version %d %q, want a's version 2", m.Version, m.Body)
		}
	})

	t.Run("uncommitted hand edit reaches both", func(t *testing.T) {
		// HEAD does not move: only the watchers can tell the servers, and
		// they tell the clients with no tool call in between.
		for _, n := range notes {
			n.reset()
		}
		p := filepath.Join(root, ".memory", "project", "hand-edit.md")
		if err := os.WriteFile(p, []byte("---\nid: hand-edit-1\ntitle: Hand edit\n---\n\nThe vqqq rule was written by hand.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for k, s := range servers {
			liveAwait(t, notes[k], fmt.Sprintf("server %d seeing the hand edit", k), func() bool { return liveRecallFinds(s, "vqqq", "hand-edit-1") })
		}
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		for k, s := range servers {
			liveAwait(t, notes[k], fmt.Sprintf("server %d dropping the removed file", k), func() bool { return !liveRecallFinds(s, "vqqq", "hand-edit-1") })
		}
	})

	t.Run("broken hand edit stays searchable and is reported until fixed", func(t *testing.T) {
		p := filepath.Join(root, ".memory", "project", "broken.md")
		good := "---\nid: broken-1\ntitle: Feature flags\n---\n\nThe zxqv flags live in config/flags.yaml.\n"
		if err := os.WriteFile(p, []byte(good), 0o644); err != nil {
			t.Fatal(err)
		}
		for k, s := range servers {
			liveAwait(t, notes[k], fmt.Sprintf("server %d seeing the file", k), func() bool { return liveRecallFinds(s, "zxqv", "broken-1") })
		}
		// A memory that changes is no list change: the servers' logs
		// say when they applied it.
		marks := []int{logs[0].Len(), logs[1].Len()}
		if err := os.WriteFile(p, []byte("---\nid: broken-1\ntitle: [Feature flags\n---\n\nThe zxqv flags moved.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		type stats struct {
			Stale    int      `json:"stale"`
			Problems []string `json:"problems"`
		}
		reported := func(s *mcpSession) bool {
			var st stats
			s.ok("memory_stats", map[string]any{}, &st)
			return st.Stale == 1 && len(st.Problems) == 1 && strings.Contains(st.Problems[0], "project/broken.md:3")
		}
		for k, s := range servers {
			liveAwaitLog(t, logs[k], marks[k], "applied file changes", func() bool { return reported(s) })
			var m view.Memory
			s.ok("get_memory", map[string]any{"id": "broken-1"}, &m)
			if !strings.Contains(m.Body, "config/flags.yaml") {
				t.Errorf("server %d: body %q, want the last good version", k, m.Body)
			}
			if !liveRecallFinds(s, "zxqv", "broken-1") {
				t.Errorf("server %d: the last good version is not searchable", k)
			}
		}
		marks = []int{logs[0].Len(), logs[1].Len()}
		if err := os.WriteFile(p, []byte(strings.Replace(good, "config/flags.yaml", "config/flags.toml", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		for k, s := range servers {
			liveAwaitLog(t, logs[k], marks[k], "applied file changes", func() bool {
				var st stats
				s.ok("memory_stats", map[string]any{}, &st)
				return st.Stale == 0 && len(st.Problems) == 0
			})
			var m view.Memory
			s.ok("get_memory", map[string]any{"id": "broken-1"}, &m)
			if !strings.Contains(m.Body, "flags.toml") {
				t.Errorf("server %d: body %q after the fix, want the fixed text", k, m.Body)
			}
		}
	})
}
