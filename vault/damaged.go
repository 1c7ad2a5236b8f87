package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/memory"
	"github.com/memvault/memvault/vault/merge"
)

// LastGoodReader finds the last committed version of a vault file that
// the vault can use. cmd/memvault implements it over the repository's
// history (gitrepo.HeadFiles).
type LastGoodReader interface {
	// LastGood returns the newest version of the vault-relative file rel
	// in HEAD's history for which good reports true, and the commit that
	// holds it; an error wrapping ErrNotFound when no version does. good
	// is the vault's parse rule, the same at every call, so an
	// implementation may cache the answer by path and HEAD.
	LastGood(ctx context.Context, rel string, good func([]byte) bool) (data []byte, commit string, err error)
}

// damage returns the diagnostic that makes a file unusable as a memory:
// front matter that does not parse or is not closed, or a file that is not
// text. Conflict markers (served as committed, see readFile), a secret
// (redacted, see secrets.go) and a missing file are not damage.
func damage(diags []*Diagnostic) *Diagnostic {
	for _, d := range diags {
		if d.Severity != parser.SeverityError {
			continue
		}
		for _, e := range []error{parser.ErrSyntax, parser.ErrUnclosed, parser.ErrBinary, parser.ErrTooLarge} {
			if errors.Is(d.Err, e) {
				return d
			}
		}
	}
	return nil
}

// parses is the rule a committed version must pass to be served in place
// of a damaged file: it converts to a memory without damage.
func parses(rel string) func([]byte) bool {
	return func(data []byte) bool {
		if merge.MarkerLine(data) > 0 {
			return false
		}
		_, diags := parser.Parse(rel, data)
		return damage(diags) == nil
	}
}

// servedForDamage is what is served for the file rel whose bytes, disk,
// are damaged (d): no memory, since a memory made of a file whose front
// matter does not parse is another memory (a path id, the file name as
// title, default importance), or, when the vault can read its history,
// the memory of the file's last committed version that parses, labelled
// Damaged, with those bytes. d's message is extended with what is served
// and the fix, which lint and doctor print.
func (v *Vault) servedForDamage(ctx context.Context, rel string, d *Diagnostic, disk []byte, modTime time.Time) (served *Memory, good []byte) {
	label := DamageLabel([]*Diagnostic{d})
	fix := DamageFix(d, disk)
	note := "not served: no committed version of it parses"
	if v.ports.lastGood != nil {
		data, commit, err := v.ports.lastGood.LastGood(ctx, rel, parses(rel))
		if err == nil {
			if m, _ := memory.Parse(rel, data, modTime); m != nil {
				m.Damaged = label
				// The hash of the bytes on disk: their fix is a change
				// the vault takes in.
				m.Hash = memory.ContentHash(disk)
				served, good = m, data
				note = "served as its last version that parsed, from commit " + shortHash(commit)
			}
		} else if !errors.Is(err, ErrNotFound) {
			note = fmt.Sprintf("not served: its history could not be read (%v)", err)
		}
	}
	d.Err = &damageError{err: d.Err, note: note + "; fix: " + fix}
	return served, good
}

// damageError is a damaged file's problem with what the vault serves in
// its place and how to fix it.
type damageError struct {
	err  error
	note string
}

func (e *damageError) Error() string { return e.err.Error() + "; " + e.note }
func (e *damageError) Unwrap() error { return e.err }

// DamageFix says how to fix the damage d in a file holding data: for the
// commonest break, a colon or a leading special character in an unquoted
// value, the line with the value quoted.
func DamageFix(d *Diagnostic, data []byte) string {
	switch {
	case errors.Is(d.Err, parser.ErrUnclosed):
		return `end the front matter with a "---" line, then commit the file`
	case errors.Is(d.Err, parser.ErrBinary), errors.Is(d.Err, parser.ErrTooLarge):
		return "restore the file from git (git checkout -- <file>) or rewrite it as text, then commit it"
	}
	if q, ok := QuotedLine(lineOf(data, d.Line)); ok {
		return fmt.Sprintf("quote the value (line %d: %s), then commit the file", d.Line, q)
	}
	return fmt.Sprintf("fix the YAML at line %d (quote a value that holds \": \" or starts with a special character), then commit the file", d.Line)
}

// lineOf returns data's n'th line (1-based), "" when there is none.
func lineOf(data []byte, n int) string {
	for i := 1; len(data) > 0; i++ {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if i == n {
			return strings.TrimRight(string(line), "\r")
		}
		data = rest
	}
	return ""
}

// QuotedLine returns a front-matter line "key: value" with its value
// quoted, when the value is plain text that YAML would misread.
// It is the one rule both lint's and sync's fixes for a broken file quote by.
func QuotedLine(line string) (string, bool) {
	key, val, ok := strings.Cut(line, ":")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	if !ok || !plainKey(key) || val == "" || val[0] == '"' || val[0] == '\'' || val[0] == '[' || val[0] == '{' {
		return "", false
	}
	return key + ": " + strconv.Quote(val), true
}

// plainKey reports a front-matter key of ASCII letters, digits, '_' and
// '-', starting with a letter or '_': one that reads the same unquoted.
func plainKey(k string) bool {
	if k == "" || !(k[0] == '_' || k[0]|0x20 >= 'a' && k[0]|0x20 <= 'z') {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; !isWordByte(c) && c != '-' {
			return false
		}
	}
	return true
}

// DamageLabel is Memory.Damaged for a file whose diagnostics are diags
// (ParseMemory's): the damage as "path:line: what", without what is
// served or the fix; "" when the file is not damaged. history uses it to
// tell a commit that broke a file from one that changed it.
func DamageLabel(diags []*Diagnostic) string {
	d := damage(diags)
	if d == nil {
		return ""
	}
	e := *d
	if de, ok := e.Err.(*damageError); ok {
		e.Err = de.err
	}
	return e.Error()
}

// shortHash abbreviates a commit id for people.
func shortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
