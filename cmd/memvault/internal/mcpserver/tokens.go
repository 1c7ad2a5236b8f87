package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/mail"
	"os"
	"runtime"
	"strings"

	"github.com/memvault/memvault/vault"
)

// Caller is a person a team server knows by a bearer token: the writes
// made with the token are committed with the person as author.
type Caller struct {
	Token, Name, Email string
}

// LoadTokens reads a team server's tokens file: one person a line, the
// token, then the name, then the email last (`3f9a… Ada Lovelace
// ada@example.com`; the email may be in angle brackets); blank lines and
// lines starting with # are skipped. The file is refused when its group
// or others may read it (it holds everyone's credentials), when a token
// is shorter than MinRemoteTokenBytes or given twice, and when a line
// lacks a name or a valid email. Errors name the line, never the token.
func LoadTokens(path string) ([]Caller, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--tokens: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return nil, fmt.Errorf("--tokens %s: the file is readable or writable by group or others (mode %04o); it holds everyone's tokens: chmod 600 %s",
			path, perm, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--tokens: %w", err)
	}
	var out []Caller
	seen := map[[32]byte]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			return nil, fmt.Errorf("--tokens %s:%d: want a token, a name and an email", path, n)
		}
		c := Caller{Token: f[0], Name: strings.Join(f[1:len(f)-1], " "), Email: strings.Trim(f[len(f)-1], "<>")}
		if len(c.Token) < MinRemoteTokenBytes {
			return nil, fmt.Errorf("--tokens %s:%d: the token is %d bytes, want at least %d (e.g. the output of `openssl rand -hex 32`)",
				path, n, len(c.Token), MinRemoteTokenBytes)
		}
		if a, err := mail.ParseAddress(c.Email); err != nil || a.Address != c.Email {
			return nil, fmt.Errorf("--tokens %s:%d: %q is not an email address", path, n, c.Email)
		}
		d := sha256.Sum256([]byte(c.Token))
		if first, ok := seen[d]; ok {
			return nil, fmt.Errorf("--tokens %s:%d: the token of line %d again: each person needs their own", path, n, first)
		}
		seen[d] = n
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--tokens %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--tokens %s: no tokens in the file", path)
	}
	return out, nil
}

// tokens are the bearer tokens a server accepts, as SHA-256 digests, with
// the person each stands for (zero for the shared --token).
type tokens struct {
	digests [][32]byte
	people  []vault.Person
}

// newTokens accepts the shared token (when not "") and each caller's.
func newTokens(shared string, callers []Caller) tokens {
	var t tokens
	if shared != "" {
		t.digests = append(t.digests, sha256.Sum256([]byte(shared)))
		t.people = append(t.people, vault.Person{})
	}
	for _, c := range callers {
		t.digests = append(t.digests, sha256.Sum256([]byte(c.Token)))
		t.people = append(t.people, vault.Person{Name: c.Name, Email: c.Email})
	}
	return t
}

// check compares the presented token with every accepted one in constant
// time over SHA-256 digests: neither content, length nor which token
// matched leaks through timing. It returns ctx carrying the token's
// digest (the owner of the sessions it opens) and the caller's person
// when the token is a person's.
func (t tokens) check(ctx context.Context, presented string) (context.Context, bool) {
	got := sha256.Sum256([]byte(presented))
	match := -1
	for i, d := range t.digests {
		match = subtle.ConstantTimeSelect(subtle.ConstantTimeCompare(got[:], d[:]), i, match)
	}
	if match < 0 {
		return ctx, false
	}
	ctx = context.WithValue(ctx, ownerKey{}, got)
	if p := t.people[match]; p.Name != "" {
		ctx = vault.WithPerson(ctx, p)
	}
	return ctx, true
}
