package transfer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/memvault/memvault/vault"
)

// MaxLineBytes bounds one JSON line: a memory's content is at most
// vault.MaxContentBytes, and JSON escaping can make it several times
// longer. Longer lines are reported and skipped.
const MaxLineBytes = 1 << 20

// lines calls fn for each non-blank line of data with its 1-based number.
func lines(data []byte, fn func(n int, line []byte)) {
	for n := 1; len(data) > 0; n++ {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		line = bytes.TrimRight(line, "\r")
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		fn(n, line)
	}
}

// checkLine reports why a line cannot be decoded before any JSON parsing,
// or "".
func checkLine(line []byte) string {
	switch {
	case len(line) > MaxLineBytes:
		return fmt.Sprintf("line of %d bytes, limit %d", len(line), MaxLineBytes)
	case !utf8.Valid(line):
		return "not valid UTF-8"
	}
	return ""
}

// jsonError describes a decoding error without quoting the input.
func jsonError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se)
	case errors.As(err, &te):
		return fmt.Sprintf("field %q: want %s, got JSON %s", te.Field, te.Type, te.Value)
	}
	return "malformed JSON: " + err.Error()
}

// Detect guesses the format of a JSON Lines source from its first lines:
// "type": "entity" or "relation" is the MCP memory server's graph, "id"
// with "body" is memvault's export.
func Detect(data []byte) (Format, error) {
	seen := 0
	var found Format
	lines(data, func(_ int, line []byte) {
		if found != "" || seen >= 50 || checkLine(line) != "" {
			return
		}
		seen++
		var keys map[string]json.RawMessage
		if json.Unmarshal(line, &keys) != nil {
			return
		}
		var typ string
		_ = json.Unmarshal(keys["type"], &typ)
		_, hasName := keys["name"]
		_, hasFrom := keys["from"]
		_, hasID := keys["id"]
		_, hasBody := keys["body"]
		switch {
		case typ == "entity" && hasName, typ == "relation" && hasFrom:
			found = FormatMCP
		case hasID && hasBody:
			found = FormatJSONL
		}
	})
	if found == "" {
		return "", fmt.Errorf("%w: no line looks like memvault's export (id, body) or an MCP memory graph (type entity/relation)", ErrFormat)
	}
	return found, nil
}

// ParseJSONL reads memvault's own JSON Lines export. name is used in
// positions ("export.jsonl:12"). Malformed lines are reported and skipped.
func ParseJSONL(name string, data []byte) ([]Item, []Problem) {
	var items []Item
	var probs []Problem
	lines(data, func(n int, line []byte) {
		pos := fmt.Sprintf("%s:%d", name, n)
		if why := checkLine(line); why != "" {
			probs = append(probs, Problem{Pos: pos, Reason: why})
			return
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var r Record
		if err := dec.Decode(&r); err != nil {
			probs = append(probs, Problem{Pos: pos, Reason: jsonError(err)})
			return
		}
		if dec.More() {
			probs = append(probs, Problem{Pos: pos, Reason: "more than one JSON value on the line"})
			return
		}
		it, notes, err := r.Item()
		if err != nil {
			probs = append(probs, Problem{Pos: pos, Reason: err.Error()})
			return
		}
		items = append(items, Item{Pos: pos, Batch: it, Notes: notes})
	})
	return items, probs
}

// mcpLine is one line of the MCP memory server's memory.jsonl: an entity
// {"type":"entity","name","entityType","observations":[...]} or a relation
// {"type":"relation","from","to","relationType"}.
type mcpLine struct {
	Type         string    `json:"type"`
	Name         *string   `json:"name"`
	EntityType   *string   `json:"entityType"`
	Observations *[]string `json:"observations"`
	From         *string   `json:"from"`
	To           *string   `json:"to"`
	RelationType *string   `json:"relationType"`
}

type mcpEntity struct {
	name, typ string
	obs       []string
	line      int
}

type mcpRelation struct{ from, to, typ string }

// MCPOptions tunes ParseMCP.
type MCPOptions struct {
	// Layer puts every entity in this layer; 0 chooses by entity type
	// (see LayerForEntity).
	Layer vault.Layer
}

// ParseMCP reads the knowledge graph file of the MCP memory server
// (modelcontextprotocol/servers, src/memory). Each entity becomes one
// memory: title = name, body = the observations as a list plus a Relations
// section with [[wiki links]], tags = the entity type, links = ids of the
// entities its relations point to. Ids derive from the entity name, so a
// second import of the same file finds every memory already there.
// Entities written twice are merged (observations deduplicated), as the
// server would never store them twice.
func ParseMCP(name string, data []byte, opts MCPOptions) ([]Item, []Problem) {
	var probs []Problem
	var order []string
	ents := map[string]*mcpEntity{}
	var rels []mcpRelation
	seenRel := map[mcpRelation]bool{}
	lines(data, func(n int, line []byte) {
		pos := fmt.Sprintf("%s:%d", name, n)
		if why := checkLine(line); why != "" {
			probs = append(probs, Problem{Pos: pos, Reason: why})
			return
		}
		var l mcpLine
		if err := json.Unmarshal(line, &l); err != nil {
			probs = append(probs, Problem{Pos: pos, Reason: jsonError(err)})
			return
		}
		switch l.Type {
		case "entity":
			if l.Name == nil || strings.TrimSpace(*l.Name) == "" || l.EntityType == nil || l.Observations == nil {
				probs = append(probs, Problem{Pos: pos, Reason: "entity without name, entityType or observations"})
				return
			}
			nm := strings.TrimSpace(*l.Name)
			e := ents[nm]
			if e == nil {
				e = &mcpEntity{name: nm, typ: strings.TrimSpace(*l.EntityType), line: n}
				ents[nm] = e
				order = append(order, nm)
			}
			for _, o := range *l.Observations {
				if o = strings.TrimSpace(o); o != "" && !slices.Contains(e.obs, o) {
					e.obs = append(e.obs, o)
				}
			}
		case "relation":
			if l.From == nil || l.To == nil || l.RelationType == nil || strings.TrimSpace(*l.From) == "" || strings.TrimSpace(*l.To) == "" {
				probs = append(probs, Problem{Pos: pos, Reason: "relation without from, to or relationType"})
				return
			}
			r := mcpRelation{strings.TrimSpace(*l.From), strings.TrimSpace(*l.To), strings.TrimSpace(*l.RelationType)}
			if !seenRel[r] {
				seenRel[r] = true
				rels = append(rels, r)
			}
		default:
			probs = append(probs, Problem{Pos: pos, Reason: fmt.Sprintf("unknown record type %q (want entity or relation)", truncate(l.Type, 40))})
		}
	})
	out := make([]Item, 0, len(order))
	for _, nm := range order {
		e := ents[nm]
		l := opts.Layer
		if l == 0 {
			l = LayerForEntity(e.name, e.typ)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\n", oneLineText(e.name))
		if e.typ != "" {
			fmt.Fprintf(&b, "Type: %s\n\n", oneLineText(e.typ))
		}
		for _, o := range e.obs {
			b.WriteString("- " + strings.ReplaceAll(o, "\n", "\n  ") + "\n")
		}
		var links []string
		var relLines []string
		for _, r := range rels {
			switch nm {
			case r.from:
				relLines = append(relLines, fmt.Sprintf("- %s → %s", r.typ, wiki(r.to)))
				if ents[r.to] != nil && r.to != nm {
					if id := mcpID(r.to); !slices.Contains(links, id) {
						links = append(links, id)
					}
				}
			case r.to:
				relLines = append(relLines, fmt.Sprintf("- %s %s → %s", wiki(r.from), r.typ, oneLineText(nm)))
			}
		}
		if len(relLines) > 0 {
			b.WriteString("\n## Relations\n\n" + strings.Join(relLines, "\n") + "\n")
		}
		tags := []string{"knowledge-graph"}
		if t := tagOf(e.typ); t != "" {
			tags = append([]string{t}, tags...)
		}
		out = append(out, Item{
			Pos: fmt.Sprintf("%s:%d", name, e.line),
			Batch: vault.BatchItem{Memory: vault.NewMemory{
				ID: mcpID(nm), Title: e.name, Content: b.String(), Layer: l, Tags: tags,
				Links: links, Kind: "import",
			}},
		})
	}
	return out, probs
}

// mcpID is the stable id of an entity of the MCP memory graph.
func mcpID(name string) string { return stableID("kg", name, "mcp-memory\x00"+name) }

// LayerForEntity picks the layer of an MCP memory entity: what the graph
// says about the user (the server's conventional "default_user" entity),
// their preferences and habits is a preference (L4), anything else project
// knowledge (L3).
func LayerForEntity(name, entityType string) vault.Layer {
	if n := strings.ToLower(name); n == "default_user" || n == "user" {
		return vault.Preference
	}
	t := strings.ToLower(entityType)
	for _, w := range []string{"preference", "habit", "user", "偏好", "习惯"} {
		if strings.Contains(t, w) {
			return vault.Preference
		}
	}
	return vault.Project
}

// wiki links a name as [[name]] when the name can be a wiki-link target.
func wiki(name string) string {
	if strings.ContainsAny(name, "[]|#\n\r") {
		return oneLineText(name)
	}
	return "[[" + name + "]]"
}

// tagOf turns an entity type into a tag: trimmed, no characters a tag
// cannot hold, at most vault.MaxTagRunes.
func tagOf(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ',', '[', ']', '\n', '\r', '#':
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	return truncate(s, vault.MaxTagRunes)
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
