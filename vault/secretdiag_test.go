package vault

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/parser"
)

// fakeToken has the shape of a GitHub token; it is random, not real.
const fakeToken = "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES"

func TestWriteWithSecretIsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		mem   NewMemory
		field string // expected in the message
	}{
		{"content", NewMemory{Title: "CI token", Content: "Use this:\n\n  GITHUB_TOKEN=" + fakeToken + "\n"}, "content: github-token at line 3, column 16"},
		{"chinese content", NewMemory{Title: "数据库", Content: "生产库连接：postgres://app:Zq8v2Lr7mN0p@db.internal/app"}, "content: url-password at line 1, column 22"},
		{"title", NewMemory{Title: "token " + fakeToken, Content: "x"}, "title: github-token at line 1, column 7"},
		{"tag", NewMemory{Title: "t", Content: "x", Tags: []string{"ok", fakeToken}}, "tags[1]: github-token"},
		{"alias", NewMemory{Title: "t", Content: "x", Aliases: []string{"npm_Wi0B26R08qzjI6GKFSufrdZSlB5er8bOfZqf"}}, "aliases[0]: npm-token at line 1, column 1"},
		{"two fields", NewMemory{Title: "t " + fakeToken, Content: "AKIAUJZDEGXDNCF32EPF"}, "title: github-token at line 1, column 3; content: aws-access-key-id at line 1, column 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			v, c := openRecorded(t, dir)
			_, err := v.Create(t.Context(), tt.mem, Author{})
			if !errors.Is(err, ErrSecret) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Create error = %v, want ErrSecret and ErrInvalid", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.field) {
				t.Errorf("error %q does not name %q", msg, tt.field)
			}
			if strings.Contains(msg, "Zq8v2Lr7") || strings.Contains(msg, fakeToken[4:]) {
				t.Errorf("error %q echoes the secret", msg)
			}
			if files := memoryFiles(t, dir); len(files) != 0 {
				t.Errorf("files written: %v", files)
			}
			if len(c.commits) != 0 {
				t.Errorf("%d commits, want 0", len(c.commits))
			}
		})
	}
}

func TestUpdateWithSecretIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v, c := openRecorded(t, dir)
	res, err := v.Create(t.Context(), NewMemory{Title: "Deploy", Content: "Deploys go through CI."}, Author{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, res.Memory.Path))
	if err != nil {
		t.Fatal(err)
	}
	content := "Deploys go through CI.\nkey: AKIAUJZDEGXDNCF32EPF\n"
	_, err = v.Update(t.Context(), res.Memory.ID, res.Memory.Version, Patch{Content: &content}, Author{})
	if !errors.Is(err, ErrSecret) || !strings.Contains(err.Error(), "content: aws-access-key-id at line 2, column 6") {
		t.Fatalf("Update error = %v, want ErrSecret naming the key", err)
	}
	after, err := os.ReadFile(filepath.Join(dir, res.Memory.Path))
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Errorf("file changed by a refused update:\n%s", after)
	}
	if len(c.commits) != 1 {
		t.Errorf("%d commits, want only the create's", len(c.commits))
	}
}

func TestAllowMarkerLetsAWriteThrough(t *testing.T) {
	t.Parallel()
	v, err := Open(t.Context(), t.TempDir(), Options{Now: newClock("2026-11-30T10:00:00Z").Now, Committer: &recordingCommitter{}})
	if err != nil {
		t.Fatal(err)
	}
	content := "The docs' sample token looks like " + fakeToken + " <!-- memvault:allow-secret -->\n"
	if _, err := v.Create(t.Context(), NewMemory{Title: "Token format", Content: content}, Author{}); err != nil {
		t.Fatalf("Create with the allow marker: %v", err)
	}
}

func TestHandEditedSecretIsDiagnosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rel := "project/creds.md"
	file := "---\ntitle: Creds\n---\n\nThe CI token:\n\n    " + fakeToken + "\n"
	if err := os.MkdirAll(filepath.Join(dir, "project"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T10:00:00Z").Now})
	if err != nil {
		t.Fatal(err)
	}
	var got []*Diagnostic
	for _, d := range v.Diagnostics() {
		if d.Field == "secret" {
			got = append(got, d)
		}
	}
	if len(got) != 1 {
		t.Fatalf("secret diagnostics = %v, want 1", v.Diagnostics())
	}
	d := got[0]
	if d.Path != rel || d.Line != 7 || d.Severity != parser.SeverityError || !errors.Is(d.Err, ErrSecret) {
		t.Errorf("diagnostic = %+v, want %s line 7, error severity, ErrSecret", d, rel)
	}
	if strings.Contains(d.Error(), fakeToken[4:]) {
		t.Errorf("diagnostic %q echoes the secret", d.Error())
	}
	if s := v.Stats(); s.Errors != 1 {
		t.Errorf("Stats().Errors = %d, want 1", s.Errors)
	}
	if _, err := v.Get(DerivedID(rel)); err != nil {
		t.Errorf("the memory is not loaded; it should stay searchable to be fixed")
	}

	// Fixing the file by hand clears the diagnostic on refresh.
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(strings.Replace(file, fakeToken, "(in the CI settings)", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := v.Refresh(t.Context(), []string{rel}); err != nil {
		t.Fatal(err)
	}
	if ds := v.Diagnostics(); len(ds) != 0 {
		t.Errorf("after the fix: %v", ds)
	}
}

func memoryFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
