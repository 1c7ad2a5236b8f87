package parser

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// checkFastBody fails t if fastBody accepts src but walks it to a Body that
// differs from goldmark's. It reports whether fastBody took src.
func checkFastBody(t *testing.T, src []byte) bool {
	t.Helper()
	var b Body
	w := bodyWalker{src: src, b: &b}
	if !fastBody(src, &w) {
		return false
	}
	b.Text = string(w.text)
	if d := cmp.Diff(goldmarkBody(src), b); d != "" {
		t.Fatalf("fastBody differs from goldmark (-goldmark +fast):\n%s\ninput: %q", d, src)
	}
	return true
}

func TestFastBodyMatches(t *testing.T) {
	tests := []struct {
		in   string
		fast bool // fastBody must take it
	}{
		{"", true},
		{"\n\n\n", true},
		{"# Title\n\nSome text.\n", true},
		{"# Title\n\nline one\nline two\n\n- a\n- b `code_x` c\n", true},
		{"# 结算策略\n\n结算 用 `PaymentStrategy.Pay()` 实现，见 #架构 和 #arch/v2。\n", true},
		{"para\n- item interrupts\nlazy continuation\n# heading interrupts\ntext", true},
		{"## Sub\n# First\n# Second\n", true},
		{"#tag at start\n#another-tag\n", true},
		{"####### seven is text\n", false},
		{"snake_case and a_b_c but `x_y`\n", true},
		{"2026 年的计划\n1.5 版本\n10x faster\n", true},
		{"1. ordered\n", false},
		{"3) ordered\n", false},
		{"wow! such text? yes: (a) {b} \"c\" 'd' | e ~ f ^ g % h $ i @ j / k = l + m - n > o\n", true},
		{"http://example.com/a#b and a@b.c\n", true},
		{"C# is not a heading; #1 is not a tag\n", true},
		{"trailing space \nnext\n", false},
		{"hard break\\\nnext\n", false},
		{"  indented\n", false},
		{"\tindented\n", false},
		{"crlf\r\n", false},
		{"Setext\n===\n", false},
		{"Setext\n---\n", false},
		{"- \n", false},
		{"-\n", false},
		{"- - -\n", false},
		{"* star item\n", false},
		{"+ plus item\n", false},
		{"> quote\n", false},
		{"```\nfence\n```\n", false},
		{"~~~\nfence\n~~~\n", false},
		{"<div>html</div>\n", false},
		{"[ref]: http://x\n", false},
		{"a [link](http://x)\n", false},
		{"a [[wiki]] link\n", false},
		{"an ![[embed]]\n", false},
		{"*emphasis*\n", false},
		{"_emphasis_\n", false},
		{"a_ b\n", false},
		{"&amp; entity\n", false},
		{"\\* escaped\n", false},
		{"`unclosed code\n", false},
		{"``double``\n", false},
		{"` spaced `\n", false},
		{"`a``\n", false},
		{"``\n", false},
		{"#\n", false},
		{"# \n", false},
		{"#  two spaces\n", false},
		{"# closing #\n", false},
		{"#\ttab\n", false},
		{"- # heading in item\n", false},
		{"- > quote in item\n", false},
		{"- 1. nested\n", false},
		{"-  two spaces\n", false},
		{"- item\n  indented continuation\n", false},
		{"tab\tinside\n", false},
		{"no final newline", true},
		{"- item `code` #tag\n\n- loose item\n\nafter list\n", true},
		{"`code` at start\n", true},
		{"a `b` `c` d\n", true},
		{"ends with `code`\nnext line\n", true},
		{"mixed #tag1, #tag2 and #标签 #123 #a-b/c\n", true},
		// Form feed and vertical tab are not blanks to goldmark.
		{"foo\f\n\ffoo\n\f\n`a\v`\n", true},
		{"ideographic\u3000space\u3000\n\u3000lead\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := checkFastBody(t, []byte(tt.in)); got != tt.fast {
				t.Errorf("fastBody took it = %v, want %v", got, tt.fast)
			}
		})
	}
}

// TestFastBodyFiles runs the differential check over the Markdown files in
// the repository's test data and sample vault.
func TestFastBodyFiles(t *testing.T) {
	var paths []string
	for _, g := range []string{"testdata/roundtrip/*.md", "../sample-vault/*/*.md", "../*.md", "../docs/*.md"} {
		m, _ := filepath.Glob(g)
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		t.Fatal("no Markdown files found")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := Parse(p, data)
		if d == nil {
			continue
		}
		checkFastBody(t, markdownSource(d.BodyBytes()))
		// Each paragraph-sized piece alone, so that files goldmark has
		// to take as a whole still exercise the fast path.
		for _, part := range splitBlankLines(d.BodyBytes()) {
			checkFastBody(t, part)
		}
	}
}

func splitBlankLines(b []byte) [][]byte {
	var out [][]byte
	start := 0
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\n' && b[i+1] == '\n' {
			out = append(out, b[start:i+1])
			start = i + 2
		}
	}
	return append(out, b[start:])
}

// FuzzFastBody checks that whatever fastBody accepts, goldmark walks to the
// same Body.
func FuzzFastBody(f *testing.F) {
	for _, s := range []string{
		"# Title\n\nSome text.\n\n- a\n- b `c_d` #tag\n", "a_b `x` c\nd\n- e\n# f\n",
		"#tag\n2026 年\n", "结算 `Pay()` #架构\n", "para\n- item\nlazy\n",
	} {
		f.Add([]byte(s))
	}
	seeds, _ := filepath.Glob("../sample-vault/*/*.md")
	for _, p := range seeds {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if !utf8.Valid(src) {
			return // Parse rejects it before any body walk
		}
		checkFastBody(t, markdownSource(src))
	})
}
