package vault

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/memory"
	"github.com/memvault/memvault/vault/secret"
)

// FuzzServedMemory holds what the loader serves of a file's bytes: a
// secret the file-wide scan finds is in no field a door shows; a damaged
// file's fix never panics, and a line it offers quoted parses, with its
// key, as front matter.
func FuzzServedMemory(f *testing.F) {
	f.Add([]byte(brokenDeploys))
	f.Add([]byte(goodDeploys))
	f.Add([]byte("---\nid: ci\ntitle: CI\ntags: [ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES]\n---\nGITHUB_TOKEN=ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES\n"))
	f.Add([]byte("---\ntitle: 部署: 两人审批\n---\n正文\n"))
	f.Add([]byte("---\ntitle: x\nbody"))
	if files, _ := filepath.Glob(filepath.Join("..", "sample-vault", "project", "*.md")); len(files) > 0 {
		for _, p := range files[:min(len(files), 8)] {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, diags := memory.Parse("project/f.md", data, time.Unix(1700000000, 0))
		if d := damage(diags); d != nil {
			fix := DamageFix(d, data)
			if fix == "" {
				t.Fatalf("no fix for %v", d)
			}
			if q, ok := QuotedLine(lineOf(data, d.Line)); ok {
				key, _, _ := strings.Cut(q, ":")
				doc, qd := parser.Parse("q.md", []byte("---\n"+q+"\n---\n"))
				if damage(qd) != nil || doc == nil || !slices.Contains(doc.Keys(), key) {
					t.Fatalf("the fix's line %q does not parse as front matter: %v", q, qd)
				}
			}
		}
		if m == nil {
			return
		}
		found := secret.Scan(data)
		if (len(found) > 0) != (m.Redacted != "") {
			t.Fatalf("%d findings, Redacted %q", len(found), m.Redacted)
		}
		shown := strings.Join(append(append(append([]string{m.ID, m.Title, m.Body, m.PlainText(), m.Source.Client, m.Source.Kind},
			m.Tags...), m.Aliases...), append(append(m.Links, m.Refs...), m.Supersedes...)...), "\n")
		for _, v := range m.ConflictTheirs {
			shown += "\n" + v
		}
		for _, fd := range found {
			if v := string(data[fd.Start:fd.End]); strings.Contains(shown, v) {
				t.Fatalf("served memory holds the secret %q (%s)", v, fd.Rule)
			}
		}
	})
}
