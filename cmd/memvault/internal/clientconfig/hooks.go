package clientconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// HookTimeout is the timeout, in seconds, of each hook MergeHooks adds:
// the hooks answer in milliseconds, and Claude Code's default (60 s)
// would hold a prompt that long if one ever hung.
const HookTimeout = 10

// Hook is one of the Claude Code hooks memvault installs.
type Hook struct {
	Event   string // Claude Code's event name, e.g. "SessionStart"
	Command string // memvault's subcommand of "hook", e.g. "session-start"
	Matcher string // the new group's matcher; "" for none
}

// ClaudeHooks lists the hooks MergeHooks installs, in the order it adds
// them. SessionStart matches every source, compact included, so the
// memory comes back after a compaction.
func ClaudeHooks() []Hook {
	return []Hook{
		{Event: "SessionStart", Command: "session-start", Matcher: "startup|resume|clear|compact"},
		{Event: "UserPromptSubmit", Command: "user-prompt-submit"},
		{Event: "Stop", Command: "stop"},
	}
}

// CommandLine is the shell command the hook runs: e's command, "hook",
// the hook's subcommand, then e's args (--vault DIR, when there is one).
func (h Hook) CommandLine(e Entry) string {
	return Entry{Command: e.Command, Args: append([]string{"hook", h.Command}, e.Args...)}.CommandLine()
}

// WriteHooks puts memvault's hooks into the Claude Code settings file at
// path, as MergeHooks does, creating the file when missing.
func WriteHooks(path string, e Entry) (Result, error) {
	ch, err := PlanHooks(path, e)
	if err != nil {
		return 0, err
	}
	return ch.Result, ch.Apply()
}

// PlanHooks computes what WriteHooks would write, without writing it.
func PlanHooks(path string, e Entry) (Change, error) {
	return plan(path, func(data []byte) ([]byte, Result, error) { return MergeHooks(data, e) })
}

// MergeHooks returns data, a Claude Code settings file's content (empty
// for a new file), with one command hook per ClaudeHooks event running
// e's command. Everything else keeps its content and its place: other
// keys, other events, other groups and other commands. memvault's own
// hook (a command running a memvault binary's "hook <subcommand>") is
// updated in place: its command is set (arguments the user added after
// the subcommand, e.g. --budget, are kept, --vault is replaced), its
// timeout and its group's matcher are left as they are; a second one for
// the same event is removed, so the hook never runs twice. A missing
// hook is added as a group of its own at the end of its event's list.
// When nothing changes it returns data itself. Errors are *InvalidError.
func MergeHooks(data []byte, e Entry) ([]byte, Result, error) {
	root, err := parseDocument(data)
	if err != nil {
		return nil, 0, err
	}
	hooks, _, err := root.object("hooks", "hooks")
	if err != nil {
		return nil, 0, err
	}
	res := Unchanged
	for _, h := range ClaudeHooks() {
		var groups []json.RawMessage
		if raw, ok := hooks.get(h.Event); ok {
			var err error
			if groups, err = parseArray(raw); err != nil {
				return nil, 0, nested("hooks."+h.Event, err)
			}
		}
		groups, r := mergeHook(groups, h, e)
		if r == Unchanged {
			continue
		}
		hooks.set(h.Event, encodeArray(groups))
		// Updated says more than Added: an existing hook changed.
		if res != Updated {
			res = r
		}
	}
	if res == Unchanged {
		return data, Unchanged, nil
	}
	root.set("hooks", hooks.encode())
	return root.indent(), res, nil
}

// mergeHook sets memvault's command in an event's groups: in place where
// there is one, as a new group where there is none. Groups and commands
// that are not objects, or not memvault's, are kept as they are.
func mergeHook(groups []json.RawMessage, h Hook, e Entry) ([]json.RawMessage, Result) {
	res := Unchanged
	found := false
	var out []json.RawMessage
	for _, g := range groups {
		group, err := parseObject(g)
		if err != nil {
			out = append(out, g)
			continue
		}
		raw, ok := group.get("hooks")
		var cmds []json.RawMessage
		if ok {
			cmds, err = parseArray(raw)
		}
		if !ok || err != nil {
			out = append(out, g)
			continue
		}
		var kept []json.RawMessage
		changed := false
		for _, c := range cmds {
			cmd, err := parseObject(c)
			line, ours := "", false
			if err == nil {
				line, ours = ownCommand(cmd, h, e)
			}
			switch {
			case !ours:
				kept = append(kept, c)
			case found:
				// A second memvault hook for the event: it would run
				// the hook twice.
				changed = true
			default:
				found = true
				before := cmd.clone()
				cmd.set("type", mustJSON("command"))
				cmd.set("command", mustJSON(line))
				if !cmd.equal(before) {
					changed = true
				}
				kept = append(kept, cmd.encode())
			}
		}
		if !changed {
			out = append(out, g)
			continue
		}
		res = Updated
		if len(kept) == 0 {
			continue // the group held only a duplicate
		}
		group.set("hooks", encodeArray(kept))
		out = append(out, group.encode())
	}
	if found {
		return out, res
	}
	group := &jsonObject{}
	if h.Matcher != "" {
		group.set("matcher", mustJSON(h.Matcher))
	}
	cmd := &jsonObject{}
	cmd.set("type", mustJSON("command"))
	cmd.set("command", mustJSON(h.CommandLine(e)))
	cmd.set("timeout", json.RawMessage(fmt.Sprint(HookTimeout)))
	group.set("hooks", encodeArray([]json.RawMessage{cmd.encode()}))
	return append(out, group.encode()), Added
}

// ownCommand tells whether cmd is memvault's hook h: a command that runs
// e's command, or a program named memvault*, with "hook" and h's
// subcommand among its words. It returns the command line to put there:
// e's, with the words the user added kept, except --vault.
func ownCommand(cmd *jsonObject, h Hook, e Entry) (string, bool) {
	raw, ok := cmd.get("command")
	var line string
	if !ok || json.Unmarshal(raw, &line) != nil {
		return "", false
	}
	if raw, ok := cmd.get("type"); ok {
		var typ string
		if json.Unmarshal(raw, &typ) != nil || typ != "command" {
			return "", false
		}
	}
	words, ok := shellWords(line)
	if !ok || len(words) < 3 {
		return "", false
	}
	// The program's name, after a / or, on Windows, a \.
	prog := strings.ToLower(words[0][strings.LastIndexAny(words[0], `/\`)+1:])
	if words[0] != e.Command && !strings.HasPrefix(prog, "memvault") {
		return "", false
	}
	at := -1
	for i := 1; i+1 < len(words); i++ {
		if words[i] == "hook" && words[i+1] == h.Command {
			at = i
			break
		}
	}
	if at < 0 {
		return "", false
	}
	// Flags before "hook" are global ones (--vault, --allow-detached);
	// after the subcommand, the hook's own (--budget).
	want := Entry{Command: e.Command, Args: withoutVault(words[1:at])}
	want.Args = append(want.Args, "hook", h.Command)
	want.Args = append(want.Args, e.Args...)
	want.Args = append(want.Args, withoutVault(words[at+2:])...)
	return want.CommandLine(), true
}

// withoutVault drops --vault and its value from args: init writes the
// vault it was given.
func withoutVault(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--vault":
			i++
		case strings.HasPrefix(args[i], "--vault="):
		default:
			out = append(out, args[i])
		}
	}
	return out
}

// shellWords splits a command line as a POSIX shell does for the quoting
// ShellQuote writes and people type: single quotes, double quotes with
// backslash escapes, backslashes outside quotes. It reports false for
// an unterminated quote, or for anything that is not a plain command
// (pipes, redirections, variables, several commands), which memvault
// never writes.
func shellWords(s string) ([]string, bool) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '$' || s[i] == '`' {
					return nil, false
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, false
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, false
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		case strings.IndexByte("|&;<>()$`\n\r", c) >= 0:
			return nil, false
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, true
}

// encodeArray writes the elements compactly, as jsonObject.encode does.
func encodeArray(elems []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := json.Compact(&b, v); err != nil {
			// Elements come from a validated document or from encode.
			panic(fmt.Sprintf("compact element %d: %v", i, err))
		}
	}
	b.WriteByte(']')
	return b.Bytes()
}
