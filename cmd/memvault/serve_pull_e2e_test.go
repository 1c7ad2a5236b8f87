package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// TestServePullInterval: a team server in clone A with --pull-interval and
// --push, on a bare origin shared with clone B. A memory B pushes is
// served by A's server after its next pull; a memory remembered through
// A's server reaches origin with its next push. The test waits on the
// server's log lines ("synced ... merged=true", "pushed=true"), woken by
// each write to it, never on a fixed sleep.
func TestServePullInterval(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary, runs git and a server")
	}
	bin := buildMemvault(t)
	origin, a, b := sharedTeam(t)
	b.memvault("doctor", "--fix")

	var log lockedBuffer
	s, mark := startTeamServer(t, bin, a, &log)

	// B pushes a memory; A's server pulls it and serves it.
	id := b.add("部署先走 staging 集群", "Every deploy goes through the staging cluster first.\n", "--reason", "ops rule")
	b.git.git("push", "-q", "origin", "main")
	mark = log.waitFor(t, mark, "merged=true")
	var got view.Memory
	s.ok("get_memory", map[string]any{"id": id}, &got)
	if got.Title != "部署先走 staging 集群" || !strings.Contains(got.Body, "staging cluster") {
		t.Errorf("A's server serves %q %q, want B's memory", got.Title, got.Body)
	}
	var rec view.Recall
	s.ok("recall", map[string]any{"query": "staging deploy"}, &rec)
	if len(rec.Results) == 0 || rec.Results[0].ID != id {
		t.Errorf("recall through A's server: %+v, want B's memory first", rec.Results)
	}

	// A's server remembers; its next sync pushes the commit to origin.
	var w view.Write
	s.ok("remember", map[string]any{"title": "Money is int64 cents", "content": "Never float64.", "reason": "ledger"}, &w)
	mark = log.waitFor(t, mark, "pushed=true")
	mustBeInOrigin := func(commit string) {
		t.Helper()
		if !inOrigin(t, origin, commit) {
			t.Fatalf("origin's main lacks the server's commit %s", commit)
		}
	}
	mustBeInOrigin(w.Commit)
	b.git.git("pull", "-q", "--no-rebase", "origin", "main")
	if m := b.get(w.ID); m.Title != "Money is int64 cents" {
		t.Errorf("B after its pull: %q", m.Title)
	}

	// Both sides move: B pushes, then A's server writes before or after
	// its next pull. The push that brings A's memory to origin comes
	// after a merge with B's (else origin refuses it), and both are
	// served.
	id2 := b.add("Refunds are manual", "Support refunds by hand.\n", "--reason", "no refund API")
	b.git.git("push", "-q", "origin", "main")
	s.ok("remember", map[string]any{"title": "Feature flags live in flags.yaml", "content": "Not in env vars.", "reason": "config"}, &w)
	log.waitFor(t, mark, "pushed=true")
	mustBeInOrigin(w.Commit)
	s.ok("get_memory", map[string]any{"id": id2}, &got)
	if got.Title != "Refunds are manual" {
		t.Errorf("A's server serves %q, want B's second memory", got.Title)
	}
	if text := log.String(); strings.Contains(text, "sync failed") {
		t.Errorf("a sync failed:\n%s", text)
	}
}

// startTeamServer starts a team server in clone a (HTTP, a token, a
// pull interval of 100ms, --push), its log in log, and connects a client;
// it returns the session and the log's mark after the server's start.
func startTeamServer(t *testing.T, bin string, a *teamClone, log *lockedBuffer) (*mcpSession, int) {
	t.Helper()
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("ada-0123456789abcdef Ada Lovelace ada@example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := exec.Command(bin, "serve", "--vault", a.cli.dir, "--no-user-vault", "--http", "127.0.0.1:0",
		"--tokens", tokens, "--pull-interval", "100ms", "--push")
	srv.Dir, srv.Stderr = a.git.root, log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	mark := log.waitFor(t, 0, "memvault: serving MCP at ")
	url, _, _ := strings.Cut(log.String()[mark:], "\n")
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer ada-0123456789abcdef"}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	initClient(t, c, "", "team-client", false)
	return &mcpSession{t: t, c: c}, mark
}

// TestServePullFlagsRefused: --push without a pull interval and a
// negative interval are refused before anything is served.
func TestServePullFlagsRefused(t *testing.T) {
	r := &cliRepo{t: t, root: t.TempDir()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--push"}, "--pull-interval 0s, --push true: the interval is not negative, and --push needs one above 0"},
		{[]string{"serve", "--pull-interval", "-1s"}, "--pull-interval -1s, --push false"},
	} {
		code, _ := r.run("", tc.args...)
		if code != 1 || !strings.Contains(r.lastStderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tc.args, code, r.lastStderr, tc.want)
		}
	}
}
