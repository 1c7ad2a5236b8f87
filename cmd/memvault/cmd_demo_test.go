package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemo runs the real binary's `memvault demo` on the real sample vault:
// the scripted session must pass, print its key lines, and fail loudly
// when the sample no longer supports a step.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	t.Parallel()
	bin := buildMemvault(t)
	sample, err := filepath.Abs(filepath.Join("..", "..", "sample-vault"))
	if err != nil {
		t.Fatal(err)
	}
	// A sample whose checkout note lost its Chinese title: the Chinese
	// recall step can no longer find it.
	broken := filepath.Join(t.TempDir(), "sample-vault")
	if err := os.CopyFS(broken, os.DirFS(sample)); err != nil {
		t.Fatal(err)
	}
	note := filepath.Join(broken, "project", "结算模块设计.md")
	data, err := os.ReadFile(note)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("title: 结算模块设计"), []byte("title: Checkout module notes"), 1)
	if err := os.WriteFile(note, data, 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string // lines or fragments the output must hold
		notWant  []string
	}{
		{
			name: "transcript",
			args: []string{"demo", "--sample", sample},
			want: []string{
				"[1] initialize",
				`→ tools/call recall {"limit":3,"query":"结算模块怎么设计的"}`,
				"1. 结算模块设计 [project, active",
				"possible conflict with: 01M3BT2X3CPJ07V9QBB7YCWNPP",
				"Memory-Client: memvault-demo",
				"Memory-Supersedes: 01M3BT2X3CPJ07V9QBB7YCWNPP",
				"1. API errors: real HTTP status codes on every route [project, active, v1]",
				"replaced by: ",
				"## Project rules",
				"stale: ops/deploy.sh was renamed to ops/release.sh",
				"all 9 steps behaved as expected",
			},
			notWant: []string{"✗"},
		},
		{
			name:     "a step that does not behave fails the demo",
			args:     []string{"demo", "--sample", broken},
			wantCode: exitInternal,
			want: []string{
				`✗ expected: "结算模块设计" (a Chinese note) is result #1`,
				`want "结算模块设计" first; got [Checkout module notes`,
				"the server's log:",
			},
			notWant: []string{"all 9 steps behaved", "[4]"},
		},
		{
			name:     "no sample vault",
			args:     []string{"demo", "--sample", t.TempDir()},
			wantCode: exitUsage,
			want:     []string{"no history.json there"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := runBinary(t, bin, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit status %d, want %d; output:\n%s", code, tt.wantCode, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q; output:\n%s", w, out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output holds %q; output:\n%s", w, out)
				}
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		out, code := runBinary(t, bin, "demo", "--sample", sample, "--json")
		if code != 0 {
			t.Fatalf("exit status %d, want 0; output:\n%s", code, out)
		}
		var steps []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var st map[string]any
			if err := json.Unmarshal([]byte(line), &st); err != nil {
				t.Fatalf("line %q is not JSON: %v", line, err)
			}
			steps = append(steps, st)
		}
		if len(steps) != 9 {
			t.Fatalf("got %d steps, want 9", len(steps))
		}
		for _, st := range steps {
			if st["ok"] != true || st["request"] == nil || st["response"] == nil {
				t.Errorf("step %v: ok=%v, request %v, response present %v", st["title"], st["ok"], st["request"], st["response"] != nil)
			}
		}
	})

	t.Run("keep", func(t *testing.T) {
		out, code := runBinary(t, bin, "demo", "--sample", sample, "--keep")
		if code != 0 {
			t.Fatalf("exit status %d, want 0; output:\n%s", code, out)
		}
		_, after, ok := strings.Cut(out, "kept the demo repository: ")
		if !ok {
			t.Fatalf("no kept path in output:\n%s", out)
		}
		repo, _, _ := strings.Cut(after, "\n")
		t.Cleanup(func() { os.RemoveAll(filepath.Dir(repo)) })
		if _, err := os.Stat(filepath.Join(repo, ".memory", "project", "api-errors-real-http-status-codes-on-every-route.md")); err != nil {
			t.Errorf("kept repository lacks the demo's new rule: %v", err)
		}
	})
}

// runBinary runs the memvault binary in a fresh folder and returns its
// combined output and exit status.
func runBinary(t *testing.T, bin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		t.Fatalf("run %s: %v", bin, err)
	}
	return string(out), 0
}
