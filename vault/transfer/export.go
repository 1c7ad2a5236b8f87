package transfer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/secret"
)

// Exporter is what an export reads: the vault's memories and its folder.
// *vault.Vault satisfies it.
type Exporter interface {
	All() []*vault.Memory
	Dir() string
}

// ExportOptions tunes an export. The zero value exports everything as is.
type ExportOptions struct {
	// Redact replaces every secret the guard finds with "[REDACTED:rule]".
	Redact bool
}

// ExportStats reports an export.
type ExportStats struct {
	Memories int
	// Redacted counts the memories in which something was redacted.
	Redacted int
}

// memories returns the vault's memories ordered by path, with each file's
// bytes (nil when the file can no longer be read: the memory is exported
// from the index alone).
func memories(ctx context.Context, v Exporter) ([]*vault.Memory, func(*vault.Memory) []byte, error) {
	all := v.All()
	slices.SortFunc(all, func(a, b *vault.Memory) int { return strings.Compare(a.Path, b.Path) })
	read := func(m *vault.Memory) []byte {
		data, err := os.ReadFile(filepath.Join(v.Dir(), filepath.FromSlash(m.Path)))
		if err != nil {
			return nil
		}
		return data
	}
	return all, read, ctx.Err()
}

// ExportJSONL writes one JSON object per memory to w, ordered by file path
// (see Record).
func ExportJSONL(ctx context.Context, w io.Writer, v Exporter, opts ExportOptions) (ExportStats, error) {
	var st ExportStats
	all, read, err := memories(ctx, v)
	if err != nil {
		return st, err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, m := range all {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		r := RecordOf(m, read(m))
		if opts.Redact && redactRecord(&r) {
			st.Redacted++
		}
		if err := enc.Encode(r); err != nil {
			return st, fmt.Errorf("export %s: %w", m.Path, err)
		}
		st.Memories++
	}
	return st, nil
}

// ExportMarkdown copies every memory file into dir, keeping the vault's
// layout (project/x.md, short-term/y.md, ...), the bytes and the
// modification time of each file;
// with Redact, secrets are replaced in place. dir must not exist or be
// empty, so an export never mixes with older files.
func ExportMarkdown(ctx context.Context, dir string, v Exporter, opts ExportOptions) (ExportStats, error) {
	var st ExportStats
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return st, fmt.Errorf("%w: %s is not empty", ErrOutput, dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return st, fmt.Errorf("export to %s: %w", dir, err)
	}
	all, read, err := memories(ctx, v)
	if err != nil {
		return st, err
	}
	for _, m := range all {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		data := read(m)
		if data == nil {
			return st, fmt.Errorf("export %s: the file can no longer be read", m.Path)
		}
		if opts.Redact {
			if red := secret.Redact(data); string(red) != string(data) {
				data = red
				st.Redacted++
			}
		}
		p := filepath.Join(dir, filepath.FromSlash(m.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return st, fmt.Errorf("export %s: %w", m.Path, err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return st, fmt.Errorf("export %s: %w", m.Path, err)
		}
		// Hand-written files take their dates from the modification time:
		// keep it so an import of the export reproduces them.
		if fi, err := os.Stat(filepath.Join(v.Dir(), filepath.FromSlash(m.Path))); err == nil {
			_ = os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}
		st.Memories++
	}
	return st, nil
}

// redactRecord redacts every string of r and reports whether anything
// changed. The body is scanned as a whole so multi-line secrets (key
// blocks) are found.
func redactRecord(r *Record) bool {
	changed := false
	red := func(s *string) {
		if out := string(secret.Redact([]byte(*s))); out != *s {
			*s = out
			changed = true
		}
	}
	red(&r.Title)
	red(&r.Body)
	for _, l := range [][]string{r.Tags, r.Aliases} {
		for i := range l {
			red(&l[i])
		}
	}
	for k, v := range r.Extra {
		r.Extra[k] = redactAny(v, red)
	}
	return changed
}

func redactAny(v any, red func(*string)) any {
	switch v := v.(type) {
	case string:
		red(&v)
		return v
	case []any:
		for i := range v {
			v[i] = redactAny(v[i], red)
		}
	case map[string]any:
		for k := range v {
			v[k] = redactAny(v[k], red)
		}
	}
	return v
}
