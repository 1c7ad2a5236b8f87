package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

// mcpServerName is the key memvault's entry has under mcpServers.
const mcpServerName = "memvault"

// mcpClient is an MCP client whose project configuration init can write.
type mcpClient struct {
	name string // the --client value
	// file is the configuration's path relative to the project root.
	file string
	// typed clients get "type": "stdio" and an "env" object, as their own
	// CLI writes them.
	typed bool
}

// mcpClients are the clients init --client knows. Both read a JSON file
// in the project whose mcpServers object maps a name to a command, its
// args and env: Claude Code's project-scope .mcp.json and Cursor's
// .cursor/mcp.json.
var mcpClients = []mcpClient{
	{name: "claude-code", file: ".mcp.json", typed: true},
	{name: "cursor", file: filepath.Join(".cursor", "mcp.json")},
}

func findClient(name string) (mcpClient, error) {
	var names []string
	for _, c := range mcpClients {
		if c.name == name {
			return c, nil
		}
		names = append(names, c.name)
	}
	return mcpClient{}, usagef("--client %q: want one of %s", name, strings.Join(names, ", "))
}

// serverEntry is what init writes for memvault under mcpServers.
type serverEntry struct {
	Command string
	Args    []string
}

// configResult says what writeClientConfig did.
type configResult int

const (
	configCreated configResult = iota
	configAdded                // the file existed; memvault's entry was added
	configUpdated              // memvault's entry changed (another binary path or vault)
	configUnchanged
)

// writeClientConfig puts memvault's entry into the client's configuration
// file at path, creating the file (and its folder) when missing. Every
// other key of the file, and every other server, keeps its content and
// its place; keys the user added to memvault's own entry (env, for one)
// are kept too. A file that is not valid JSON, or whose top level or
// mcpServers is not an object, is refused and left untouched.
func writeClientConfig(path string, c mcpClient, e serverEntry) (configResult, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	existed := err == nil
	out, res, err := mergeClientConfig(data, c, e)
	if err != nil {
		return 0, usageError{fmt.Errorf("%s%w; fix the file or move it away: memvault does not overwrite a file it cannot read", path, err)}
	}
	if res == configUnchanged {
		return res, nil
	}
	if !existed {
		res = configCreated
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	// Write beside and rename, so an interrupted write never leaves half
	// a configuration that the client then fails to parse.
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return 0, fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return 0, err
	}
	if err := tmp.Close(); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	return res, nil
}

// mergeClientConfig returns data with memvault's entry set. Errors start
// with ":line:column: " or ": " so the caller prefixes the file name.
func mergeClientConfig(data []byte, c mcpClient, e serverEntry) ([]byte, configResult, error) {
	root := &jsonObject{}
	if len(bytes.TrimSpace(data)) > 0 {
		var err error
		if root, err = parseObject(data); err != nil {
			return nil, 0, err
		}
	}
	servers := &jsonObject{}
	if raw, ok := root.get("mcpServers"); ok {
		var err error
		if servers, err = parseObject(raw); err != nil {
			return nil, 0, fmt.Errorf(": mcpServers%w", stripPosition(err))
		}
	}
	entry := &jsonObject{}
	res := configAdded
	if raw, ok := servers.get(mcpServerName); ok {
		var err error
		if entry, err = parseObject(raw); err != nil {
			return nil, 0, fmt.Errorf(": mcpServers.%s%w", mcpServerName, stripPosition(err))
		}
		res = configUpdated
	}
	before := entry.clone()
	if c.typed {
		if _, ok := entry.get("type"); !ok {
			// First, where the client's own CLI puts it.
			entry.set("type", mustJSON("stdio"))
			entry.keys = append([]string{"type"}, entry.keys[:len(entry.keys)-1]...)
		}
	}
	entry.set("command", mustJSON(e.Command))
	entry.set("args", mustJSON(e.Args))
	if c.typed {
		if _, ok := entry.get("env"); !ok {
			entry.set("env", json.RawMessage("{}"))
		}
	}
	if res == configUpdated && entry.equal(before) {
		return data, configUnchanged, nil
	}
	servers.set(mcpServerName, entry.encode())
	root.set("mcpServers", servers.encode())
	var out bytes.Buffer
	if err := json.Indent(&out, root.encode(), "", "  "); err != nil {
		return nil, 0, fmt.Errorf(": %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), res, nil
}

// jsonObject is a JSON object that keeps its keys in file order, with
// each value kept as it was written.
type jsonObject struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseObject reads a JSON object. A syntax error names the line and
// column; a valid document that is not an object says what it is.
func parseObject(data []byte) (*jsonObject, error) {
	if err := checkJSON(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf(": %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf(": want a JSON object, found %s", tokenKind(tok))
	}
	o := &jsonObject{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf(": %w", err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf(": %w", err)
		}
		// A repeated key: the last one wins, as in encoding/json, and it
		// keeps the first one's place.
		o.set(key, v)
	}
	return o, nil
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
		return fmt.Errorf(":%d:%d: invalid JSON: %s", line, col, msg)
	}
	return fmt.Errorf(": invalid JSON: %w", err)
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

// stripPosition drops the leading ":" of a nested error, whose position
// would be relative to the nested value rather than the file.
func stripPosition(err error) error {
	msg := err.Error()
	if i := strings.Index(msg, ": "); i >= 0 {
		msg = msg[i:]
	}
	return errors.New(msg)
}

func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return "an array"
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

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// temporaryBuild reports whether the running binary is one `go run`
// builds in a temporary folder and deletes afterwards: a client
// configuration must not point there.
func temporaryBuild(exe string) bool {
	tmp := filepath.Clean(os.TempDir()) + string(filepath.Separator)
	return strings.HasPrefix(exe, tmp) && strings.Contains(exe, string(filepath.Separator)+"go-build")
}
