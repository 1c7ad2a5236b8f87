package precommit

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeToken has the shape of a GitHub token; it is no one's.
const fakeToken = "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES"

// stagedFiles is an index: path -> staged content, walked in order.
type stagedFiles struct {
	paths []string
	data  map[string]string
	err   error
}

func (s stagedFiles) WalkStaged(_ context.Context, fn func(path string, data []byte) error) error {
	for _, p := range s.paths {
		if err := fn(p, []byte(s.data[p])); err != nil {
			return err
		}
	}
	return s.err
}

func TestStagedSecrets(t *testing.T) {
	t.Parallel()
	secretFile := "---\ntitle: CI\n---\n\nThe CI token is\n\n    " + fakeToken + "\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []string // path:line:column
	}{
		{"clean", map[string]string{".memory/project/a.md": "---\ntitle: A\n---\nNothing secret.\n"}, nil},
		{"a secret", map[string]string{".memory/project/ci.md": secretFile}, []string{".memory/project/ci.md:7:5"}},
		{"only Markdown", map[string]string{".memory/notes.txt": secretFile, ".memory/project/ci.md": secretFile},
			[]string{".memory/project/ci.md:7:5"}},
		{"allowed on its line", map[string]string{".memory/project/doc.md": "Sample: " + fakeToken + " <!-- memvault:allow-secret -->\n"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := stagedFiles{data: tt.files}
			for p := range tt.files {
				s.paths = append(s.paths, p)
			}
			found, err := StagedSecrets(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range found {
				got = append(got, fmt.Sprintf("%s:%d:%d", f.Path, f.Line, f.Column))
				if f.Rule == "" {
					t.Errorf("finding without a rule: %+v", f)
				}
			}
			if len(got) != len(tt.want) || (len(got) > 0 && got[0] != tt.want[0]) {
				t.Errorf("found %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("a walk error is returned", func(t *testing.T) {
		t.Parallel()
		broken := errors.New("index unreadable")
		if _, err := StagedSecrets(t.Context(), stagedFiles{err: broken}); !errors.Is(err, broken) {
			t.Errorf("err = %v, want %v", err, broken)
		}
	})
}

func TestStagedConflictMarkers(t *testing.T) {
	t.Parallel()
	markers := "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Money is int64 cents\n---\n" +
		"<<<<<<< HEAD\nNever float64.\n=======\nNever float32.\n>>>>>>> topic\n"
	s := stagedFiles{paths: []string{".memory/project/a.md", ".memory/project/b.md", ".memory/notes.txt"}, data: map[string]string{
		".memory/project/a.md": "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Money is int64 cents\n---\nNever float64.\n",
		".memory/project/b.md": markers,
		".memory/notes.txt":    markers,
	}}
	got, err := StagedConflictMarkers(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if want := []StagedMarker{{Path: ".memory/project/b.md", Line: 5}}; !cmp.Equal(got, want) {
		t.Errorf("StagedConflictMarkers = %v, want %v", got, want)
	}
}
