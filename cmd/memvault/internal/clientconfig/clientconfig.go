package clientconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memvault/memvault/vault/fault"
)

// ServerName is the key memvault's entry has under mcpServers.
const ServerName = "memvault"

// ErrUnknownClient is returned by Find for a name it does not know.
var ErrUnknownClient = fault.New(fault.Invalid, "unknown MCP client")

// Client is an MCP client whose project configuration Write can change.
type Client struct {
	// Name is how the user names the client: "claude-code" or "cursor".
	Name string
	// File is the configuration's path relative to the project root.
	File string
	// Typed clients get "type": "stdio" and an "env" object, as their
	// own CLI writes them.
	Typed bool
	// Settings, when set, is the client's project settings file, relative
	// to the project root, where MergeHooks puts memvault's hooks.
	Settings string
	// Instructions, when set, is the client's project instructions file,
	// relative to the project root, which gets memvault's section (and is
	// created when missing).
	Instructions string
	// Rule, when set, is the client's project rule file for memvault,
	// relative to the project root, written with RuleFile.
	Rule string
}

// Clients returns the clients this package knows. Both read a JSON file
// in the project whose mcpServers object maps a name to a command, its
// args and env: Claude Code's project-scope .mcp.json and Cursor's
// .cursor/mcp.json. Claude Code also runs the hooks of its shared
// project settings, .claude/settings.json, and reads CLAUDE.md; Cursor
// reads its project rules in .cursor/rules. (Cursor's own hooks,
// .cursor/hooks.json, are not written: see docs/assistants.md.)
func Clients() []Client {
	return []Client{
		{Name: "claude-code", File: ".mcp.json", Typed: true,
			Settings: filepath.Join(".claude", "settings.json"), Instructions: "CLAUDE.md"},
		{Name: "cursor", File: filepath.Join(".cursor", "mcp.json"),
			Rule: filepath.Join(".cursor", "rules", "memvault.mdc")},
	}
}

// Find returns the client called name; the error, wrapping
// ErrUnknownClient, lists the names it knows.
func Find(name string) (Client, error) {
	var names []string
	for _, c := range Clients() {
		if c.Name == name {
			return c, nil
		}
		names = append(names, c.Name)
	}
	return Client{}, fmt.Errorf("%w %q: want one of %s", ErrUnknownClient, name, strings.Join(names, ", "))
}

// Entry is what Write puts under mcpServers.memvault: the server's
// command and its arguments.
type Entry struct {
	Command string
	Args    []string
}

// CommandLine is the entry as one line a POSIX shell runs, for people to
// read and copy.
func (e Entry) CommandLine() string {
	line := ShellQuote(e.Command)
	for _, a := range e.Args {
		line += " " + ShellQuote(a)
	}
	return line
}

// Result says what Write or Merge did.
type Result int

const (
	Created   Result = iota // the file did not exist; Write created it
	Added                   // the file existed; memvault's entry was added
	Updated                 // memvault's entry changed (another binary path or vault)
	Unchanged               // the entry was already there, as wanted
	Kept                    // the file is the user's own (no memvault section); left as it is
)

func (r Result) String() string {
	switch r {
	case Created:
		return "created"
	case Added:
		return "added"
	case Updated:
		return "updated"
	case Unchanged:
		return "unchanged"
	case Kept:
		return "kept"
	}
	return fmt.Sprintf("Result(%d)", int(r))
}

// InvalidError is a configuration Merge refuses to change: not valid JSON,
// or a top level, mcpServers or memvault entry that is not an object.
type InvalidError struct {
	// Path is the file, set by Write; empty for Merge.
	Path string
	// Line and Column (1-based, in characters) locate a syntax error;
	// both are 0 when the error is about the document's shape.
	Line, Column int
	// Msg says what is wrong, e.g. "invalid JSON: invalid character ','"
	// or "mcpServers: want a JSON object, found a number".
	Msg string
}

// Error reads as an editor's location, "path:line:column: msg", or
// "path: msg" without a position.
func (e *InvalidError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
	}
	return e.Path + ": " + e.Msg
}

// ErrorKind says the user can fix the file.
func (e *InvalidError) ErrorKind() string { return string(fault.Invalid) }

// Write puts e into the client's configuration file at path, creating the
// file (and its folder) when missing. Every other key of the file, and
// every other server, keeps its content and its place; keys the user
// added to memvault's own entry (env, for one) are kept too. A file Merge
// refuses is left untouched and the error is an *InvalidError naming
// path.
func Write(path string, c Client, e Entry) (Result, error) {
	ch, err := Plan(path, c, e)
	if err != nil {
		return 0, err
	}
	return ch.Result, ch.Apply()
}

// Plan computes what Write would write, without writing it.
func Plan(path string, c Client, e Entry) (Change, error) {
	return plan(path, func(data []byte) ([]byte, Result, error) { return Merge(data, c, e) })
}

// Change is a file's new content, computed before anything is written, so
// that init refuses a file it cannot read before it changes another one.
type Change struct {
	Path string
	// Target is the file Apply writes: Path with symbolic links resolved,
	// so that a CLAUDE.md linked to AGENTS.md stays a link.
	Target string
	Result Result
	data   []byte // the new content, for Created, Added and Updated
}

// plan reads the file at path (missing is empty) and runs merge on it. An
// *InvalidError from merge gets path.
func plan(path string, merge func([]byte) ([]byte, Result, error)) (Change, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Change{}, fmt.Errorf("read %s: %w", path, err)
	}
	existed := err == nil
	out, res, err := merge(data)
	if err != nil {
		var inv *InvalidError
		if errors.As(err, &inv) {
			inv.Path = path
		}
		return Change{}, err
	}
	ch := Change{Path: path, Target: path, Result: res}
	if existed {
		if ch.Target, err = filepath.EvalSymlinks(path); err != nil {
			return Change{}, fmt.Errorf("resolve %s: %w", path, err)
		}
	}
	if res == Unchanged || res == Kept {
		return ch, nil
	}
	if !existed {
		ch.Result = Created
	}
	ch.data = out
	return ch, nil
}

// Apply writes the change, if there is one, creating the file's folder.
// The file keeps its mode.
func (ch Change) Apply() error {
	if ch.data == nil {
		return nil
	}
	path := ch.Target
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	// Write beside and rename, so an interrupted write never leaves half
	// a configuration that the client then fails to parse.
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(ch.data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Merge returns data, a configuration file's content (empty for a new
// file), with memvault's entry set, and Added, Updated or Unchanged.
// When the entry is already as wanted it returns data itself. Errors are
// *InvalidError.
func Merge(data []byte, c Client, e Entry) ([]byte, Result, error) {
	root, err := parseDocument(data)
	if err != nil {
		return nil, 0, err
	}
	servers, _, err := root.object("mcpServers", "mcpServers")
	if err != nil {
		return nil, 0, err
	}
	entry, found, err := servers.object(ServerName, "mcpServers."+ServerName)
	if err != nil {
		return nil, 0, err
	}
	res := Added
	if found {
		res = Updated
	}
	before := entry.clone()
	if c.Typed {
		if _, ok := entry.get("type"); !ok {
			// First, where the client's own CLI puts it.
			entry.set("type", mustJSON("stdio"))
			entry.keys = append([]string{"type"}, entry.keys[:len(entry.keys)-1]...)
		}
	}
	entry.set("command", mustJSON(e.Command))
	entry.set("args", mustJSON(e.Args))
	if c.Typed {
		if _, ok := entry.get("env"); !ok {
			entry.set("env", json.RawMessage("{}"))
		}
	}
	if res == Updated && entry.equal(before) {
		return data, Unchanged, nil
	}
	servers.set(ServerName, entry.encode())
	root.set("mcpServers", servers.encode())
	return root.indent(), res, nil
}

// nested reports a problem with the value at key: the nested error's
// position would be relative to that value rather than the file, so it
// is dropped and the key named instead.
func nested(key string, err error) error {
	var inv *InvalidError
	if !errors.As(err, &inv) {
		return err
	}
	return &InvalidError{Msg: key + ": " + inv.Msg}
}

// ShellQuote quotes s for a POSIX shell when it needs it, so a path with
// spaces can be pasted into a command line.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
