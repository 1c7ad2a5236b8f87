package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/diskwrite"
	"github.com/memvault/memvault/vault/secret"
)

// maxListedSecrets caps the findings one error or file lists; the rest are
// counted.
const maxListedSecrets = 5

// secretHint tells a writer what to do; it never repeats the secret.
const secretHint = "remove it (the value is not shown); for a known false positive put " + secret.AllowMarker + " on that line"

// secretError is a write refused for a secret. It matches both ErrSecret
// and ErrInvalid, so every caller that treats invalid input as the user's
// to fix (CLI exit 1, MCP isError) does the same here.
type secretError struct{ msg string }

func (e *secretError) Error() string   { return e.msg }
func (e *secretError) Unwrap() []error { return []error{ErrSecret, ErrInvalid} }

// refuseSecrets scans the fields a create or update sets and the reason
// and refuses the write when any holds a secret, naming the field, rule,
// line and column (of the field's text as given). Nil fields are not set
// and not scanned.
func refuseSecrets(title, content *string, tags *[]string, reason string) error {
	var sc secretScan
	if title != nil {
		sc.text("title", *title)
	}
	if content != nil {
		sc.text("content", *content)
	}
	if tags != nil {
		sc.list("tags", *tags)
	}
	sc.text("reason", reason)
	return sc.err()
}

// checkReason refuses a reason (the commit body) that is too long or holds
// a secret.
func checkReason(reason string) error {
	if len(reason) > MaxReasonBytes {
		return fmt.Errorf("%w: reason: %d bytes, limit %d", ErrInvalid, len(reason), MaxReasonBytes)
	}
	if err := refuseControls("reason", reason); err != nil {
		return err
	}
	var sc secretScan
	sc.text("reason", reason)
	return sc.err()
}

// MaxClientRunes bounds a writer's name as SanitizeClient leaves it.
const MaxClientRunes = 64

// SanitizeClient makes a writer's name (an MCP client's clientInfo.name,
// Options.Client, Author.Client) fit for a commit trailer and for
// source.client: line breaks and other blanks become one space, control
// and format characters (zero-width, bidirectional) are removed, so are
// addresses in angle brackets (see stripAddresses), the ends
// are trimmed, a secret is replaced by "[REDACTED:rule]" (a name is not
// the writer's to fix, so it is not refused), and the result is cut to
// MaxClientRunes. The write path applies it to every client name itself,
// so no door can forge a trailer or commit a token through one.
func SanitizeClient(name string) string {
	if isPlainName(name) {
		return name // the common case: "cli", "claude-code"
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r), r == 0x2028, r == 0x2029:
			return ' '
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), r == utf8.RuneError:
			return -1
		}
		return r
	}, name)
	name = strings.Join(strings.Fields(stripAddresses(name)), " ")
	name = string(secret.Redact([]byte(name)))
	if r := []rune(name); len(r) > MaxClientRunes {
		name = strings.TrimSpace(string(r[:MaxClientRunes]))
	}
	return name
}

// isPlainName reports a name of at most 16 ASCII letters, digits, dots,
// dashes and underscores, which SanitizeClient leaves as it is: no rule
// matches so short a run without a separator.
func isPlainName(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) && s[i] != '-' && s[i] != '.' {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// refuseSecretLists refuses a write whose list fields (aliases,
// supersedes, links) hold a secret.
func refuseSecretLists(lists ...namedList) error {
	var sc secretScan
	for _, l := range lists {
		sc.list(l.field, l.items)
	}
	return sc.err()
}

// namedList is a list field and its items.
type namedList struct {
	field string
	items []string
}

// secretScan collects the findings of several fields into one error.
type secretScan struct{ parts []string }

func (sc *secretScan) text(field, text string) {
	if text != "" {
		sc.bytes(field, []byte(text))
	}
}

func (sc *secretScan) bytes(field string, data []byte) {
	if f := secret.Scan(data); len(f) > 0 {
		sc.parts = append(sc.parts, field+": "+listFindings(f))
	}
}

// file scans a file a commit adds or changes: its vault-relative path and
// its content. The message names the file by its path, unless the path
// itself holds the secret. A deletion (nil data) adds nothing to git and
// is not scanned: removing a file is how a secret leaves the tree.
func (sc *secretScan) file(rel string, data []byte) {
	if data == nil {
		return
	}
	name := rel
	if f := secret.Scan([]byte(rel)); len(f) > 0 {
		name = "a file"
		sc.parts = append(sc.parts, "a file's path: "+listFindings(f))
	}
	sc.bytes(name, data)
}

func (sc *secretScan) list(field string, items []string) {
	for i, t := range items {
		sc.text(fmt.Sprintf("%s[%d]", field, i), t)
	}
}

func (sc *secretScan) err() error {
	if len(sc.parts) == 0 {
		return nil
	}
	return &secretError{msg: fmt.Sprintf("%v: %s; %s", ErrSecret, strings.Join(sc.parts, "; "), secretHint)}
}

func listFindings(fs []secret.Finding) string {
	var b strings.Builder
	for i, f := range fs {
		if i == maxListedSecrets {
			fmt.Fprintf(&b, " and %d more", len(fs)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.String())
	}
	return b.String()
}

// secretDiagnosticsOf flags the secrets found in a file's bytes (a hand edit, a pull):
// one error-level diagnostic per finding, at its file line, so that lint
// exits 1 and doctor and memory_stats report it. The memory itself stays
// loaded and searchable, redacted (see redactMemory), so that it can be
// found and fixed.
func secretDiagnosticsOf(rel string, found []secret.Finding) []*Diagnostic {
	if len(found) == 0 {
		return nil
	}
	out := make([]*Diagnostic, 0, min(len(found), maxListedSecrets+1))
	for i, f := range found {
		if i == maxListedSecrets {
			out = append(out, &Diagnostic{Path: rel, Line: f.Line, Field: "secret", Severity: parser.SeverityError,
				Err: fmt.Errorf("%w: %d more in this file", ErrSecret, len(found)-i)})
			break
		}
		out = append(out, &Diagnostic{Path: rel, Line: f.Line, Field: "secret", Severity: parser.SeverityError,
			Err: fmt.Errorf("%w: %s; %s; until then every door serves the memory redacted", ErrSecret, f, secretHint)})
	}
	return out
}

// RefuseSecretsInFiles is the secret check of a commit of files as they
// are on disk (doctor --fix committing hand edits): it reads each
// vault-relative file and refuses, with an error matching ErrSecret, when
// a path or a file holds a secret. A missing file is a deletion and holds
// nothing. Call it holding the write lock, right before the commit.
func (v *Vault) RefuseSecretsInFiles(ctx context.Context, rels []string) error {
	r, err := diskwrite.Open(v.dir, false)
	if err != nil {
		return err
	}
	defer r.Close()
	var sc secretScan
	for _, rel := range rels {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := r.ReadFile(rel)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read %s: %w", rel, err)
		}
		sc.file(rel, data)
	}
	return sc.err()
}

// refuseWriteSecrets is the last check of a write before anything touches
// the disk: the commit message as a whole, then each file the write puts
// (path and full content, front matter included) unless the caller
// scanned those very bytes already. Every field has been checked on its
// own by then; this check covers what only the assembled file or message
// holds (an unknown front-matter key named password, a memory rewritten
// with a secret someone added by hand) and any field a door forgot.
func (w *writeSet) refuseWriteSecrets(message string) error {
	var sc secretScan
	sc.text("commit message", message)
	for _, op := range w.ops {
		if !op.scanned {
			sc.file(op.rel, op.data)
		}
	}
	return sc.err()
}
