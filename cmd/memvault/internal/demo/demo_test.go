package demo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindSample: the flag first, else sample-vault in the search folders
// in order, and an ErrNoSample error that says where it looked.
func TestFindSample(t *testing.T) {
	tmp := t.TempDir()
	mkSample := func(dir string) string {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "history.json"), []byte("[]"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	root := filepath.Join(tmp, "src")
	sub := filepath.Join(root, "cmd", "memvault")
	atRoot := mkSample(filepath.Join(root, "sample-vault"))
	atSub := mkSample(filepath.Join(sub, "sample-vault"))
	flag := mkSample(filepath.Join(tmp, "mine"))
	empty := filepath.Join(tmp, "empty")
	if err := os.MkdirAll(filepath.Join(empty, "sample-vault"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		flag    string
		dirs    []string
		want    string
		wantErr string // substring of an ErrNoSample error
	}{
		{name: "flag", flag: flag, dirs: []string{root}, want: flag},
		{name: "flag without history.json", flag: empty, dirs: []string{root}, wantErr: "--sample " + empty + ": no history.json there"},
		{name: "working directory first", dirs: []string{sub, root}, want: atSub},
		{name: "then the git root", dirs: []string{empty, root}, want: atRoot},
		{name: "nowhere", dirs: []string{empty, empty}, wantErr: "no sample vault found (tried " + filepath.Join(empty, "sample-vault") + "):"},
		{name: "no folders", wantErr: "or pass --sample DIR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findSample(tt.flag, tt.dirs)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrNoSample) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want ErrNoSample containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("findSample = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestRunFailures: Run stops before starting anything when it has no
// sample or no way to replay it, and reports a failed replay.
func TestRunFailures(t *testing.T) {
	sample := filepath.Join(t.TempDir(), "sample-vault")
	if err := os.MkdirAll(sample, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sample, "history.json"), []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	errReplay := errors.New("replay broke")
	replayed := 0
	replay := func(_ context.Context, s, repo string) error {
		replayed++
		if s != sample || !strings.HasPrefix(filepath.Base(filepath.Dir(repo)), "memvault-demo-") {
			t.Errorf("replay(%s, %s): want the sample into a memvault-demo- folder", s, repo)
		}
		return errReplay
	}
	var out strings.Builder
	err := Run(t.Context(), Options{Sample: t.TempDir(), Replay: replay, Stdout: &out})
	if !errors.Is(err, ErrNoSample) || replayed != 0 {
		t.Errorf("no sample: err %v, replayed %d times; want ErrNoSample before any replay", err, replayed)
	}
	if err := Run(t.Context(), Options{Sample: sample, Stdout: &out}); err == nil {
		t.Errorf("no Replay: want an error")
	}
	err = Run(t.Context(), Options{Sample: sample, Replay: replay, Stdout: &out, Binary: "/nonexistent/memvault"})
	if !errors.Is(err, errReplay) || replayed != 1 {
		t.Errorf("failed replay: err %v, replayed %d times; want the replay's error", err, replayed)
	}
	var step *StepError
	if errors.As(err, &step) {
		t.Errorf("a replay failure reported as a step failure: %v", err)
	}
}
