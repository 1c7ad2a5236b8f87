package vault

import (
	"fmt"
	"strings"

	"github.com/memvault/memvault/parser"
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

// refuseSecrets scans the fields a create or update sets and refuses the
// write when any holds a secret, naming the field, rule, line and column
// (of the field's text as given). Nil fields are not set and not scanned.
func refuseSecrets(title, content *string, tags *[]string) error {
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
	return sc.err()
}

// refuseSecretList refuses a write whose list field (aliases) holds a
// secret.
func refuseSecretList(field string, items []string) error {
	var sc secretScan
	sc.list(field, items)
	return sc.err()
}

// secretScan collects the findings of several fields into one error.
type secretScan struct{ parts []string }

func (sc *secretScan) text(field, text string) {
	if f := secret.Scan([]byte(text)); len(f) > 0 {
		sc.parts = append(sc.parts, field+": "+listFindings(f))
	}
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

// secretDiagnostics flags secrets in a file's bytes (a hand edit, a pull):
// one error-level diagnostic per finding, at its file line, so that lint
// exits 1 and doctor and memory_stats report it. The memory itself stays
// loaded and searchable so that it can be found and fixed.
func secretDiagnostics(rel string, data []byte) []*Diagnostic {
	found := secret.Scan(data)
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
			Err: fmt.Errorf("%w: %s; %s", ErrSecret, f, secretHint)})
	}
	return out
}
