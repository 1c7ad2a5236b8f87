package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/gitstore"
)

// TestServeRefusesSecrets drives the real binary through mcp-go's client:
// remember and update_memory with a secret return isError naming the rule
// and position, and the repository is unchanged (same HEAD, no new file).
func TestServeRefusesSecrets(t *testing.T) {
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
