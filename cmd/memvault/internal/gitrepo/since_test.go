package gitrepo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault/since"
)

func TestClientFile(t *testing.T) {
	t.Parallel()
	safe := regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)
	tests := []struct {
		name, want string // want "" checks only that it is safe and distinct
	}{
		{"claude-code", "claude-code"},
		{"cli", "cli"},
		{"", "mcp"},
		{"Cursor 1.2", ""},
		{"../../etc/passwd", ""},
		{".hidden", ""},
		{"中文客户端", ""},
		{strings.Repeat("x", 200), ""},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		got := ClientFile(tt.name)
		if tt.want != "" && got != tt.want {
			t.Errorf("ClientFile(%q) = %q, want %q", tt.name, got, tt.want)
		}
		if !safe.MatchString(got) || len(got) > 64 {
			t.Errorf("ClientFile(%q) = %q: not a safe file-name component", tt.name, got)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("ClientFile(%q) = ClientFile(%q) = %q", tt.name, other, got)
		}
		seen[got] = tt.name
	}
	if ClientFile("a b") == ClientFile("a_b") {
		t.Error(`"a b" and "a_b" share a file`)
	}
}

// TestCatchUpAfterHistoryRewrite records a point, then rewrites the
// history under it (reset, new commits, gc): the point's commit is gone,
// and the catch-up starts from the commit of that time instead of
// failing; a second client's point is its own.
func TestCatchUpAfterHistoryRewrite(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	n := 0
	git := func(args ...string) string {
		t.Helper()
		n++
		date := fmt.Sprintf("2026-11-20T10:%02d:00Z", n)
		cmd := exec.CommandContext(t.Context(), "git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada",
			"GIT_COMMITTER_EMAIL=ada@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	memory := func(id, title string) {
		t.Helper()
		p := filepath.Join(root, ".memory", "project", id+".md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		data := fmt.Sprintf("---\nid: %s\ntitle: %s\nlayer: project\ncreated_at: 2026-11-20T10:00:00Z\nupdated_at: 2026-11-20T10:00:00Z\nversion: 1\n---\n\n%s.\n", id, title, title)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "-A")
		git("commit", "-q", "-m", "memory(project): add \""+title+"\"\n\nbecause "+title+"\n\nMemory-Id: "+id+"\nMemory-Client: test")
	}
	git("init", "-q", "-b", "main")
	memory("01M720TFN1ARKVF1KVFEJJ74A0", "First")
	memory("01M720TFN1ARKVF1KVFEJJ74B0", "Second")
	g, err := Open(t.Context(), filepath.Join(root, ".memory"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { g.Close() }()
	now := time.Date(2026, 11, 20, 10, 4, 30, 0, time.UTC) // between the second commit and what follows
	ask := func(client string) since.Report {
		t.Helper()
		rep, err := g.CatchUp(t.Context(), CatchUp{Client: client, Now: now, Advance: true})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	first := ask("a")
	if !first.First {
		t.Fatalf("first question of a: %+v, want First", first)
	}
	// Rewrite: drop the second commit, add another, and collect the old
	// one's objects.
	git("reset", "-q", "--hard", "HEAD~1")
	memory("01M720TFN1ARKVF1KVFEJJ74C0", "Third")
	git("reflog", "expire", "--expire=now", "--all")
	git("gc", "-q", "--prune=now")
	// A new process: nothing of the old commit is cached.
	g.Close()
	if g, err = Open(t.Context(), filepath.Join(root, ".memory")); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Store().ReadCommit(t.Context(), first.Head); err == nil {
		t.Fatal("the rewritten commit is still in the repository")
	}
	rep := ask("a")
	var got []string
	for _, c := range rep.Changes {
		got = append(got, c.Kind+" "+c.Title)
	}
	if strings.Join(got, ", ") != "added Third" || rep.First {
		t.Errorf("after the rewrite: %v (first %v), want [added Third]", got, rep.First)
	}
	if rep := ask("b"); !rep.First {
		t.Errorf("client b shares a's point: %+v", rep)
	}
}
