package transfer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault"
)

// checkParsed holds for every parser: positions name the file (and the
// line, for JSON Lines), ids the parser derives are valid, and no panics
// happened on the way.
func checkParsed(t *testing.T, name string, items []Item, probs []Problem, derivedIDs bool) {
	t.Helper()
	for _, p := range probs {
		if !strings.HasPrefix(p.Pos, name) {
			t.Errorf("problem position %q does not name %s", p.Pos, name)
		}
		if n, ok := strings.CutPrefix(p.Pos, name+":"); strings.HasSuffix(name, ".jsonl") && (!ok || n == "" || n[0] == '0' || strings.Trim(n, "0123456789") != "") {
			t.Errorf("problem position %q is not %s:LINE", p.Pos, name)
		}
	}
	for _, it := range items {
		if !strings.HasPrefix(it.Pos, name) {
			t.Errorf("item position %q does not name %s", it.Pos, name)
		}
		if err := vault.ValidateID(it.Batch.Memory.ID); derivedIDs && err != nil {
			t.Errorf("%s: id %q: %v", it.Pos, it.Batch.Memory.ID, err)
		}
	}
}

func FuzzParseMCP(f *testing.F) {
	if data, err := os.ReadFile("testdata/memory.jsonl"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"type":"entity","name":"a]]|b","entityType":"","observations":["x\ny"]}` + "\n" + `{"type":"relation","from":"a]]|b","to":"a]]|b","relationType":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		items, probs := ParseMCP("g.jsonl", data, MCPOptions{})
		checkParsed(t, "g.jsonl", items, probs, true)
	})
}

func FuzzParseJSONL(f *testing.F) {
	if data, err := os.ReadFile("testdata/export.jsonl.golden"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"id":"a","body":"x","extra":{"k":[1,"b",true],"m":{"a":null}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		items, probs := ParseJSONL("e.jsonl", data)
		checkParsed(t, "e.jsonl", items, probs, false)
	})
}

func FuzzParseMarkdown(f *testing.F) {
	paths, _ := filepath.Glob("testdata/notes/*/*.md")
	more, _ := filepath.Glob("testdata/notes/*.md")
	for _, p := range append(paths, more...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(filepath.Base(p), data)
		}
	}
	f.Add("CLAUDE.md", []byte("---\nid: x\n---\n## a\n```\n## b\n"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		if name == "" || strings.ContainsAny(name, ":/\\\x00") {
			return
		}
		items, probs := ParseMarkdown(name, data, MarkdownOptions{})
		checkParsed(t, name, items, probs, true)
	})
}
