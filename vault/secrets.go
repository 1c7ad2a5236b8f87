package vault

// The secret guard at every door: a write holding a secret is refused
// (refuseSecrets and the checks of the assembled files and commit
// message), a file that holds one by hand is flagged (memory.Parse)
// and served redacted or withheld (vault/memory, HoldsSecret). The
// scanner and the wording of its findings are vault/secret's.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memvault/memvault/vault/secret"
)

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

// secretScan collects the findings of several fields into one error
// (secret.Report words them).
type secretScan struct{ r secret.Report }

func (sc *secretScan) text(field, text string)           { sc.r.Text(field, text) }
func (sc *secretScan) bytes(field string, data []byte)   { sc.r.Bytes(field, data) }
func (sc *secretScan) file(rel string, data []byte)      { sc.r.File(rel, data) }
func (sc *secretScan) list(field string, items []string) { sc.r.List(field, items) }

func (sc *secretScan) err() error {
	msg := sc.r.Message()
	if msg == "" {
		return nil
	}
	return &secretError{msg: fmt.Sprintf("%v: %s", ErrSecret, msg)}
}

// RefuseSecretsInFiles is the secret check of a commit of files as they
// are on disk (doctor --fix committing hand edits): it reads each
// vault-relative file and refuses, with an error matching ErrSecret, when
// a path or a file holds a secret. A missing file is a deletion and holds
// nothing. Call it holding the write lock, right before the commit.
func (v *Vault) RefuseSecretsInFiles(ctx context.Context, rels []string) error {
	r, err := v.disk.OpenFolder(v.dir, false)
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
