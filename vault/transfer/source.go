package transfer

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
)

// DefaultSkip lists the files and folders an import never reads because
// they hold credentials: a pattern ending in "/" names a folder anywhere in
// the tree, any other pattern a file name (path.Match syntax, compared
// case-insensitively).
var DefaultSkip = []string{
	".env*", "*.pem", "*.key", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	"*.p12", "*.pfx", "*.kdbx", ".netrc", ".npmrc", ".pypirc", ".git-credentials",
	"secrets/", ".aws/", ".ssh/", ".gnupg/",
}

// Limits of a source.
const (
	// MaxSourceBytes bounds a JSON Lines source file.
	MaxSourceBytes = 256 << 20
	// MaxFiles bounds the files of a folder import.
	MaxFiles = 100_000
)

// ReadOptions tunes Read. The zero value detects the format and applies
// DefaultSkip.
type ReadOptions struct {
	Format Format
	// Skip adds patterns to DefaultSkip (same syntax).
	Skip []string
	// Layer puts every memory in this layer; 0 keeps the format's choice.
	Layer vault.Layer
	// Exclude lists folders a folder import does not enter, such as the
	// vault being imported into when it sits inside the source.
	Exclude []string
}

// Source is what Read found: the memories to import and the problems.
type Source struct {
	// Name is the source's base name, for the commit subject.
	Name   string
	Format Format
	Items  []Item
	// Problems are the parts not imported: skipped files, malformed lines,
	// secrets. They are reported, never fatal.
	Problems []Problem
	// Files counts the files read.
	Files int
}

// Read reads an import source: a JSON Lines file (memvault's export or an
// MCP memory graph), a Markdown file, or a folder of Markdown notes.
// Files matching the skip patterns are never opened, symbolic links that
// lead outside a folder are not followed, and every memory found is passed
// through the secret guard; what is refused is in Source.Problems. Read
// fails only when the source as a whole cannot be read.
func Read(ctx context.Context, src string, opts ReadOptions) (*Source, error) {
	skip := append(slices.Clone(DefaultSkip), opts.Skip...)
	for _, p := range skip {
		if _, err := path.Match(strings.TrimSuffix(p, "/"), ""); err != nil {
			return nil, fmt.Errorf("skip pattern %q: %w", p, err)
		}
	}
	fi, err := os.Stat(src)
	if err != nil {
		return nil, fmt.Errorf("import source: %w", err)
	}
	s := &Source{Name: filepath.Base(filepath.Clean(src)), Format: opts.Format}
	if fi.IsDir() {
		if s.Format != FormatAuto && s.Format != FormatMarkdown {
			return nil, fmt.Errorf("%w: %s is a folder; only markdown is read from folders", ErrFormat, src)
		}
		s.Format = FormatMarkdown
		err = s.readDir(ctx, src, skip, opts)
	} else {
		err = s.readFile(src, skip, opts)
	}
	if err != nil {
		return nil, err
	}
	// The guard: a memory holding a secret is reported by rule and place
	// and never reaches the vault.
	kept := s.Items[:0]
	for _, it := range s.Items {
		if p := guard(it); p != nil {
			s.Problems = append(s.Problems, *p)
			continue
		}
		kept = append(kept, it)
	}
	s.Items = kept
	return s, nil
}

// skipped returns the pattern that rel (a slash path; dir tells whether it
// is a folder) matches, or "".
func skipped(rel string, dir bool, patterns []string) string {
	base := strings.ToLower(path.Base(rel))
	for _, p := range patterns {
		lp := strings.ToLower(p)
		if strings.HasSuffix(lp, "/") {
			if dir {
				if ok, _ := path.Match(strings.TrimSuffix(lp, "/"), base); ok {
					return p
				}
			}
			continue
		}
		if ok, _ := path.Match(lp, base); ok {
			return p
		}
	}
	return ""
}

func (s *Source) readFile(src string, skip []string, opts ReadOptions) error {
	name := filepath.Base(src)
	if p := skipped(name, false, skip); p != "" {
		return fmt.Errorf("%w: %s matches the secret-file pattern %q and is not read", ErrFormat, name, p)
	}
	format := s.Format
	if format == FormatAuto {
		switch strings.ToLower(filepath.Ext(name)) {
		case ".md", ".markdown", ".mdx":
			format = FormatMarkdown
		}
		if instructionFile(name) {
			format = FormatMarkdown
		}
	}
	limit := int64(MaxSourceBytes)
	if format == FormatMarkdown {
		limit = parser.MaxFileSize
	}
	data, err := readLimited(src, limit)
	if err != nil {
		return err
	}
	s.Files = 1
	if format == FormatAuto {
		if format, err = Detect(data); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	s.Format = format
	switch format {
	case FormatJSONL:
		s.add(ParseJSONL(name, data))
		if opts.Layer != 0 {
			for i := range s.Items {
				s.Items[i].Batch.Memory.Layer = opts.Layer
			}
		}
	case FormatMCP:
		s.add(ParseMCP(name, data, MCPOptions{Layer: opts.Layer}))
	case FormatMarkdown:
		fi, _ := os.Stat(src)
		s.add(ParseMarkdown(name, data, MarkdownOptions{Layer: opts.Layer, ModTime: fi.ModTime()}))
	default:
		return fmt.Errorf("%w: %q", ErrFormat, format)
	}
	return nil
}

func instructionFile(name string) bool {
	return slices.Contains(instructionFiles, strings.ToLower(name))
}

func (s *Source) add(items []Item, probs []Problem) {
	s.Items = append(s.Items, items...)
	s.Problems = append(s.Problems, probs...)
}

// readDir walks a folder of Markdown notes.
func (s *Source) readDir(ctx context.Context, root string, skip []string, opts ReadOptions) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("import source: %w", err)
	}
	layered := false
	for _, l := range vault.AllLayers() {
		if fi, err := os.Stat(filepath.Join(root, l.Dir())); err == nil && fi.IsDir() {
			layered = true
		}
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if err != nil {
			s.Problems = append(s.Problems, Problem{Pos: rel, Reason: "cannot read: " + err.Error()})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" || excluded(p, opts.Exclude) {
				return fs.SkipDir
			}
			if pat := skipped(rel, true, skip); pat != "" {
				s.Problems = append(s.Problems, Problem{Pos: rel + "/", Reason: fmt.Sprintf("not read: matches the secret-file pattern %q", pat), Deliberate: true})
				return fs.SkipDir
			}
			return nil
		}
		if pat := skipped(rel, false, skip); pat != "" {
			s.Problems = append(s.Problems, Problem{Pos: rel, Reason: fmt.Sprintf("not read: matches the secret-file pattern %q", pat), Deliberate: true})
			return nil
		}
		if !isMarkdownName(d.Name()) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				s.Problems = append(s.Problems, Problem{Pos: rel, Reason: "broken symbolic link skipped", Deliberate: true})
				return nil
			}
			if !inside(realRoot, target) {
				s.Problems = append(s.Problems, Problem{Pos: rel, Reason: "symbolic link to outside the source folder, not followed", Deliberate: true})
				return nil
			}
			// The target is walked itself (or skipped by a pattern):
			// following the link would import it twice or around a pattern.
			s.Problems = append(s.Problems, Problem{Pos: rel, Reason: "symbolic link to a file inside the folder: imported from the file itself", Deliberate: true})
			return nil
		} else if !d.Type().IsRegular() {
			return nil
		}
		if s.Files >= MaxFiles {
			return fmt.Errorf("%w: more than %d files", ErrFormat, MaxFiles)
		}
		fi, err := os.Stat(p)
		if err != nil {
			s.Problems = append(s.Problems, Problem{Pos: rel, Reason: "cannot read: " + err.Error()})
			return nil
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		if fi.Size() > parser.MaxFileSize {
			s.Problems = append(s.Problems, Problem{Pos: rel, Reason: fmt.Sprintf("file of %d bytes, limit %d", fi.Size(), parser.MaxFileSize)})
			return nil
		}
		data, err := readLimited(p, parser.MaxFileSize)
		if err != nil {
			s.Problems = append(s.Problems, Problem{Pos: rel, Reason: err.Error()})
			return nil
		}
		s.Files++
		first, _, _ := strings.Cut(rel, "/")
		inLayer := slices.ContainsFunc(vault.AllLayers(), func(l vault.Layer) bool { return l.Dir() == first })
		s.add(ParseMarkdown(rel, data, MarkdownOptions{Layer: opts.Layer, ModTime: fi.ModTime(),
			VaultLayout: layered && inLayer && vault.IsMemoryPath(rel)}))
		return nil
	})
}

// excluded reports whether the folder p is one of dirs.
func excluded(p string, dirs []string) bool {
	for _, d := range dirs {
		if a, err := filepath.Abs(p); err == nil && a == filepath.Clean(d) {
			return true
		}
	}
	return false
}

func isMarkdownName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown", ".mdx":
		return true
	}
	return instructionFile(name)
}

// inside reports whether p is root or below it (both cleaned, absolute or
// both relative).
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// readLimited reads a file of at most limit bytes.
func readLimited(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("import source: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(p), err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", filepath.Base(p), limit)
	}
	return data, nil
}
