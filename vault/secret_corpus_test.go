package vault

import (
	"errors"
	"path"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestCorpusWritesAreRefused writes every memory of the secret corpus
// through Create, as an assistant would paste it: each positive must be
// refused with nothing written and nothing committed, and the negatives
// must go through (at most the scanner's own false-positive allowance).
func TestCorpusWritesAreRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v, c := openRecorded(t, dir)
	pos, err := txtar.ParseFile("secret/testdata/positives.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range pos.Files {
		_, err := v.Create(t.Context(), NewMemory{Title: "pasted note " + f.Name, Content: "Pasted from the chat:\n\n" + string(f.Data)}, Author{})
		rule := path.Dir(f.Name)
		if !errors.Is(err, ErrSecret) || !strings.Contains(err.Error(), rule) {
			t.Errorf("%s: Create error = %v, want ErrSecret naming %s", f.Name, err, rule)
		}
	}
	if files := memoryFiles(t, dir); len(files) != 0 {
		t.Errorf("refused writes left files: %v", files)
	}
	if len(c.commits) != 0 {
		t.Errorf("refused writes made %d commits, want 0", len(c.commits))
	}

	neg, err := txtar.ParseFile("secret/testdata/negatives.txtar")
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, f := range neg.Files {
		if _, err := v.Create(t.Context(), NewMemory{Title: "note " + f.Name, Content: "Pasted from the chat:\n\n" + string(f.Data)}, Author{}); err != nil {
			if !errors.Is(err, ErrSecret) {
				t.Errorf("%s: unexpected error %v", f.Name, err)
			}
			refused++
		}
	}
	if refused > 2 {
		t.Errorf("%d of %d negatives refused, want <= 2", refused, len(neg.Files))
	}
	if got, want := len(c.commits), len(neg.Files)-refused; got != want {
		t.Errorf("%d commits for the negatives, want %d", got, want)
	}
	t.Logf("positives refused: %d/%d; negatives refused: %d/%d", len(pos.Files), len(pos.Files), refused, len(neg.Files))
}
