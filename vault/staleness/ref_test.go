package staleness

import (
	"errors"
	"slices"
	"testing"
)

func TestParseRef(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in           string
		kind         Kind
		path, symbol string
		prefix       string
		match, miss  []string
	}{
		{"internal/cache.go", File, "internal/cache.go", "", "internal/cache.go", []string{"internal/cache.go"}, []string{"internal/cache.go.bak", "internal/cache"}},
		{"./internal/", Folder, "internal", "", "internal", []string{"internal/a.go", "internal/x/y.go"}, []string{"internal", "internalx/a.go"}},
		{"cmd/**/*.go", Glob, "cmd/**/*.go", "", "cmd", []string{"cmd/a.go", "cmd/x/y/z.go"}, []string{"cmd/a.md", "lib/cmd/a.go"}},
		{"**/*.md", Glob, "**/*.md", "", "", []string{"a.md", "docs/x/a.md"}, []string{"a.go"}},
		{"vault/rank.go#Ranker.Score", File, "vault/rank.go", "Ranker.Score", "vault/rank.go", []string{"vault/rank.go"}, nil},
	}
	for _, tc := range tests {
		r, err := ParseRef(tc.in)
		if err != nil {
			t.Fatalf("ParseRef(%q): %v", tc.in, err)
		}
		if r.Kind != tc.kind || r.Path != tc.path || r.Symbol != tc.symbol || r.Prefix() != tc.prefix {
			t.Errorf("ParseRef(%q) = %+v prefix %q, want kind %d path %q symbol %q prefix %q", tc.in, r, r.Prefix(), tc.kind, tc.path, tc.symbol, tc.prefix)
		}
		for _, p := range tc.match {
			if !r.Matches(p) {
				t.Errorf("%q does not match %q", tc.in, p)
			}
		}
		for _, p := range tc.miss {
			if r.Matches(p) {
				t.Errorf("%q matches %q", tc.in, p)
			}
		}
	}
	for _, bad := range []string{"", "/etc/passwd", "../x", "a//b", "a.go#", "dir/#Sym", `a\b`, "x/[/y"} {
		if _, err := ParseRef(bad); !errors.Is(err, ErrBadRef) {
			t.Errorf("ParseRef(%q) err = %v, want ErrBadRef", bad, err)
		}
	}
}

func TestDefinitionBlocks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, src, symbol, want string
	}{
		{"go func", "a.go", "package a\n\nfunc Get(\n\tk string,\n) string {\n\treturn k\n}\n\nfunc Put() {}\n", "Get", "func Get(\n\tk string,\n) string {\n\treturn k\n}"},
		{"go method", "a.go", "func (c *Cache) Get() int {\n\treturn 1\n}\nfunc Get() {}\n", "Cache.Get", "func (c *Cache) Get() int {\n\treturn 1\n}"},
		{"go type one line", "a.go", "type ID string\ntype Other int\n", "ID", "type ID string"},
		{"go struct", "a.go", "type Cache struct {\n\tn int\n}\n", "Cache", "type Cache struct {\n\tn int\n}"},
		{"python", "a.py", "class Cache:\n    def get(self):\n        return 1\n\n    def put(self):\n        pass\n\ndef other():\n    pass\n", "Cache.get", "    def get(self):\n        return 1"},
		{"typescript", "a.ts", "export async function load(x: number) {\n  return x;\n}\nexport const other = 1;\n", "load", "export async function load(x: number) {\n  return x;\n}"},
		{"ts class method is found after the class", "a.ts", "function get() {}\nexport class Store {\n  get() {\n  }\n}\n", "Store", "export class Store {\n  get() {\n  }\n}"},
		{"rust", "a.rs", "pub fn parse(s: &str) -> u32 {\n    0\n}\n", "parse", "pub fn parse(s: &str) -> u32 {\n    0\n}"},
		{"no such symbol", "a.go", "func Get() {}\n", "Put", ""},
		{"prefix of another name", "a.go", "func GetAll() {}\n", "Get", ""},
	}
	for _, tc := range tests {
		got, ok := block(tc.file, []byte(tc.src), tc.symbol)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: block = %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}

func TestCoverPrefixes(t *testing.T) {
	t.Parallel()
	got := coverPrefixes([]string{"src/a.go", "src", "docs/x.md", "src", "srcx/b.go", "docs/x.md"})
	if want := []string{"docs/x.md", "src", "srcx/b.go"}; !slices.Equal(got, want) {
		t.Fatalf("coverPrefixes = %q, want %q", got, want)
	}
	if got := coverPrefixes([]string{"a", "", "b/c"}); !slices.Equal(got, []string{""}) {
		t.Fatalf("with the root: %q", got)
	}
}
