package transfer

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

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
	doc, _ := parser.Parse(m.Path, file)
	if doc != nil {
		r.Tags = doc.Meta.Tags
	}
	r.Extra = extraKeys(doc)
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

// extraKeys returns the values of the front-matter keys memvault does not
// know, decoded by the parser (the only home of YAML), first occurrence of
// each key.
func extraKeys(doc *parser.Document) map[string]any {
	if doc == nil {
		return nil
	}
	var out map[string]any
	for _, k := range doc.Keys() {
		if vault.IsKnownKey(k) {
			continue
		}
		if _, dup := out[k]; dup {
			continue
		}
		v, ok := doc.Value(k)
		if !ok {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = v
	}
	return out
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
