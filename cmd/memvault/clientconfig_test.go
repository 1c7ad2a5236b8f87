package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The entry the golden files were written with.
var testEntry = serverEntry{Command: "/usr/local/bin/memvault", Args: []string{"serve"}}

func (r configResult) String() string {
	return [...]string{"created", "added", "updated", "unchanged"}[r]
}

// TestMergeClientConfigGolden merges memvault's entry into every file in
// testdata/clientconfig for each client and compares the result (or the
// error) with the .golden file beside it; -update rewrites them.
func TestMergeClientConfigGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "clientconfig", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		for _, c := range mcpClients {
			name := strings.TrimSuffix(filepath.Base(in), ".json") + "." + c.name
			t.Run(name, func(t *testing.T) {
				data, err := os.ReadFile(in)
				if err != nil {
					t.Fatal(err)
				}
				out, res, err := mergeClientConfig(data, c, testEntry)
				var got string
				if err != nil {
					got = "error" + err.Error() + "\n"
				} else {
					got = "result: " + res.String() + "\n" + string(out)
				}
				golden := strings.TrimSuffix(in, ".json") + "." + c.name + ".golden"
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
			})
		}
	}
}

// TestMergeClientConfig checks the properties the golden files show, so
// a wrong golden file cannot hide a broken merge.
func TestMergeClientConfig(t *testing.T) {
	claude, cursor := mcpClients[0], mcpClients[1]
	tests := []struct {
		name      string
		in        string
		client    mcpClient
		wantRes   configResult
		wantErr   string // substring; "" means success
		wantEntry map[string]any
	}{
		{
			name: "empty file", in: "", client: claude, wantRes: configAdded,
			wantEntry: map[string]any{"type": "stdio", "command": testEntry.Command, "args": []any{"serve"}, "env": map[string]any{}},
		},
		{
			name: "cursor entry has no type or env", in: `{}`, client: cursor, wantRes: configAdded,
			wantEntry: map[string]any{"command": testEntry.Command, "args": []any{"serve"}},
		},
		{
			name:    "other servers kept",
			in:      `{"mcpServers": {"a": {"command": "x", "args": ["1"]}, "b": {"url": "https://b"}}, "z": [1, 2]}`,
			client:  claude,
			wantRes: configAdded,
		},
		{
			name:    "old entry updated, the user's keys kept",
			in:      `{"mcpServers": {"memvault": {"command": "/old", "args": ["serve"], "env": {"K": "v"}, "disabled": false}}}`,
			client:  claude,
			wantRes: configUpdated,
			wantEntry: map[string]any{"type": "stdio", "command": testEntry.Command, "args": []any{"serve"},
				"env": map[string]any{"K": "v"}, "disabled": false},
		},
		{
			name:    "same entry, other formatting: unchanged",
			in:      `{"mcpServers":{"memvault":{"env":{},"args":["serve"],"command":"/usr/local/bin/memvault","type":"stdio"}}}`,
			client:  claude,
			wantRes: configUnchanged,
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
			out, res, err := mergeClientConfig([]byte(tt.in), tt.client, testEntry)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res != tt.wantRes {
				t.Errorf("result = %v, want %v", res, tt.wantRes)
			}
			if res == configUnchanged {
				if string(out) != tt.in {
					t.Errorf("unchanged merge rewrote the file:\n%s", out)
				}
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
				if !reflect.DeepEqual(got.MCPServers[mcpServerName], tt.wantEntry) {
					t.Errorf("entry = %v, want %v", got.MCPServers[mcpServerName], tt.wantEntry)
				}
			}
			// Merging again changes nothing.
			again, res, err := mergeClientConfig(out, tt.client, testEntry)
			if err != nil || res != configUnchanged || !bytes.Equal(again, out) {
				t.Errorf("second merge: result %v, err %v, changed %v", res, err, !bytes.Equal(again, out))
			}
		})
	}
}

// checkMerged fails unless out holds every top-level key and every other
// server of in, with the same values, in the same order, and a memvault
// entry that runs testEntry.
func checkMerged(t *testing.T, in, out []byte) {
	t.Helper()
	var before, after map[string]any
	if len(bytes.TrimSpace(in)) > 0 {
		if err := json.Unmarshal(in, &before); err != nil {
			t.Fatalf("input: %v", err)
		}
	}
	if err := json.Unmarshal(out, &after); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	servers, _ := after["mcpServers"].(map[string]any)
	entry, _ := servers[mcpServerName].(map[string]any)
	if entry["command"] != testEntry.Command || !reflect.DeepEqual(entry["args"], []any{"serve"}) {
		t.Errorf("memvault entry = %v", entry)
	}
	for k, v := range before {
		if k == "mcpServers" {
			old, _ := v.(map[string]any)
			for name, s := range old {
				if name != mcpServerName && !reflect.DeepEqual(servers[name], s) {
					t.Errorf("server %s: got %v, want %v", name, servers[name], s)
				}
			}
			continue
		}
		if !reflect.DeepEqual(after[k], v) {
			t.Errorf("key %s: got %v, want %v", k, after[k], v)
		}
	}
	if b, a := topKeys(t, in), topKeys(t, out); len(b) > 0 && !reflect.DeepEqual(a[:len(b)], b) && !reflect.DeepEqual(a, b) {
		t.Errorf("key order: got %v, want %v first", a, b)
	}
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

// TestInitClient runs memvault init --client in-process.
func TestInitClient(t *testing.T) {
	tests := []struct {
		name     string
		client   string
		vault    string // relative to the repository root
		existing string // the config file's content before; "" means none
		wantCode int
		wantFile string // relative to the repository root
		wantArgs []string
		wantOut  []string
	}{
		{
			name: "claude code, new file", client: "claude-code", vault: ".memory",
			wantFile: ".mcp.json", wantArgs: []string{"serve"},
			wantOut: []string{"created ", "claude mcp add --scope project memvault -- /opt/mv/memvault serve", "claude mcp add memvault -- /opt/mv/memvault serve"},
		},
		{
			name: "cursor, beside other servers", client: "cursor", vault: ".memory",
			existing: `{"mcpServers": {"github": {"command": "npx"}}}`,
			wantFile: filepath.Join(".cursor", "mcp.json"), wantArgs: []string{"serve"},
			wantOut: []string{"added the MCP server \"memvault\""},
		},
		{
			name: "a vault elsewhere is named", client: "claude-code", vault: "notes/memory",
			wantFile: ".mcp.json", wantArgs: []string{"serve", "--vault", "<root>/notes/memory"},
			wantOut: []string{"-- /opt/mv/memvault serve --vault "},
		},
		{
			name: "invalid JSON is refused", client: "claude-code", vault: ".memory",
			existing: "{\n  \"mcpServers\": {\n    \"a\": 1,\n  }\n}\n",
			wantCode: exitUsage, wantFile: ".mcp.json",
		},
		{name: "unknown client", client: "emacs", vault: ".memory", wantCode: exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newCLIRepo(t)
			r.dir = filepath.Join(r.root, filepath.FromSlash(tt.vault))
			cfg := filepath.Join(r.root, tt.wantFile)
			if tt.existing != "" {
				if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(cfg, []byte(tt.existing), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, out := r.run("", "init", "--client", tt.client, "--command", "/opt/mv/memvault")
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, out, r.lastStderr)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if tt.wantCode != 0 {
				if tt.existing != "" {
					data, _ := os.ReadFile(cfg)
					if string(data) != tt.existing {
						t.Errorf("refused file was changed:\n%s", data)
					}
					if want := cfg + ":4:3: invalid JSON"; !strings.Contains(r.lastStderr, want) {
						t.Errorf("stderr = %q, want it to contain %q", r.lastStderr, want)
					}
				}
				if tt.client == "emacs" && exists(r.dir) {
					t.Errorf("an unknown client still created the vault")
				}
				return
			}
			data, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				MCPServers map[string]struct {
					Command string   `json:"command"`
					Args    []string `json:"args"`
				} `json:"mcpServers"`
			}
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("%s: %v", cfg, err)
			}
			want := make([]string, len(tt.wantArgs))
			for i, a := range tt.wantArgs {
				want[i] = strings.ReplaceAll(a, "<root>", r.root)
			}
			if e := got.MCPServers[mcpServerName]; e.Command != "/opt/mv/memvault" || !reflect.DeepEqual(e.Args, want) {
				t.Errorf("entry = %+v, want /opt/mv/memvault %v", e, want)
			}
			if tt.existing != "" && len(got.MCPServers) != 2 {
				t.Errorf("servers = %v, want the existing one kept", got.MCPServers)
			}
			// Running it again leaves the file as it is.
			fi, _ := os.Stat(cfg)
			_, out = r.run("", "init", "--client", tt.client, "--command", "/opt/mv/memvault")
			again, _ := os.ReadFile(cfg)
			fi2, _ := os.Stat(cfg)
			if !bytes.Equal(again, data) || !fi2.ModTime().Equal(fi.ModTime()) || !strings.Contains(out, "already runs") {
				t.Errorf("second run changed the file or did not say so:\n%s", out)
			}
		})
	}
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
		if got := shellQuote(tt.in); got != tt.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestTemporaryBuild(t *testing.T) {
	tmp := os.TempDir()
	tests := []struct {
		exe  string
		want bool
	}{
		{filepath.Join(tmp, "go-build1234", "b001", "exe", "memvault"), true},
		{filepath.Join(tmp, "mv", "memvault"), false},
		{"/usr/local/bin/memvault", false},
	}
	for _, tt := range tests {
		if got := temporaryBuild(tt.exe); got != tt.want {
			t.Errorf("temporaryBuild(%s) = %v, want %v", tt.exe, got, tt.want)
		}
	}
}

// FuzzMergeClientConfig: whatever the file holds, the merge either refuses
// it or keeps everything else and is idempotent.
func FuzzMergeClientConfig(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "clientconfig", "*.json"))
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, cursor bool) {
		c := mcpClients[0]
		if cursor {
			c = mcpClients[1]
		}
		out, res, err := mergeClientConfig(data, c, testEntry)
		if err != nil {
			return
		}
		if res == configUnchanged {
			if !bytes.Equal(out, data) {
				t.Fatalf("unchanged but rewritten")
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("output is not JSON: %s", out)
		}
		var before map[string]any
		if len(bytes.TrimSpace(data)) > 0 && json.Unmarshal(data, &before) != nil {
			t.Fatalf("accepted a file that is not a JSON object: %q", data)
		}
		checkMerged(t, data, out)
		again, res, err := mergeClientConfig(out, c, testEntry)
		if err != nil || res != configUnchanged || !bytes.Equal(again, out) {
			t.Fatalf("second merge: %v %v", res, err)
		}
	})
}
