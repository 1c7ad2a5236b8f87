package memory

// A file that holds a secret by hand is flagged (secretDiagnosticsOf) and
// served redacted or withheld (redact, HoldsSecret); the refusal of a
// write holding one is vault's.

import (
	"fmt"
	"strings"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/secret"
)

// secretDiagnosticsOf flags the secrets found in a file's bytes (a hand edit, a pull):
// one error-level diagnostic per finding, at its file line, so that lint
// exits 1 and doctor and memory_stats report it. The memory itself stays
// loaded and searchable, redacted (see redactMemory), so that it can be
// found and fixed.
func secretDiagnosticsOf(rel string, found []secret.Finding) []*Diagnostic {
	if len(found) == 0 {
		return nil
	}
	out := make([]*Diagnostic, 0, min(len(found), secret.MaxListed+1))
	for i, f := range found {
		if i == secret.MaxListed {
			out = append(out, &Diagnostic{Path: rel, Line: f.Line, Field: "secret", Severity: parser.SeverityError,
				Err: fmt.Errorf("%w: %d more in this file", ErrSecret, len(found)-i)})
			break
		}
		out = append(out, &Diagnostic{Path: rel, Line: f.Line, Field: "secret", Severity: parser.SeverityError,
			Err: fmt.Errorf("%w: %s; %s; until then every door serves the memory redacted", ErrSecret, f, secret.Hint)})
	}
	return out
}

// withheldBody replaces a body whose secret redaction could not remove
// (see redactMemory).
const withheldBody = "[WITHHELD: this memory's file holds a secret; see memvault lint]"

// HoldsSecret is the rule every door applies before it shows a memory to
// anyone: whether m was read from a file holding a secret (Redacted) or,
// for a memory not made by the loader, whether its title or body holds
// one. The loader already serves such a memory redacted; the assistant
// hooks withhold it altogether.
func HoldsSecret(m *Memory) bool {
	return m.Redacted != "" || len(secret.Scan([]byte(m.Title))) > 0 || len(secret.Scan([]byte(m.Body))) > 0
}

// redactMemory makes m, read from the file rel whose bytes data hold the
// secrets found, safe to serve: every field a door shows has each secret
// replaced by "[REDACTED:rule]", and m.Redacted names the file and the
// findings. A secret the file-wide scan found that a field still holds
// word for word (a rule that needs context the field lacks) withholds the
// body and title outright. The file itself is left alone: lint and doctor
// report it with the fix.
func redactMemory(m *Memory, rel string, data []byte, found []secret.Finding) {
	r := func(s string) string {
		if s == "" || len(secret.Scan([]byte(s))) == 0 {
			return s
		}
		return string(secret.Redact([]byte(s)))
	}
	rs := func(l []string) {
		for i, s := range l {
			l[i] = r(s)
		}
	}
	m.Title, m.Body = r(m.Title), r(m.Body)
	rs(m.Tags)
	rs(m.Aliases)
	rs(m.Supersedes)
	rs(m.Links)
	rs(m.Refs)
	rs(m.WikiLinks)
	m.Source.Client, m.Source.Kind = r(m.Source.Client), r(m.Source.Kind)
	for k, v := range m.ConflictTheirs {
		m.ConflictTheirs[k] = r(v)
	}
	if id := r(m.ID); id != m.ID {
		m.ID = DerivedID(rel)
	}
	shown := strings.Join([]string{m.ID, m.Title, m.Body, strings.Join(m.Tags, "\n"), strings.Join(m.Aliases, "\n"),
		strings.Join(m.Supersedes, "\n"), strings.Join(m.Links, "\n"), strings.Join(m.Refs, "\n"), strings.Join(m.WikiLinks, "\n"),
		m.Source.Client, m.Source.Kind}, "\n")
	for _, v := range m.ConflictTheirs {
		shown += "\n" + v
	}
	for _, f := range found {
		if v := string(data[f.Start:f.End]); strings.Contains(shown, v) {
			m.Title, m.Body = "[WITHHELD]", withheldBody
			m.Tags, m.Aliases, m.Links, m.Refs, m.WikiLinks, m.ConflictTheirs = nil, nil, nil, nil, nil, nil
			break
		}
	}
	// The indexed text is made from the redacted body again.
	m.text = ""
	m.Redacted = redactedLabel(rel, found)
}

// redactedLabel is Memory.Redacted: the file, the first finding's line,
// and what was found (never the value).
func redactedLabel(rel string, found []secret.Finding) string {
	return fmt.Sprintf("%s:%d: %v: %s; the file must be fixed (memvault lint)", rel, found[0].Line, ErrSecret, secret.Describe(found))
}
