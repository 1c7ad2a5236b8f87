package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The entry the settings golden files were written with.
var hookEntry = Entry{Command: "/usr/local/bin/memvault"}

// TestMergeHooksGolden merges memvault's hooks into every file in
// testdata/settings and compares the result (or the error) with the
// .golden file beside it; -update rewrites them.
func TestMergeHooksGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "settings", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(strings.TrimSuffix(filepath.Base(in), ".json"), func(t *testing.T) {
			golden := strings.TrimSuffix(in, ".json") + ".golden"
			data, out := compareGolden(t, in, golden, func(data []byte) ([]byte, Result, error) { return MergeHooks(data, hookEntry) })
			if out != nil && !bytes.Equal(out, data) {
				checkHooks(t, data, out, hookEntry)
			}
		})
	}
}

// TestMergeHooks checks the properties the golden files show, so a wrong
// golden file cannot hide a broken merge.
func TestMergeHooks(t *testing.T) {
	vault := Entry{Command: "/usr/local/bin/memvault", Args: []string{"--vault", "/p/team notes"}}
	tests := []struct {
		name    string
		in      string
		entry   Entry
		wantRes Result
		wantErr string // substring; "" means success
		// wantCmd is the command each event's memvault hook runs, by
		// event; nil means the default for entry.
		wantCmd map[string]string
	}{
		{name: "empty file", in: "", entry: hookEntry, wantRes: Added},
		{name: "empty object", in: "{}", entry: hookEntry, wantRes: Added},
		{
			name: "other keys and hooks kept", entry: hookEntry, wantRes: Added,
			in: `{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}], "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]}, "env": {"A": "1"}}`,
		},
		{
			name: "a vault elsewhere is named, quoted", entry: vault, wantRes: Added, in: `{}`,
			wantCmd: map[string]string{
				"SessionStart":     "/usr/local/bin/memvault hook session-start --vault '/p/team notes'",
				"UserPromptSubmit": "/usr/local/bin/memvault hook user-prompt-submit --vault '/p/team notes'",
				"Stop":             "/usr/local/bin/memvault hook stop --vault '/p/team notes'",
			},
		},
		{
			name: "another binary path updated in place, the user's flags kept", entry: hookEntry, wantRes: Updated,
			in:      `{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "/old/memvault hook session-start --budget 6000 --vault /old", "timeout": 30}]}]}}`,
			wantCmd: map[string]string{"SessionStart": "/usr/local/bin/memvault hook session-start --budget 6000"},
		},
		{
			name: "a vault flag replaced", entry: vault, wantRes: Updated,
			in:      `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "memvault --vault=/old hook stop"}]}]}}`,
			wantCmd: map[string]string{"Stop": "/usr/local/bin/memvault hook stop --vault '/p/team notes'"},
		},
		{
			name: "the same hooks, other formatting: unchanged", entry: hookEntry, wantRes: Unchanged,
			in: `{"hooks":{"Stop":[{"hooks":[{"timeout":10,"command":"/usr/local/bin/memvault hook stop","type":"command"}]}],` +
				`"UserPromptSubmit":[{"hooks":[{"type":"command","command":"/usr/local/bin/memvault hook user-prompt-submit"}]}],` +
				`"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"/usr/local/bin/memvault hook session-start"}]}]}}`,
		},
		{name: "syntax error", in: "{\n  \"hooks\": {,}\n}", entry: hookEntry, wantErr: ":2:13: invalid JSON: invalid character ','"},
		{name: "top level array", in: `[]`, entry: hookEntry, wantErr: ": want a JSON object, found an array"},
		{name: "hooks an array", in: `{"hooks": []}`, entry: hookEntry, wantErr: ": hooks: want a JSON object, found an array"},
		{name: "hooks a string", in: `{"hooks": "x"}`, entry: hookEntry, wantErr: ": hooks: want a JSON object, found a string"},
		{name: "hooks null", in: `{"hooks": null}`, entry: hookEntry, wantErr: ": hooks: want a JSON object, found null"},
		{name: "event an object", in: `{"hooks": {"Stop": {}}}`, entry: hookEntry, wantErr: ": hooks.Stop: want a JSON array, found an object"},
		{name: "event a number", in: `{"hooks": {"SessionStart": 1}}`, entry: hookEntry, wantErr: ": hooks.SessionStart: want a JSON array, found a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, res, err := MergeHooks([]byte(tt.in), tt.entry)
			if !checkResult(t, tt.in, out, res, err, tt.wantErr, tt.wantRes) {
				return
			}
			checkHooks(t, []byte(tt.in), out, tt.entry)
			for event, want := range tt.wantCmd {
				if got := ownLines(t, out, event, tt.entry); len(got) != 1 || got[0] != want {
					t.Errorf("%s runs %q, want %q", event, got, want)
				}
			}
		})
	}
}

// checkHooks fails unless out keeps every key of in but hooks, every
// event memvault does not use, and every command that is not memvault's,
// in order; unless each ClaudeHooks event has exactly one memvault
// command; and unless merging out again changes nothing.
func checkHooks(t *testing.T, in, out []byte, e Entry) {
	t.Helper()
	before, after := checkKept(t, in, out, "hooks")
	oldHooks, _ := before["hooks"].(map[string]any)
	newHooks, _ := after["hooks"].(map[string]any)
	ours := map[string]bool{}
	for _, h := range ClaudeHooks() {
		ours[h.Event] = true
		if got := ownLines(t, out, h.Event, e); len(got) != 1 {
			t.Errorf("%s: %d memvault hooks %q, want 1", h.Event, len(got), got)
		}
		if o, n := othersIn(t, in, h.Event, e), othersIn(t, out, h.Event, e); !reflect.DeepEqual(o, n) {
			t.Errorf("%s: other commands\n got %v\nwant %v", h.Event, n, o)
		}
	}
	for event, v := range oldHooks {
		if !ours[event] && !reflect.DeepEqual(newHooks[event], v) {
			t.Errorf("hooks.%s: got %v, want %v", event, newHooks[event], v)
		}
	}
	again, res, err := MergeHooks(out, e)
	if err != nil || res != Unchanged || !bytes.Equal(again, out) {
		t.Errorf("second merge: result %v, err %v, changed %v", res, err, !bytes.Equal(again, out))
	}
}

// eventCommands lists an event's commands in data, each with whether it
// is memvault's, skipping what is not a group of commands.
func eventCommands(t *testing.T, data []byte, event string, e Entry) (own []string, others []string) {
	t.Helper()
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	// Events are decoded one by one: an event memvault does not write may
	// hold anything, and the merge keeps it as it is. Keys are read with
	// the package's own exact-match decoder: encoding/json would match a
	// struct field "hooks" to "hooKs" too, which Claude Code does not.
	root, err := parseObject(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	var groups []json.RawMessage
	if rawHooks, ok := root.get("hooks"); ok {
		hooks, err := parseObject(rawHooks)
		if err != nil {
			t.Fatalf("hooks: %v\n%s", err, data)
		}
		if raw, ok := hooks.get(event); ok {
			if groups, err = parseArray(raw); err != nil {
				t.Fatalf("hooks.%s: %v\n%s", event, err, data)
			}
		}
	}
	h := ClaudeHooks()[0]
	for _, x := range ClaudeHooks() {
		if x.Event == event {
			h = x
		}
	}
	for _, g := range groups {
		group, err := parseObject(g)
		if err != nil {
			continue
		}
		raw, ok := group.get("hooks")
		if !ok {
			continue
		}
		cmds, err := parseArray(raw)
		if err != nil {
			continue
		}
		for _, c := range cmds {
			o, err := parseObject(c)
			if err != nil {
				others = append(others, string(c))
				continue
			}
			if _, ok := ownCommand(o, h, e); ok {
				var line string
				rawLine, _ := o.get("command")
				_ = json.Unmarshal(rawLine, &line)
				own = append(own, line)
				continue
			}
			var v any
			_ = json.Unmarshal(c, &v)
			b, _ := json.Marshal(v)
			others = append(others, string(b))
		}
	}
	return own, others
}

func ownLines(t *testing.T, data []byte, event string, e Entry) []string {
	own, _ := eventCommands(t, data, event, e)
	return own
}

func othersIn(t *testing.T, data []byte, event string, e Entry) []string {
	_, others := eventCommands(t, data, event, e)
	return others
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string // nil: refused
	}{
		{"memvault hook stop", []string{"memvault", "hook", "stop"}},
		{"  memvault\thook  stop ", []string{"memvault", "hook", "stop"}},
		{`'/Users/Ann Lee/memvault' hook stop`, []string{"/Users/Ann Lee/memvault", "hook", "stop"}},
		{`'it'\''s' x`, []string{"it's", "x"}},
		{`"a \"b\" \\ c" d`, []string{`a "b" \ c`, "d"}},
		{`a\ b`, []string{"a b"}},
		{`''`, []string{""}},
		{`'unterminated`, nil},
		{`"unterminated`, nil},
		{`trailing\`, nil},
		{`a | b`, nil},
		{`a; b`, nil},
		{`a && b`, nil},
		{`$HOME/bin/memvault hook stop`, nil},
		{`"$HOME/memvault"`, nil},
		{"a\nb", nil},
	}
	for _, tt := range tests {
		got, ok := shellWords(tt.in)
		if tt.want == nil {
			if ok {
				t.Errorf("shellWords(%q) = %q, want refused", tt.in, got)
			}
			continue
		}
		if !ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

// TestShellWordsReadsShellQuote: every command line memvault writes splits
// back into its words, so init recognises its own hooks.
func TestShellWordsReadsShellQuote(t *testing.T) {
	for _, s := range []string{"/usr/bin/memvault", "/Users/Ann Lee/memvault", "it's", `a"b`, `c:\bin\memvault.exe`, "", "$HOME", "a|b"} {
		e := Entry{Command: s, Args: []string{"hook", "stop", "--vault", s}}
		got, ok := shellWords(e.CommandLine())
		if want := []string{s, "hook", "stop", "--vault", s}; !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("shellWords(%s) = %q, %v; want %q", e.CommandLine(), got, ok, want)
		}
	}
}

// TestWriteHooks checks the file side: created with its folder, then
// unchanged, and an invalid file refused with its path and left alone.
func TestWriteHooks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "settings.json")
	if res, err := WriteHooks(path, hookEntry); err != nil || res != Created {
		t.Fatalf("first write: %v, %v; want created", res, err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := WriteHooks(path, hookEntry); err != nil || res != Unchanged {
		t.Errorf("second write: %v, %v; want unchanged", res, err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Errorf("second write changed the file")
	}
	if res, err := WriteHooks(path, Entry{Command: "/opt/memvault"}); err != nil || res != Updated {
		t.Errorf("write another command: %v, %v; want updated", res, err)
	}
	bad := "{\n  \"hooks\": [],\n}\n"
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = WriteHooks(path, hookEntry)
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Path != path || inv.Line != 3 || inv.Column != 1 {
		t.Fatalf("err = %#v, want *InvalidError at %s:3:1", err, path)
	}
	if data, _ := os.ReadFile(path); string(data) != bad {
		t.Errorf("refused file was changed:\n%s", data)
	}
}

// FuzzMergeHooks: whatever the settings file holds, the merge either
// refuses it or keeps everything else, installs each hook once and is
// idempotent.
func FuzzMergeHooks(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "settings", "*.json"))
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, res, err := MergeHooks(data, hookEntry)
		if !fuzzChanged(t, data, out, res, err) {
			return
		}
		checkHooks(t, data, out, hookEntry)
	})
}
