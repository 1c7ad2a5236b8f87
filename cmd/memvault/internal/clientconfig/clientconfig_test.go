package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the .golden files in testdata")

// The entry the golden files were written with.
var testEntry = Entry{Command: "/usr/local/bin/memvault", Args: []string{"serve"}}

// TestMergeGolden merges memvault's entry into every file in
// testdata for each client and compares the result (or the
// error) with the .golden file beside it; -update rewrites them.
func TestMergeGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		for _, c := range Clients() {
			name := strings.TrimSuffix(filepath.Base(in), ".json") + "." + c.Name
			t.Run(name, func(t *testing.T) {
				golden := strings.TrimSuffix(in, ".json") + "." + c.Name + ".golden"
				compareGolden(t, in, golden, func(data []byte) ([]byte, Result, error) { return Merge(data, c, testEntry) })
			})
		}
	}
}

// compareGolden runs merge on the file in and compares the result, or
// the error, with the file golden; -update rewrites golden. It returns
// the input and the output, nil after an error.
func compareGolden(t *testing.T, in, golden string, merge func([]byte) ([]byte, Result, error)) (data, out []byte) {
	t.Helper()
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	out, res, err := merge(data)
	var got string
	if err != nil {
		got = "error" + err.Error() + "\n"
	} else {
		got = "result: " + res.String() + "\n" + string(out)
	}
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("merge %s:\ngot:\n%s\nwant:\n%s", in, got, want)
	}
	return data, out
}

// TestMerge checks the properties the golden files show, so
// a wrong golden file cannot hide a broken merge.
func TestMerge(t *testing.T) {
	claude, cursor := Clients()[0], Clients()[1]
	tests := []struct {
		name      string
		in        string
		client    Client
		wantRes   Result
		wantErr   string // substring; "" means success
		wantEntry map[string]any
	}{
		{
			name: "empty file", in: "", client: claude, wantRes: Added,
			wantEntry: map[string]any{"type": "stdio", "command": testEntry.Command, "args": []any{"serve"}, "env": map[string]any{}},
		},
		{
			name: "cursor entry has no type or env", in: `{}`, client: cursor, wantRes: Added,
			wantEntry: map[string]any{"command": testEntry.Command, "args": []any{"serve"}},
		},
		{
			name:    "other servers kept",
			in:      `{"mcpServers": {"a": {"command": "x", "args": ["1"]}, "b": {"url": "https://b"}}, "z": [1, 2]}`,
			client:  claude,
			wantRes: Added,
		},
		{
			name:    "old entry updated, the user's keys kept",
			in:      `{"mcpServers": {"memvault": {"command": "/old", "args": ["serve"], "env": {"K": "v"}, "disabled": false}}}`,
			client:  claude,
			wantRes: Updated,
			wantEntry: map[string]any{"type": "stdio", "command": testEntry.Command, "args": []any{"serve"},
				"env": map[string]any{"K": "v"}, "disabled": false},
		},
		{
			name:    "same entry, other formatting: unchanged",
			in:      `{"mcpServers":{"memvault":{"env":{},"args":["serve"],"command":"/usr/local/bin/memvault","type":"stdio"}}}`,
			client:  claude,
			wantRes: Unchanged,
		},
		{name: "syntax error", in: "{\n  \"mcpServers\": {,}\n}", client: claude, wantErr: ":2:18: invalid JSON: invalid character ','"},
		{name: "truncated", in: "{\n  \"mcpServers\": {", client: claude, wantErr: ":2:18: invalid JSON: unexpected end of file"},
		{name: "top level array", in: `[]`, client: claude, wantErr: ": want a JSON object, found an array"},
		{name: "top level string", in: `"x"`, client: cursor, wantErr: ": want a JSON object, found a string"},
		{name: "mcpServers not an object", in: `{"mcpServers": 3}`, client: claude, wantErr: ": mcpServers: want a JSON object, found a number"},
		{name: "entry not an object", in: `{"mcpServers": {"memvault": null}}`, client: claude, wantErr: ": mcpServers.memvault: want a JSON object, found null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, res, err := Merge([]byte(tt.in), tt.client, testEntry)
			if !checkResult(t, tt.in, out, res, err, tt.wantErr, tt.wantRes) {
				return
			}
			checkMerged(t, []byte(tt.in), out)
			if tt.wantEntry != nil {
				var got struct {
					MCPServers map[string]map[string]any `json:"mcpServers"`
				}
				if err := json.Unmarshal(out, &got); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.MCPServers[ServerName], tt.wantEntry) {
					t.Errorf("entry = %v, want %v", got.MCPServers[ServerName], tt.wantEntry)
				}
			}
			// Merging again changes nothing.
			again, res, err := Merge(out, tt.client, testEntry)
			if err != nil || res != Unchanged || !bytes.Equal(again, out) {
				t.Errorf("second merge: result %v, err %v, changed %v", res, err, !bytes.Equal(again, out))
			}
		})
	}
}

// checkResult checks what a merge of in returned: an *InvalidError with
// the prefix wantErr when there is one, else wantRes, and in itself when
// Unchanged. It reports whether out is a new file left to check.
func checkResult(t *testing.T, in string, out []byte, res Result, err error, wantErr string, wantRes Result) bool {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.HasPrefix(err.Error(), wantErr) {
			t.Fatalf("err = %v, want prefix %q", err, wantErr)
		}
		var inv *InvalidError
		if !errors.As(err, &inv) {
			t.Errorf("err is %T, want *InvalidError", err)
		}
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	if res != wantRes {
		t.Errorf("result = %v, want %v", res, wantRes)
	}
	if res == Unchanged {
		if string(out) != in {
			t.Errorf("unchanged merge rewrote the file:\n%s", out)
		}
		return false
	}
	return true
}

// checkMerged fails unless out holds every top-level key and every other
// server of in, with the same values, in the same order, and a memvault
// entry that runs testEntry.
func checkMerged(t *testing.T, in, out []byte) {
	t.Helper()
	before, after := checkKept(t, in, out, "mcpServers")
	servers, _ := after["mcpServers"].(map[string]any)
	entry, _ := servers[ServerName].(map[string]any)
	if entry["command"] != testEntry.Command || !reflect.DeepEqual(entry["args"], []any{"serve"}) {
		t.Errorf("memvault entry = %v", entry)
	}
	old, _ := before["mcpServers"].(map[string]any)
	for name, s := range old {
		if name != ServerName && !reflect.DeepEqual(servers[name], s) {
			t.Errorf("server %s: got %v, want %v", name, servers[name], s)
		}
	}
}

// checkKept decodes in and out, and fails unless out is JSON holding every
// top-level key of in but skip with the same value, in the same order.
func checkKept(t *testing.T, in, out []byte, skip string) (before, after map[string]any) {
	t.Helper()
	if len(bytes.TrimSpace(in)) > 0 {
		if err := json.Unmarshal(in, &before); err != nil {
			t.Fatalf("input: %v", err)
		}
	}
	if err := json.Unmarshal(out, &after); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	for k, v := range before {
		if k != skip && !reflect.DeepEqual(after[k], v) {
			t.Errorf("key %s: got %v, want %v", k, after[k], v)
		}
	}
	if b, a := topKeys(t, in), topKeys(t, out); len(b) > 0 && !reflect.DeepEqual(a[:len(b)], b) && !reflect.DeepEqual(a, b) {
		t.Errorf("key order: got %v, want %v first", a, b)
	}
	return before, after
}

// topKeys lists an object's keys in file order.
func topKeys(t *testing.T, data []byte) []string {
	t.Helper()
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	o, err := parseObject(data)
	if err != nil {
		t.Fatal(err)
	}
	return o.keys
}

func TestLineColumn(t *testing.T) {
	data := []byte("ab\ncdé\nf")
	tests := []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {7, 2, 4}, {8, 3, 1}, {99, 3, 2}}
	for _, tt := range tests {
		if l, c := lineColumn(data, tt.off); l != tt.line || c != tt.col {
			t.Errorf("lineColumn(%d) = %d:%d, want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
}

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/usr/local/bin/memvault", "/usr/local/bin/memvault"},
		{"/Users/Ann Lee/go/bin/memvault", "'/Users/Ann Lee/go/bin/memvault'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
	}
	for _, tt := range tests {
		if got := ShellQuote(tt.in); got != tt.want {
			t.Errorf("ShellQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzMerge: whatever the file holds, the merge either refuses
// it or keeps everything else and is idempotent.
func FuzzMerge(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, cursor bool) {
		c := Clients()[0]
		if cursor {
			c = Clients()[1]
		}
		out, res, err := Merge(data, c, testEntry)
		if !fuzzChanged(t, data, out, res, err) {
			return
		}
		checkMerged(t, data, out)
		again, res, err := Merge(out, c, testEntry)
		if err != nil || res != Unchanged || !bytes.Equal(again, out) {
			t.Fatalf("second merge: %v %v", res, err)
		}
	})
}

// fuzzChanged checks a merge of fuzzed data: a refusal is fine, an
// Unchanged result must be data itself, and a new file is accepted only
// from a JSON object (or nothing). It reports whether out is a new file
// left to check.
func fuzzChanged(t *testing.T, data, out []byte, res Result, err error) bool {
	t.Helper()
	if err != nil {
		return false
	}
	if res == Unchanged {
		if !bytes.Equal(out, data) {
			t.Fatalf("unchanged but rewritten")
		}
		return false
	}
	if !json.Valid(out) {
		t.Fatalf("output is not JSON: %s", out)
	}
	var before map[string]any
	if len(bytes.TrimSpace(data)) > 0 && json.Unmarshal(data, &before) != nil {
		t.Fatalf("accepted a file that is not a JSON object: %q", data)
	}
	return true
}

// TestWrite checks the file side of Write: what it reports, that it
// creates the folder, keeps the file's mode, leaves an unchanged file
// alone, and refuses an invalid file with its path and position.
func TestWrite(t *testing.T) {
	claude, cursor := Clients()[0], Clients()[1]
	dir := t.TempDir()

	path := filepath.Join(dir, cursor.File)
	res, err := Write(path, cursor, testEntry)
	if err != nil || res != Created {
		t.Fatalf("first write: %v, %v; want created", res, err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no file after created: %v", err)
	}
	before, _ := os.ReadFile(path)
	res, err = Write(path, cursor, testEntry)
	if after, _ := os.ReadFile(path); err != nil || res != Unchanged || !bytes.Equal(after, before) {
		t.Errorf("second write: %v, %v, changed %v; want unchanged", res, err, !bytes.Equal(after, before))
	}

	path = filepath.Join(dir, claude.File)
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"a": {"command": "x"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if res, err := Write(path, claude, testEntry); err != nil || res != Added {
		t.Errorf("write beside another server: %v, %v; want added", res, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after write: %v, %v; want 0600 kept", fi.Mode().Perm(), err)
	}
	other := Entry{Command: "/opt/memvault", Args: []string{"serve"}}
	if res, err := Write(path, claude, other); err != nil || res != Updated {
		t.Errorf("write another command: %v, %v; want updated", res, err)
	}

	bad := "{\n  \"mcpServers\": {,}\n}\n"
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Write(path, claude, testEntry)
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Path != path || inv.Line != 2 || inv.Column != 18 {
		t.Fatalf("err = %#v, want *InvalidError at %s:2:18", err, path)
	}
	if want := path + ":2:18: invalid JSON: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %q, want prefix %q", err, want)
	}
	if data, _ := os.ReadFile(path); string(data) != bad {
		t.Errorf("refused file was changed:\n%s", data)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestFind(t *testing.T) {
	tests := []struct {
		name, wantFile string
		wantErr        bool
	}{
		{"claude-code", ".mcp.json", false},
		{"cursor", filepath.Join(".cursor", "mcp.json"), false},
		{"emacs", "", true},
		{"", "", true},
	}
	for _, tt := range tests {
		c, err := Find(tt.name)
		if tt.wantErr {
			if !errors.Is(err, ErrUnknownClient) || !strings.Contains(err.Error(), "claude-code, cursor") {
				t.Errorf("Find(%q) err = %v, want ErrUnknownClient listing the clients", tt.name, err)
			}
			continue
		}
		if err != nil || c.Name != tt.name || c.File != tt.wantFile {
			t.Errorf("Find(%q) = %+v, %v; want file %s", tt.name, c, err, tt.wantFile)
		}
	}
}

func TestCommandLine(t *testing.T) {
	e := Entry{Command: "/Users/Ann Lee/go/bin/memvault", Args: []string{"serve", "--vault", "/p/it's"}}
	want := `'/Users/Ann Lee/go/bin/memvault' serve --vault '/p/it'\''s'`
	if got := e.CommandLine(); got != want {
		t.Errorf("CommandLine = %s, want %s", got, want)
	}
}
