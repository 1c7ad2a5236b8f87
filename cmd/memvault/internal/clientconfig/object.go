package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// jsonObject is a JSON object that keeps its keys in file order, with
// each value kept as it was written.
type jsonObject struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseObject reads a JSON object. A syntax error names the line and
// column; a valid document that is not an object says what it is.
func parseObject(data []byte) (*jsonObject, error) {
	dec, err := openValue(data, '{')
	if err != nil {
		return nil, err
	}
	o := &jsonObject{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, &InvalidError{Msg: err.Error()}
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, &InvalidError{Msg: err.Error()}
		}
		// A repeated key: the last one wins, as in encoding/json, and it
		// keeps the first one's place.
		o.set(key, v)
	}
	return o, nil
}

// parseArray reads a JSON array, each element kept as it was written.
func parseArray(data []byte) ([]json.RawMessage, error) {
	dec, err := openValue(data, '[')
	if err != nil {
		return nil, err
	}
	var out []json.RawMessage
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, &InvalidError{Msg: err.Error()}
		}
		out = append(out, v)
	}
	return out, nil
}

// openValue validates data and reads its opening delimiter, which must be
// want: '{' or '['.
func openValue(data []byte, want json.Delim) (*json.Decoder, error) {
	if err := checkJSON(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, &InvalidError{Msg: err.Error()}
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		kind := map[json.Delim]string{'{': "object", '[': "array"}[want]
		return nil, &InvalidError{Msg: "want a JSON " + kind + ", found " + tokenKind(tok)}
	}
	return dec, nil
}

// parseDocument reads a configuration file's top level: an object, or
// nothing at all for a new or empty file.
func parseDocument(data []byte) (*jsonObject, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &jsonObject{}, nil
	}
	return parseObject(data)
}

// object returns the object at key (empty when there is none), and
// whether there was one; an error names path, the key's place in the
// file.
func (o *jsonObject) object(key, path string) (*jsonObject, bool, error) {
	raw, ok := o.get(key)
	if !ok {
		return &jsonObject{}, false, nil
	}
	v, err := parseObject(raw)
	if err != nil {
		return nil, true, nested(path, err)
	}
	return v, true, nil
}

// checkJSON validates data and turns a syntax error's byte offset into
// the line and column an editor shows.
func checkJSON(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var syn *json.SyntaxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &syn):
		// Offset counts the bytes read, the bad one included; the end of
		// the input is where a truncated file goes wrong.
		off := syn.Offset - 1
		msg := syn.Error()
		if strings.HasPrefix(msg, "unexpected end") {
			off, msg = int64(len(data)), "unexpected end of file"
		}
		line, col := lineColumn(data, off)
		return &InvalidError{Line: line, Column: col, Msg: "invalid JSON: " + msg}
	}
	return &InvalidError{Msg: "invalid JSON: " + err.Error()}
}

// lineColumn converts a byte offset into a 1-based line and a 1-based
// column counted in characters.
func lineColumn(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, len([]rune(string(before[start:]))) + 1
}

func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			return "an array"
		case '{':
			return "an object"
		}
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

func (o *jsonObject) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *jsonObject) set(k string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *jsonObject) clone() *jsonObject {
	c := &jsonObject{keys: append([]string(nil), o.keys...), vals: map[string]json.RawMessage{}}
	for k, v := range o.vals {
		c.vals[k] = v
	}
	return c
}

// equal compares by meaning: the same keys with the same decoded values.
func (o *jsonObject) equal(p *jsonObject) bool {
	if len(o.vals) != len(p.vals) {
		return false
	}
	for k, v := range o.vals {
		w, ok := p.vals[k]
		if !ok {
			return false
		}
		var a, b any
		if json.Unmarshal(v, &a) != nil || json.Unmarshal(w, &b) != nil || !reflect.DeepEqual(a, b) {
			return false
		}
	}
	return true
}

// encode writes the object compactly in key order; values are compacted
// too, so the caller's indentation is uniform.
func (o *jsonObject) encode() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(k))
		b.WriteByte(':')
		if err := json.Compact(&b, o.vals[k]); err != nil {
			// Values come from a validated document or from mustJSON.
			panic(fmt.Sprintf("compact %s: %v", k, err))
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// indent writes the object as a file: two-space indentation, a final
// newline.
func (o *jsonObject) indent() []byte {
	var out bytes.Buffer
	if err := json.Indent(&out, o.encode(), "", "  "); err != nil {
		// encode writes valid JSON.
		panic(fmt.Sprintf("indent: %v", err))
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// mustJSON encodes strings and string slices, which cannot fail, without
// escaping <, > and & (paths are for people to read).
func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}
