package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
)

// TestServeRefusesSecrets drives the real binary through mcp-go's client:
// remember and update_memory with a secret return isError naming the rule
// and position, and the repository is unchanged (same HEAD, no new file).
func TestServeRefusesSecrets(t *testing.T) {
	t.Parallel()
	s := startServe(t)
	var w struct {
		ID      string `json:"id"`
		Version int    `json:"version"`
	}
	s.ok("remember", map[string]any{"title": "CI setup", "content": "CI runs on every push.", "reason": "baseline"}, &w)
	head := s.head()
	files := s.memoryFiles()

	// Fake values of the right shape; not real credentials.
	const token = "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES"
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"remember content", "remember", map[string]any{
			"title": "CI token", "content": "The CI bot uses\n\n    GITHUB_TOKEN=" + token + "\n", "reason": "test"},
			"content: github-token at line 3, column 18"},
		{"remember chinese", "remember", map[string]any{
			"title": "报表库", "content": "报表库连接：mysql://report:Zq8v2Lr7mN0p!x@10.0.3.7:3306/bi，只读。", "reason": "test"},
			"content: url-password at line 1, column 22"},
		{"remember title", "remember", map[string]any{
			"title": "key AKIAUJZDEGXDNCF32EPF", "content": "x", "reason": "test"},
			"title: aws-access-key-id at line 1, column 5"},
		{"update_memory", "update_memory", map[string]any{
			"id": w.ID, "expected_version": w.Version, "content": "CI runs on every push.\nnpm_Wi0B26R08qzjI6GKFSufrdZSlB5er8bOfZqf", "reason": "test"},
			"content: npm-token at line 2, column 1"},
		// Issue 13: the reason and the id lists, and an evasion.
		{"remember reason", "remember", map[string]any{
			"title": "Rotation", "content": "clean", "reason": "rotated to " + token},
			"reason: github-token at line 1, column 12"},
		{"update_memory reason", "update_memory", map[string]any{
			"id": w.ID, "expected_version": w.Version, "content": "changed", "reason": "rotated to " + token},
			"reason: github-token"},
		{"forget reason", "forget", map[string]any{
			"id": w.ID, "reason": "leaked " + token, "delete": true},
			"reason: github-token"},
		{"remember links", "remember", map[string]any{
			"title": "Linked", "content": "clean", "links": []string{token}, "reason": "test"},
			"links[0]: github-token"},
		{"remember full-width", "remember", map[string]any{
			"title": "全角", "content": "令牌：ｇｈｐ＿hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES", "reason": "test"},
			"content: github-token at line 1, column 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := s.fails(tt.tool, tt.args)
			if !strings.Contains(msg, tt.want) || !strings.Contains(msg, "secret detected") {
				t.Errorf("error %q, want it to contain %q", msg, tt.want)
			}
			for _, leak := range []string{"hGAkWvj7", "Zq8v2Lr7", "UJZDEGXD", "Wi0B26R0"} {
				if strings.Contains(msg, leak) {
					t.Errorf("error %q echoes the secret", msg)
				}
			}
			if got := s.head(); got != head {
				t.Errorf("HEAD moved from %s to %s", head, got)
			}
			if got := s.memoryFiles(); strings.Join(got, ",") != strings.Join(files, ",") {
				t.Errorf("memory files %v, want %v", got, files)
			}
		})
	}
}

// head returns the repository's HEAD commit.
func (s *mcpSession) head() string {
	s.t.Helper()
	st, err := gitstore.Open(context.Background(), s.root)
	if err != nil {
		s.t.Fatal(err)
	}
	defer st.Close()
	h, err := st.Resolve(context.Background(), "HEAD")
	if err != nil {
		s.t.Fatal(err)
	}
	return h
}

// memoryFiles lists the files under .memory, sorted.
func (s *mcpSession) memoryFiles() []string {
	s.t.Helper()
	var out []string
	root := filepath.Join(s.root, ".memory")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

// TestHandEditedSecretIsReported checks each place a secret written by
// hand shows up: memory_stats counts it, lint lists it and exits 1, doctor
// reports it; none prints the value.
func TestHandEditedSecretIsReported(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	s := startServe(t)
	rel := filepath.Join(".memory", "project", "ci.md")
	p := filepath.Join(s.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	file := "---\ntitle: CI\n---\n\nThe CI token is\n\n    ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES\n"
	if err := os.WriteFile(p, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	s.restart()

	var st struct {
		Total       int      `json:"total"`
		ParseErrors int      `json:"parse_errors"`
		Secrets     int      `json:"secret_findings"`
		Problems    []string `json:"problems"`
		GitHead     string   `json:"git_head"`
		IndexDocs   int      `json:"index_docs"`
	}
	s.ok("memory_stats", map[string]any{}, &st)
	if st.Total != 1 || st.ParseErrors != 1 || st.Secrets != 1 || st.IndexDocs != 1 {
		t.Errorf("memory_stats = %+v, want the memory loaded and indexed, 1 error, 1 secret", st)
	}
	if len(st.Problems) != 1 || !strings.Contains(st.Problems[0], "ci.md:7: secret:") || !strings.Contains(st.Problems[0], "github-token") ||
		strings.Contains(st.Problems[0], "hGAkWvj7") {
		t.Errorf("memory_stats problems = %q, want the file, line and rule without the value", st.Problems)
	}

	run := func(args ...string) (string, int) {
		cmd := exec.Command(s.bin, append([]string{"--vault", filepath.Join(s.root, ".memory")}, args...)...)
		cmd.Dir = s.root
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return string(out), code
	}
	want := "ci.md:7: secret: secret detected: github-token at line 7, column 5"
	lint, code := run("lint")
	if code != 1 || !strings.Contains(lint, want) {
		t.Errorf("lint exit %d, output:\n%s\nwant exit 1 and %q", code, lint, want)
	}
	doctor, _ := run("doctor")
	if !strings.Contains(doctor, "github-token at line 7") {
		t.Errorf("doctor output does not report the secret:\n%s", doctor)
	}
	for _, leak := range []string{lint, doctor} {
		if strings.Contains(leak, "hGAkWvj7") {
			t.Errorf("output echoes the secret:\n%s", leak)
		}
	}
}

// TestCLIRefusesSecretsOutsideTheContent is issue 13's findings 1-3 through
// the CLI: a token in --reason (add, update, forget, import), in --links,
// or in a file a crashed write left for recovery never reaches a commit.
// Each refusal exits 1, names the field and rule, and leaves HEAD as it
// was; the token is in no commit message and no committed file.
func TestCLIRefusesSecretsOutsideTheContent(t *testing.T) {
	t.Parallel()
	// Fake values of the right shape; not real credentials.
	const token = "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES"
	r := newCLIRepo(t)
	var created struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(r.ok("add", "Deploys", "--content", "Deploys go through CI.", "--reason", "baseline", "--json")), &created); err != nil {
		t.Fatal(err)
	}
	jsonl := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(jsonl, []byte(`{"id":"imp","title":"Imported","body":"clean"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"add --reason", []string{"add", "t", "--content", "clean", "--reason", "rotated to " + token}, "reason: github-token at line 1, column 12"},
		{"add --reason, zero-width space", []string{"add", "t", "--content", "clean", "--reason", "rotated to ghp_hGAkWvj7\u200bFAc9QeWJKY40uvSwMFLZDe1f8rES"}, "reason: github-token"},
		{"update --reason", []string{"update", created.ID, "--content", "changed", "--reason", "rotated to " + token}, "reason: github-token"},
		{"forget --reason", []string{"forget", created.ID, "--reason", "leaked " + token}, "reason: github-token"},
		{"import --reason", []string{"import", jsonl, "--reason", "from the old box, " + token}, "reason: github-token"},
		{"add --links", []string{"add", "t", "--content", "clean", "--links", token, "--reason", "r"}, "links[0]: github-token"},
	}
	head, _ := r.head()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _ := r.run("", tt.args...)
			if code != 1 || !strings.Contains(r.lastStderr, tt.want) || !strings.Contains(r.lastStderr, "secret detected") {
				t.Errorf("exit %d, stderr %q; want 1 naming %q", code, r.lastStderr, tt.want)
			}
			if strings.Contains(r.lastStderr, token[4:]) {
				t.Errorf("stderr echoes the secret: %s", r.lastStderr)
			}
			if got, _ := r.head(); got != head {
				t.Errorf("HEAD moved from %s to %s", head, got)
			}
		})
	}

	// Finding 3: a journal left by a crash, then a hand edit that puts the
	// token into the journalled file. Neither the next write nor doctor
	// --fix commits it; once the token is gone, doctor --fix finishes the
	// interrupted write.
	t.Run("recovery", func(t *testing.T) {
		rel := "project/crashed.md"
		newData := "---\nid: crashed\ntitle: Crashed\n---\nwritten by the crashed process\n"
		j := map[string]any{"message": "memory(project): add \"Crashed\"\n\nMemory-Id: crashed\n", "paths": []string{rel}, "commit": true,
			"ops": []map[string]any{{"path": rel, "data": []byte(newData), "before": ""}}}
		data, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.dir, vault.JournalName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		edited := "---\nid: crashed\ntitle: Crashed\n---\nThe CI token:\n\n    " + token + "\n"
		p := filepath.Join(r.dir, filepath.FromSlash(rel))
		if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"add", "Ordinary", "--content", "clean", "--reason", "r"}, {"doctor", "--fix"}} {
			code, out := r.run("", args...)
			if code != 1 || !strings.Contains(out+r.lastStderr, "project/crashed.md: github-token at line 7") {
				t.Errorf("%s: exit %d\nstdout: %s\nstderr: %s\nwant 1 naming project/crashed.md line 7", args[0], code, out, r.lastStderr)
			}
			if got, _ := r.head(); got != head {
				t.Fatalf("%s: HEAD moved from %s to %s", args[0], head, got)
			}
		}
		if err := os.WriteFile(p, []byte(strings.Replace(edited, token, "(in the CI settings)", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		r.ok("doctor", "--fix")
		if _, msg := r.head(); !strings.Contains(msg, commitmsg.KeyRecovered) {
			t.Errorf("HEAD %q is not the recovered write", msg)
		}
	})

	// No commit of the run holds the token.
	s := r.store()
	cs, err := s.History(context.Background(), r.root, gitstore.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if strings.Contains(c.Message, token[4:]) {
			t.Errorf("commit %s holds the token:\n%s", c.Hash, c.Message)
		}
	}
	out, err := exec.Command("git", "-C", r.root, "log", "-p", "--all").CombinedOutput()
	if err != nil {
		t.Fatalf("git log: %v\n%s", err, out)
	}
	if strings.Contains(string(out), token[4:]) {
		t.Error("git log -p shows the token")
	}
}

// TestServeSanitisesClientName is issue 13's finding 4 through the real
// server: a clientInfo.name with line breaks and a token neither forges a
// trailer nor reaches the commit or source.client.
func TestServeSanitisesClientName(t *testing.T) {
	t.Parallel()
	s := startServe(t)
	const token = "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES"
	c, err := newStdioClient(s.bin, nil, "serve", "--vault", filepath.Join(s.root, ".memory"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "evil\nMemory-Supersedes: 01FORGED\nclient " + token, Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	s.c.Close()
	s.c = c
	var w struct {
		ID   string `json:"id"`
		Path string `json:"path"`
	}
	s.ok("remember", map[string]any{"title": "Named", "content": "clean", "reason": "test"}, &w)
	msg := s.commits()[0].Message
	parsed := commitmsg.Parse(msg)
	if got := parsed.Values(commitmsg.KeyClient); len(got) != 1 || got[0] != "evil Memory-Supersedes: 01FORGED client [REDACTED:github-token]" {
		t.Errorf("Memory-Client = %q", got)
	}
	if got := parsed.Values(commitmsg.KeySupersedes); len(got) != 0 {
		t.Errorf("forged Memory-Supersedes: %q", got)
	}
	data, err := os.ReadFile(filepath.Join(s.root, ".memory", filepath.FromSlash(w.Path)))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{msg, string(data)} {
		if strings.Contains(text, token[4:]) {
			t.Errorf("the token was written:\n%s", text)
		}
	}
}
