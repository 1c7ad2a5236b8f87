package transfer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
)

// Record is one memory in memvault's JSON Lines export: every front-matter
// field, unknown keys under Extra, the file's vault-relative path and the
// body exactly as in the file.
type Record struct {
	ID          string         `json:"id"`
	Title       string         `json:"title"`
	Layer       string         `json:"layer"`
	Importance  int            `json:"importance"`
	Tags        []string       `json:"tags,omitempty"`
	Aliases     []string       `json:"aliases,omitempty"`
	CreatedAt   time.Time      `json:"created_at,omitzero"`
	UpdatedAt   time.Time      `json:"updated_at,omitzero"`
	EffectiveAt time.Time      `json:"effective_at,omitzero"`
	ExpiresAt   time.Time      `json:"expires_at,omitzero"`
	Status      string         `json:"status,omitempty"`
	Supersedes  []string       `json:"supersedes,omitempty"`
	Links       []string       `json:"links,omitempty"`
	Source      vault.Source   `json:"source,omitzero"`
	Version     int            `json:"version,omitempty"`
	Extra       map[string]any `json:"extra,omitempty"`
	Path        string         `json:"path,omitempty"`
	Body        string         `json:"body"`
}

// RecordOf builds the export record of m from its file's bytes. Fields a
// hand-written file leaves out are written as the vault resolved them (id
// from the path, title from the heading, dates from the file time), so an
// import reproduces the same memory. Tags are the front-matter tags only:
// inline #tags stay in the body.
func RecordOf(m *vault.Memory, file []byte) Record {
	r := Record{
		ID: m.ID, Title: m.Title, Layer: m.Layer.String(), Importance: m.Importance,
		Aliases: m.Aliases, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		EffectiveAt: m.EffectiveAt, ExpiresAt: m.ExpiresAt, Status: string(m.Status),
		Supersedes: m.Supersedes, Links: m.Links, Source: m.Source, Version: m.Version,
		Path: m.Path, Body: m.Body,
	}
	if doc, _ := parser.Parse(m.Path, file); doc != nil {
		r.Tags = doc.Meta.Tags
	}
	r.Extra = extraKeys(file)
	return r
}

// Item converts a record into a batch item that recreates the memory with
// its own id, dates, status, version, source, path and unknown keys. notes
// say how unknown keys that front matter cannot hold as they are were
// kept (see setValue).
func (r Record) Item() (it vault.BatchItem, notes []string, err error) {
	l, err := vault.ParseLayer(cmp.Or(r.Layer, "project"))
	if err != nil {
		return it, nil, err
	}
	st, err := vault.ParseStatus(r.Status)
	if err != nil {
		return it, nil, err
	}
	if r.ID == "" {
		return it, nil, fmt.Errorf("%w: no id", vault.ErrInvalid)
	}
	keep := &vault.Imported{
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), Status: st,
		Version: r.Version, Source: &r.Source, Path: r.Path, ExactBody: true,
	}
	if r.CreatedAt.IsZero() {
		keep.CreatedAt = time.Time{}
	}
	if r.UpdatedAt.IsZero() {
		keep.UpdatedAt = time.Time{}
	}
	for _, k := range slices.Sorted(maps.Keys(r.Extra)) {
		v, note, ok := setValue(r.Extra[k])
		if note != "" {
			notes = append(notes, fmt.Sprintf("extra key %q: %s", k, note))
		}
		if ok {
			keep.Extra = append(keep.Extra, vault.ExtraField{Key: k, Value: v})
		}
	}
	n := vault.NewMemory{
		ID: r.ID, Title: r.Title, Content: r.Body, Layer: l, Tags: r.Tags, Aliases: r.Aliases,
		Importance: r.Importance, EffectiveAt: r.EffectiveAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(),
		Supersedes: r.Supersedes, Links: r.Links,
	}
	if r.EffectiveAt.IsZero() {
		n.EffectiveAt = time.Time{}
	}
	if r.ExpiresAt.IsZero() {
		n.ExpiresAt = time.Time{}
	}
	return vault.BatchItem{Memory: n, Keep: keep}, notes, nil
}

// extraKeys decodes the front-matter keys memvault does not know. YAML is
// decoded here rather than in package parser because only the export needs
// values of keys the parser deliberately leaves alone.
func extraKeys(file []byte) map[string]any {
	fm := frontMatter(file)
	if fm == nil {
		return nil
	}
	var root yaml.Node
	if err := safeYAML(fm, &root); err != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	m := root.Content[0]
	var out map[string]any
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode || vault.IsKnownKey(k.Value) {
			continue
		}
		if _, dup := out[k.Value]; dup {
			continue // the first one wins, as in the parser
		}
		var v any
		if err := m.Content[i+1].Decode(&v); err != nil {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k.Value] = jsonable(v)
	}
	return out
}

// safeYAML decodes with a recover: yaml.v3 panics on a few hostile inputs.
// Front matter that reached here has already been parsed by the vault, so
// alias bombs were refused there.
func safeYAML(fm []byte, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	return yaml.Unmarshal(fm, n)
}

// jsonable turns YAML-decoded values into ones encoding/json accepts
// (map[any]any keys become strings).
func jsonable(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = jsonable(x)
		}
		return v
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fmt.Sprint(k)] = jsonable(x)
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = jsonable(x)
		}
		return v
	}
	return v
}

// frontMatter returns the lines between the opening and closing "---"
// lines, or nil.
func frontMatter(file []byte) []byte {
	file = bytes.TrimPrefix(file, []byte("\xEF\xBB\xBF"))
	first, rest, ok := bytes.Cut(file, []byte("\n"))
	if !ok || !isDelim(first) {
		return nil
	}
	for off := 0; off < len(rest); {
		line, _, _ := bytes.Cut(rest[off:], []byte("\n"))
		if isDelim(line) {
			return rest[:off]
		}
		off += len(line) + 1
	}
	return nil
}

func isDelim(line []byte) bool {
	return bytes.HasPrefix(line, []byte("---")) && string(bytes.TrimRight(line, " \t\r")) == "---"
}

// setValue converts a JSON-decoded extra value (numbers as json.Number)
// into a type parser.Document.Set writes: strings, integers, booleans,
// lists of strings, mappings of strings. What does not fit is kept in the
// closest form and note says how: fractions and non-string list items as
// strings, deeper structures as JSON text. A null value is dropped
// (ok false).
func setValue(v any) (val any, note string, ok bool) {
	switch v := v.(type) {
	case string, bool, int, int64, uint64, time.Time:
		return v, "", true
	case interface{ Int64() (int64, error) }: // json.Number
		if i, err := v.Int64(); err == nil {
			return i, "", true
		}
		return fmt.Sprint(v), "the number is written as a string", true
	case float64:
		if v == float64(int64(v)) {
			return int64(v), "", true
		}
		return strconv.FormatFloat(v, 'g', -1, 64), "the number is written as a string", true
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			s, plain, ok := scalarString(x)
			if !ok {
				return jsonText(v), "the nested value is written as JSON text", true
			}
			if !plain {
				note = "list items are written as strings"
			}
			out = append(out, s)
		}
		return out, note, true
	case map[string]any:
		out := make([]parser.KV, 0, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			s, plain, ok := scalarString(v[k])
			if !ok {
				return jsonText(v), "the nested value is written as JSON text", true
			}
			if !plain {
				note = "mapping values are written as strings"
			}
			out = append(out, parser.KV{Key: k, Value: s})
		}
		return out, note, true
	case nil:
		return nil, "a null value is dropped", false
	}
	return jsonText(v), "the value is written as JSON text", true
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// scalarString renders a plain JSON value as a string; plain says it was
// a string already, ok false means it is not a plain value.
func scalarString(v any) (s string, plain, ok bool) {
	switch v := v.(type) {
	case string:
		return v, true, true
	case bool:
		return strconv.FormatBool(v), false, true
	case interface{ String() string }: // json.Number
		return v.String(), false, true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), false, true
	case nil:
		return "", false, true
	}
	return "", false, false
}
