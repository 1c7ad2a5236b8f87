package load

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/store"
)

// note is the memory type of these tests: a file's path and bytes.
type note struct{ path, text string }

// noteRules parse a file into a note; they keep no cache.
type noteRules struct{}

func (noteRules) Parse(_ context.Context, rel string, data []byte, _ time.Time, _ *parser.Scratch) (*note, []*parser.Error, []byte) {
	return &note{rel, string(data)}, nil, nil
}
func (noteRules) Doc(m *note) index.Doc                             { return index.Doc{Title: m.path, Body: m.text} }
func (noteRules) Path(m *note) string                               { return m.path }
func (noteRules) Stale(*note) bool                                  { return false }
func (noteRules) Conflicted(*note) bool                             { return false }
func (noteRules) Header(m *note) (*note, int)                       { return m, 0 }
func (noteRules) IndexCodec() store.Codec[note]                     { return nil }
func (noteRules) HeaderCodec() store.HeaderCodec[Header[note, int]] { return nil }

// TestReadEachOrderAndCancel checks that streamed results arrive in path
// order with their index analysis, and that cancelling mid-load stops the
// readers and reports the cancellation.
func TestReadEachOrderAndCancel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var rels []string
	for i := range 300 {
		rel := fmt.Sprintf("project/n%03d.md", i)
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "---\ntitle: note %d\n---\nbody %d\n", i, i), 0o644); err != nil {
			t.Fatal(err)
		}
		rels = append(rels, rel)
	}
	l := &loader[note, int]{Config: &Config[note, int]{Dir: dir, MaxFileSize: parser.MaxFileSize, Rules: noteRules{}}}
	ix := index.New()

	t.Run("order", func(t *testing.T) {
		var got []string
		err := l.readEach(t.Context(), rels, ix, func(r *File[note, int]) {
			if r.Mem == nil || r.Prep == nil {
				t.Fatalf("%s: mem %v, prep %v; want both", r.Rel, r.Mem, r.Prep)
			}
			got = append(got, r.Rel)
		})
		if err != nil {
			t.Fatalf("readEach: %v", err)
		}
		if !slices.Equal(got, rels) {
			t.Errorf("results out of order: got %d, first %q", len(got), got[:min(3, len(got))])
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		n := 0
		err := l.readEach(ctx, rels, ix, func(*File[note, int]) {
			n++
			if n == 10 {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("readEach after cancel = %v after %d results, want context.Canceled", err, n)
		}
	})
}
