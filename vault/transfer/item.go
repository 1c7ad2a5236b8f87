package transfer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/secret"
)

// Format names an import source format.
type Format string

// The formats import reads. FormatAuto detects the format from the source.
const (
	FormatAuto     Format = ""
	FormatJSONL    Format = "jsonl"      // memvault's own export
	FormatMCP      Format = "mcp-memory" // the MCP memory server's memory.jsonl
	FormatMarkdown Format = "markdown"   // Markdown notes, memory bank, CLAUDE.md
)

// ParseFormat accepts the names of the formats ("auto", "jsonl",
// "mcp-memory" or "mcp", "markdown" or "md").
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return FormatAuto, nil
	case "jsonl", "memvault":
		return FormatJSONL, nil
	case "mcp", "mcp-memory", "memory.jsonl", "knowledge-graph":
		return FormatMCP, nil
	case "markdown", "md":
		return FormatMarkdown, nil
	}
	return "", fmt.Errorf("%w: %q (want auto|jsonl|mcp-memory|markdown)", ErrFormat, s)
}

// Item is one memory read from a source.
type Item struct {
	// Pos says where it came from: "memory.jsonl:12", "notes/x.md",
	// "CLAUDE.md:40".
	Pos string
	// BodyLine is the source line of the body's first line when the body
	// is a verbatim piece of a text file (Markdown), so a secret is reported
	// at its place in that file; 0 otherwise.
	BodyLine int
	Batch    vault.BatchItem
	// Notes say what was adapted to fit (an unknown key's value written
	// as a string); the memory is still imported.
	Notes []string
}

// Problem is a piece of a source that is not imported, and why. Reasons
// never quote the content: a secret is named by rule and position only.
type Problem struct {
	Pos    string `json:"pos"`
	Reason string `json:"reason"`
	// Deliberate marks a skip that loses nothing and needs no fix: an item
	// already imported unchanged, a file a secret-file or --skip pattern
	// keeps unread, a symbolic link not followed, an empty file or
	// section. Every other skip is an item refused (a secret, a malformed
	// line, an oversized or invalid item) and makes `memvault import` exit
	// with status 3.
	Deliberate bool `json:"deliberate,omitempty"`
}

func (p Problem) String() string { return p.Pos + ": " + p.Reason }

// stableID derives an id from where a memory comes from, so importing the
// same source again finds the same ids and skips what is already there:
// prefix, a readable slug, and 8 hex digits of a hash of the key.
func stableID(prefix, slugOf, key string) string {
	sum := sha256.Sum256([]byte(key))
	slug := vault.Slug(slugOf)
	if r := []rune(slug); len(r) > 40 {
		slug = strings.TrimRight(string(r[:40]), "-")
	}
	return prefix + "-" + slug + "-" + hex.EncodeToString(sum[:4])
}

// guard runs the secret scanner over what an item would write and returns
// a problem naming the first finding, or nil.
func guard(it Item) *Problem {
	n := it.Batch.Memory
	where := func(f secret.Finding, field string) *Problem {
		return &Problem{Pos: it.Pos, Reason: fmt.Sprintf("secret %s at line %d, column %d of the %s", f.Rule, f.Line, f.Column, field)}
	}
	if fs := secret.Scan([]byte(n.Content)); len(fs) > 0 {
		f := fs[0]
		if it.BodyLine > 0 {
			return &Problem{Pos: fmt.Sprintf("%s:%d:%d", filePart(it.Pos), it.BodyLine+f.Line-1, f.Column),
				Reason: "secret " + f.Rule}
		}
		return where(f, "body")
	}
	fields := []struct {
		name string
		vals []string
	}{{"title", []string{n.Title}}, {"tags", n.Tags}, {"aliases", n.Aliases}}
	if it.Batch.Keep != nil {
		var extra []string
		for _, x := range it.Batch.Keep.Extra {
			extra = append(extra, fmt.Sprint(x.Value))
		}
		fields = append(fields, struct {
			name string
			vals []string
		}{"extra keys", extra})
	}
	for _, fl := range fields {
		if fs := secret.Scan([]byte(strings.Join(fl.vals, "\n"))); len(fs) > 0 {
			return where(fs[0], fl.name)
		}
	}
	return nil
}

// filePart strips a ":line" suffix from a position.
func filePart(pos string) string {
	if i := strings.LastIndexByte(pos, ':'); i > 0 && strings.Trim(pos[i+1:], "0123456789") == "" {
		return pos[:i]
	}
	return pos
}
