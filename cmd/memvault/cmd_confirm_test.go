package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// confirm --json prints the view the MCP tool confirm_memory answers with,
// after one commit.
func TestConfirmJSON(t *testing.T) {
	t.Parallel()
	root := newRepo(t)
	dir := filepath.Join(root, ".memory")
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		m := NewMain(strings.NewReader(""), &stdout, &stderr)
		m.Now = func() time.Time { return now }
		m.Getenv = func(k string) string {
			if k == "HOME" {
				return t.TempDir()
			}
			return ""
		}
		if code := m.Run(context.Background(), append([]string{"--vault", dir}, args...)); code != 0 {
			t.Fatalf("memvault %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.String()
	}
	var added struct{ ID string }
	if err := json.Unmarshal([]byte(run("add", "Cache keys are plain strings", "--content", "Keys are strings.", "--layer", "project", "--json")), &added); err != nil || added.ID == "" {
		t.Fatalf("add --json: %v", err)
	}
	before := len(gitLog(t, root, "--format=%H"))
	now = now.Add(time.Hour)
	var c view.Confirm
	if err := json.Unmarshal([]byte(run("confirm", added.ID, "--reason", "checked", "--json")), &c); err != nil {
		t.Fatalf("confirm --json: %v", err)
	}
	if c.ID != added.ID || c.VerifiedAt != now.Format(time.RFC3339) || c.Vault != "project" || c.Commit == "" {
		t.Errorf("confirm --json = %+v, want id %s, verified_at %s, vault project and a commit", c, added.ID, now.Format(time.RFC3339))
	}
	log := gitLog(t, root, "--format=%H") // oldest first
	if head := log[len(log)-1]; len(log) != before+1 || head != c.Commit {
		t.Errorf("confirm made %d commits (HEAD %s), want 1: %s", len(log)-before, head, c.Commit)
	}
}
