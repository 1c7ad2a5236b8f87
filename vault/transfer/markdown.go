package transfer

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
)

// MarkdownOptions tunes ParseMarkdown.
type MarkdownOptions struct {
	// Layer puts every memory in this layer; 0 chooses by the file's role
	// (see RoleOf).
	Layer vault.Layer
	// ModTime stands in for missing dates of memvault files.
	ModTime time.Time
	// VaultLayout says the file sits in a layer folder (project/, meta/,
	// ...) of a folder laid out like a vault, such as a Markdown export: it
	// is read as the vault reads it, id derived from the path when the
	// front matter has none.
	VaultLayout bool
}

// Role is what a Markdown file is for, which decides its layer, tags and
// whether it is split into sections.
type Role struct {
	Layer      vault.Layer
	Importance int      // 0: the default
	Tags       []string // added to the file's own tags
	// Sections splits the file at its "## " headings, one memory each:
	// instruction files (CLAUDE.md, AGENTS.md) are lists of separate rules.
	Sections bool
}

// memoryBank maps the core files of a Cline memory bank to their roles:
// the brief and the patterns last, the active context and the progress
// change week by week.
var memoryBank = map[string]Role{
	"projectbrief.md":   {Layer: vault.Project, Importance: 8},
	"productcontext.md": {Layer: vault.Project, Importance: 6},
	"systempatterns.md": {Layer: vault.Project, Importance: 7},
	"techcontext.md":    {Layer: vault.Project, Importance: 6},
	"activecontext.md":  {Layer: vault.ShortTerm},
	"progress.md":       {Layer: vault.ShortTerm},
}

// instructionFiles are the per-project instruction files of assistants.
var instructionFiles = []string{"claude.md", "claude.local.md", "agents.md", "gemini.md", ".cursorrules", ".windsurfrules", ".clinerules"}

// RoleOf returns the role of the Markdown file at the slash path rel.
func RoleOf(rel string) Role {
	base := strings.ToLower(path.Base(rel))
	if r, ok := memoryBank[base]; ok {
		r.Tags = []string{"memory-bank"}
		return r
	}
	for _, f := range instructionFiles {
		if base == f {
			return Role{Layer: vault.Project, Tags: []string{strings.TrimPrefix(strings.TrimSuffix(base, ".md"), ".")}, Sections: true}
		}
	}
	if strings.Contains(strings.ToLower(rel), "memory-bank/") {
		return Role{Layer: vault.Project, Tags: []string{"memory-bank"}}
	}
	return Role{Layer: vault.Project}
}

// ParseMarkdown turns one Markdown file into memories. rel is its slash
// path inside the imported folder (used for positions, roles and ids).
//
//   - A memvault memory file (front matter with an id, or any file in a
//     layer folder of a vault-shaped folder, see VaultLayout) is imported
//     as it is: same id, fields and body.
//   - An instruction file (CLAUDE.md, AGENTS.md, ...) gives one memory per
//     "## " section, titled by the heading; text before the first section
//     is one more memory when it says more than a title.
//   - Any other file is one memory: title from the front matter, the first
//     "# " heading or the file name; the body is the text as written.
//
// Ids derive from rel (and the section), so importing the same folder
// again skips what is already there.
func ParseMarkdown(rel string, data []byte, opts MarkdownOptions) ([]Item, []Problem) {
	doc, diags := parser.Parse(rel, data)
	if doc == nil {
		return nil, []Problem{{Pos: posLine(rel, diags[0].Line), Reason: diags[0].Err.Error()}}
	}
	if opts.VaultLayout || doc.HasFrontMatter() && doc.Meta.ID != "" {
		m, _ := vault.ParseMemory(rel, data, opts.ModTime)
		if m == nil {
			return nil, []Problem{{Pos: rel, Reason: "not a readable memory file"}}
		}
		r := RecordOf(m, data)
		if opts.Layer != 0 {
			r.Layer = opts.Layer.String()
		}
		it, notes, err := r.Item()
		if err != nil {
			return nil, []Problem{{Pos: rel, Reason: err.Error()}}
		}
		return []Item{{Pos: rel, Batch: it, Notes: notes}}, nil
	}
	role := RoleOf(rel)
	if opts.Layer != 0 {
		role.Layer = opts.Layer
	}
	body := doc.BodyBytes()
	bodyLine := 1 + bytes.Count(data[:len(data)-len(body)], []byte("\n"))
	if !doc.HasFrontMatter() {
		body = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
		bodyLine = 1
	}
	tags := append(append([]string(nil), doc.Meta.Tags...), role.Tags...)
	newItem := func(pos string, line int, key, title, content string) Item {
		return Item{Pos: pos, BodyLine: line, Batch: vault.BatchItem{Memory: vault.NewMemory{
			ID:      stableID("md", strings.TrimSuffix(path.Base(rel), path.Ext(rel))+" "+key, "markdown\x00"+rel+"\x00"+key),
			Title:   title,
			Content: content,
			Layer:   role.Layer, Importance: role.Importance, Tags: tags, Aliases: doc.Meta.Aliases,
			Kind: "import",
		}}}
	}
	fileTitle := firstNonEmpty(doc.Meta.Title, doc.Body.Heading, titleFromName(rel))
	if !role.Sections {
		if len(bytes.TrimSpace(body)) == 0 {
			return nil, []Problem{{Pos: rel, Reason: "empty file", Deliberate: true}}
		}
		return []Item{newItem(rel, bodyLine, "", fileTitle, string(body))}, nil
	}
	var items []Item
	var probs []Problem
	for _, s := range sections(body) {
		text := string(s.text)
		if s.heading == "" {
			// The preamble: keep it unless it is only a title line.
			rest := strings.TrimSpace(text)
			if h := strings.TrimSpace(doc.Body.Heading); h != "" {
				rest = strings.TrimSpace(strings.TrimPrefix(rest, "# "+h))
			}
			if rest == "" {
				continue
			}
			items = append(items, newItem(posLine(rel, bodyLine+s.line-1), bodyLine+s.line-1, "", fileTitle, text))
			continue
		}
		line := bodyLine + s.line - 1
		if len(bytes.TrimSpace(s.text[len(s.headingLine):])) == 0 {
			probs = append(probs, Problem{Pos: posLine(rel, line), Reason: "empty section", Deliberate: true})
			continue
		}
		items = append(items, newItem(posLine(rel, line), line, s.heading, s.heading, text))
	}
	if len(items) == 0 && len(probs) == 0 {
		probs = append(probs, Problem{Pos: rel, Reason: "empty file", Deliberate: true})
	}
	return items, probs
}

// section is one "## " section of a file (or the text before the first).
type section struct {
	heading     string // "" for the preamble
	headingLine []byte
	line        int // 1-based line of the section's first line in the body
	text        []byte
}

// sections splits body at "## " headings outside fenced code blocks.
func sections(body []byte) []section {
	var out []section
	cur := section{line: 1}
	start := 0
	fence := ""
	n := 1
	for off := 0; off < len(body); n++ {
		end := bytes.IndexByte(body[off:], '\n')
		next := len(body)
		if end >= 0 {
			next = off + end + 1
		}
		line := body[off:next]
		trim := strings.TrimRight(string(line), "\r\n")
		t := strings.TrimLeft(trim, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
		case len(trim)-len(t) < 4 && strings.HasPrefix(t, "## "):
			cur.text = body[start:off]
			out = append(out, cur)
			cur = section{heading: cleanHeading(t[3:]), headingLine: line, line: n}
			start = off
		}
		off = next
	}
	cur.text = body[start:]
	out = append(out, cur)
	return out
}

// cleanHeading strips closing #s and surrounding space from a heading.
func cleanHeading(s string) string {
	s = strings.TrimSpace(s)
	if t := strings.TrimRight(s, "#"); t != s && (t == "" || strings.HasSuffix(t, " ")) {
		s = strings.TrimSpace(t)
	}
	return s
}

// titleFromName makes a title of a file name: "activeContext.md" ->
// "active Context", "tech-notes.md" -> "tech notes".
func titleFromName(rel string) string {
	stem := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	var b strings.Builder
	prev := rune(0)
	for _, r := range stem {
		switch {
		case r == '-' || r == '_':
			r = ' '
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteRune(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return strings.TrimSpace(b.String())
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x = strings.TrimSpace(x); x != "" {
			return x
		}
	}
	return ""
}

func posLine(rel string, line int) string {
	if line <= 0 {
		return rel
	}
	return fmt.Sprintf("%s:%d", rel, line)
}
