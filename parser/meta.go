package parser

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// maxWarnings caps the warnings of one document.
const maxWarnings = 100

// decodeMeta fills m from the top-level mapping root, appending a warning for
// each field it had to drop. line maps a front-matter line to a file line.
func decodeMeta(m *Meta, root *yaml.Node, path string, line func(int) int, diags []*Error) []*Error {
	warned := 0
	warn := func(n *yaml.Node, field string, err error) {
		// Past maxWarnings, one summary: a hostile file must not turn into
		// a million diagnostics.
		switch warned++; {
		case warned < maxWarnings:
			diags = append(diags, &Error{Path: path, Line: line(n.Line), Field: field, Err: err, Severity: SeverityWarning})
		case warned == maxWarnings:
			diags = append(diags, &Error{Path: path, Line: line(n.Line), Field: field, Err: fmt.Errorf("%w (too many problems: the rest are not reported)", err), Severity: SeverityWarning})
		}
	}
	c := root.Content
	first := firstKeys(root)
	for i := 0; i+1 < len(c); i += 2 {
		k, v := c[i], resolveAlias(c[i+1])
		if k.Kind != yaml.ScalarNode {
			continue // a complex key cannot be one of ours; kept as written
		}
		key := k.Value
		if j := first(key); j != i {
			warn(k, key, fmt.Errorf("%w: first written at line %d, this one is ignored", ErrDuplicateKey, line(c[j].Line)))
			continue
		}
		if isNull(v) {
			continue
		}
		var err error
		switch key {
		case "id":
			m.ID, err = decodeString(v)
		case "title":
			m.Title, err = decodeString(v)
		case "layer":
			m.Layer, err = decodeString(v)
		case "status":
			m.Status, err = decodeString(v)
		case "importance":
			m.Importance, err = decodeInt(v)
		case "version":
			m.Version, err = decodeInt(v)
		case "tags":
			m.Tags, err = decodeList(v, true, true, func(n *yaml.Node, err error) { warn(n, key, err) })
		case "aliases":
			m.Aliases, err = decodeList(v, false, false, func(n *yaml.Node, err error) { warn(n, key, err) })
		case "supersedes":
			m.Supersedes, err = decodeList(v, true, false, func(n *yaml.Node, err error) { warn(n, key, err) })
		case "links":
			m.Links, err = decodeList(v, true, false, func(n *yaml.Node, err error) { warn(n, key, err) })
		case "refs":
			m.Refs, err = decodeList(v, false, false, func(n *yaml.Node, err error) { warn(n, key, err) })
		case "verified_at":
			m.VerifiedAt, err = decodeTime(v)
		case "created_at":
			m.CreatedAt, err = decodeTime(v)
		case "updated_at":
			m.UpdatedAt, err = decodeTime(v)
		case "effective_at":
			m.EffectiveAt, err = decodeTime(v)
		case "expires_at":
			m.ExpiresAt, err = decodeTime(v)
		case "source":
			m.Source, err = decodeSource(v, func(n *yaml.Node, err error) { warn(n, key, err) })
		}
		if err != nil {
			warn(v, key, err)
		}
	}
	return diags
}

// firstKeys returns a lookup of the index of the first occurrence of a key:
// a linear scan for the usual small mapping, a map for big hostile ones.
func firstKeys(m *yaml.Node) func(string) int {
	if len(m.Content) <= 64 {
		return func(key string) int { return findKey(m, key) }
	}
	idx := make(map[string]int, len(m.Content)/2)
	for i := len(m.Content) - 2; i >= 0; i -= 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode {
			idx[k.Value] = i
		}
	}
	return func(key string) int { return idx[key] }
}

// resolveAlias follows an alias to its anchored node (a few hops at most).
func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; i < 4 && n != nil && n.Kind == yaml.AliasNode && n.Alias != nil; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	if n == nil {
		return true
	}
	if n.Kind != yaml.ScalarNode {
		return false
	}
	if n.Tag == "" && n.Style == 0 { // a plain scalar from fastYAML: skip resolving it
		switch n.Value {
		case "", "~", "null", "Null", "NULL":
			return true
		}
		return false
	}
	return n.ShortTag() == "!!null"
}

// kindName describes a node for "want X, got Y" messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return strconv.Quote(n.Value)
	}
	return "an alias"
}

func decodeString(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("%w: want a string, got %s", ErrType, kindName(n))
	}
	return n.Value, nil
}

func decodeInt(n *yaml.Node) (*int, error) {
	if n.Kind == yaml.ScalarNode {
		if v, err := strconv.Atoi(strings.TrimSpace(n.Value)); err == nil {
			return &v, nil
		}
	}
	return nil, fmt.Errorf("%w: want an integer, got %s", ErrType, kindName(n))
}

// decodeList reads a sequence of scalars, or a single string (split on
// commas when split is set). Items that are not scalars are reported through
// warn and skipped. tags strips leading '#'. Empty items are dropped.
func decodeList(n *yaml.Node, split, tags bool, warn func(*yaml.Node, error)) ([]string, error) {
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if tags {
			s = strings.TrimSpace(strings.TrimLeft(s, "#"))
		}
		if s != "" {
			out = append(out, s)
		}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() != "!!str" {
			return nil, fmt.Errorf("%w: want a list, got %s", ErrType, kindName(n))
		}
		if !split {
			add(n.Value)
			break
		}
		for part := range strings.FieldsFuncSeq(n.Value, func(r rune) bool { return r == ',' || r == '，' }) {
			add(part)
		}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			item = resolveAlias(item)
			switch {
			case isNull(item):
			case item.Kind == yaml.ScalarNode:
				add(item.Value)
			default:
				warn(item, fmt.Errorf("%w: want a string item, got %s", ErrType, kindName(item)))
			}
		}
	default:
		return nil, fmt.Errorf("%w: want a list, got %s", ErrType, kindName(n))
	}
	return out, nil
}

// timeLayouts are tried in order; layouts without a zone read as UTC. Go
// accepts a fractional second after the seconds field even when the layout
// has none.
var timeLayouts = [...]string{
	time.RFC3339,
	"2006-1-2T15:4:5Z07:00",
	"2006-1-2t15:4:5Z07:00",
	"2006-1-2T15:4:5",
	"2006-1-2 15:4:5Z07:00",
	"2006-1-2 15:4:5 Z07:00",
	"2006-1-2 15:4:5",
	"2006-1-2",
}

func decodeTime(n *yaml.Node) (*time.Time, error) {
	if n.Kind == yaml.ScalarNode {
		if t, ok := parseTime(n.Value); ok {
			return &t, nil
		}
	}
	return nil, fmt.Errorf("%w: want a date like 2006-01-02T15:04:05Z, got %s", ErrType, kindName(n))
}

func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if len(s) < len("2006-1-2") || s[0] < '0' || s[0] > '9' {
		return time.Time{}, false
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func decodeSource(n *yaml.Node, warn func(*yaml.Node, error)) (Source, error) {
	var s Source
	if n.Kind != yaml.MappingNode {
		return s, fmt.Errorf("%w: want a mapping like {client: x, kind: y}, got %s", ErrType, kindName(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolveAlias(n.Content[i+1])
		var dst *string
		switch k.Value {
		case "client":
			dst = &s.Client
		case "kind":
			dst = &s.Kind
		default:
			continue
		}
		if isNull(v) {
			continue
		}
		str, err := decodeString(v)
		if err != nil {
			warn(v, fmt.Errorf("%s: %w", k.Value, err))
			continue
		}
		*dst = str
	}
	return s, nil
}
