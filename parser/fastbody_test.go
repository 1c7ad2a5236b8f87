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
	t.Parallel()
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
		{"1. ordered\n", true},
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
		{"```\nfence\n```\n", true},
		{"~~~\nfence\n~~~\n", false},
		{"<div>html</div>\n", false},
		{"[ref]: http://x\n", false},
		{"a [link](http://x)\n", true},
		{"a [[wiki]] link\n", true},
		{"an ![[embed]]\n", true},
		{"*emphasis*\n", true},
		{"_emphasis_\n", true},
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
		// Emphasis and strong where flanking is plain.
		{"**Note:** text and *em* and _em_ and __strong__.\n", true},
		{"a **b** c\nnext line\n", true},
		{"ends with **strong**\nnext\n", true},
		{"ends with *em*\n*em* starts\n", true},
		{"(**a**) \"*b*\" x, **c**; _d_: **e**? **f**! -**g**- /*h*/\n", true},
		{"foo**bar**baz and foo*bar*baz\n", true},
		{"中文**粗体**中文 and 中*斜*文\n", true},
		{"**注意：** 这是 **重点**。\n", true},
		{"，**粗体**。（_斜体_）\n", true},
		{"**#tag**x\n", true},
		{"*a*b*c*\n", true},
		{"- **bold** item\n1. *em* item\n", true},
		{"# **Bold** heading\n", true},
		{"foo_bar_baz\n", true},
		{"中_斜_文\n", false},
		{"***both***\n", false},
		{"**a*\n", false},
		{"*a**\n", false},
		{"** a**\n", false},
		{"**a **\n", false},
		{"**a\nb**\n", false},
		{"**a `c` b** **`x`** (*`y`*), **z `w`**.\n", true},
		{"**a `b** c`\n", false},
		{"**a `*` b**\n", true},
		{"**a ``b`` c**\n", false},
		{"**a `b` `c**\n", false},
		{"a**`b`**c\n", false},
		{"**#tag** and *#x*\n", true},
		{"**a_b**\n", false},
		{"*a **b** c*\n", false},
		{"**a**b\n", true},
		{"__a__b\n", false},
		{"a__b__\n", false},
		{"*\n", false},
		{"**\n", false},
		{"***\n", false},
		{"_ _ _\n", false},
		{"* item\n", false},
		{"*foo`*`\n", false},
		// Inline links with a plain URL.
		{"see [the docs](https://example.com/a_b?x=1#frag) now\n", true},
		{"[start](http://x) of line\n", true},
		{"ends [with](u)\nnext\n", true},
		{"[a](u) [b](v) [a](u)\n", true},
		{"[#tag text](u) #real\n", true},
		{"[a]( u)\n", false},
		{"[a](u \"title\")\n", false},
		{"[a](<u>)\n", false},
		{"[a](u(1))\n", false},
		{"[a](u\\_x)\n", false},
		{"[a](u&amp;v)\n", false},
		{"[a]()\n", false},
		{"[](u)\n", false},
		{"[ a](u)\n", false},
		{"[a *b*](u)\n", false},
		{"[a `b](c)`\n", false},
		{"[a]\n", false},
		{"[a][b]\n", false},
		{"[a]: http://x\n", false},
		{"![alt](img.png)\n", false},
		{"- [ ] task\n", false},
		{"- [x] done\n", false},
		// Wiki links as wikiLinkParser reads them.
		{"[[note]] and [[other|Label]] and [[ spaced | lab ]] and [[note]]\n", true},
		{"see ![[embed.png]] here\n", true},
		{"[[a#heading]] [[中文笔记]]\n", true},
		{"- [[item link]]\n1. [[x|y]]\n", true},
		{"[[wiki]]: def?\n", false},
		{"[[]]\n", false},
		{"[[ |label]]\n", false},
		{"[[a]b]]\n", false},
		{"[[a\n", false},
		{"[[a]]]\n", false},
		{"[[[a]]\n", false},
		{"`[[code]]` [[real]]\n", true},
		// Ordered items.
		{"1. one\n2. two\n10. ten\nlazy\n", true},
		{"para\n1. interrupts\n", true},
		{"para\n2. does not interrupt\n", false},
		{"- bullet\n1. ordered\n- bullet\n", true},
		{"- bullet\n2. ordered\n", false},
		{"1. a\n\n3. b\n", true},
		{"1) paren\n", false},
		{"1.\n", false},
		{"1. \n", false},
		{"1.  two spaces\n", false},
		{"1. - nested\n", false},
		{"1. 2. nested\n", false},
		{"1234567890. big\n", false},
		{"1.5 not a list\n", true},
		// A '<' before a blank is text.
		{"p99 < 250 ms, x > y\n", true},
		{"a <- b\n", false},
		{"**a < b** [x < y](u)\n", false},
		{"a <b>\n", false},
		{"a <http://x>\n", false},
		{"a <\n", false},
		{"< b\n", false},
		// Fenced code blocks.
		{"```\nfence\n```\n", true},
		{"text\n```go\nfunc main() {\n\tx := `a`\n}\n```\nafter\n", true},
		{"```\n```\n", true},
		{"# H\n```\n```\npara\n", true},
		{"```\n\n```\n", true},
		{"# H\n\n```\n\n\n```\n", true},
		{"```\na\n\nb #notag [[nowiki]] **x**\n```", true},
		{"- item\n```\ncode\n```\n", true},
		{"```c++\nx\n```\n", true},
		{"```\nunclosed\n", false},
		{"```\nx\n````\n", false},
		{"```\nx\n ```\n", false},
		{"```\nx\n```   \n", false},
		{"```\n```js\n```\n", false},
		{"````\nx\n````\n", false},
		{"``` go\nx\n```\n", false},
		{"```go title\nx\n```\n", false},
		{"```\nx\r\n```\n", false},
		{" ```\nx\n```\n", false},
		{"~~~\nx\n~~~\n", false},
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
	t.Parallel()
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
		// The constructs fastBody takes beyond plain text, and near misses.
		"**Note:** a *b* _c_ __d__ foo**e**f 中**粗**文 **注意：** (*g*)\n",
		"*a*b*c* **a*b** *a **b** c* ***x*** _a_b_ a_b_ **a\nb**\n",
		"see [docs](https://x.io/a_b#c) [a](u \"t\") [a](<u>) [a]() [](u) ![i](p)\n",
		"[[note]] [[a|Label]] ![[e.png]] [[ |x]] [[a]]: [[a]b]] [[[a]]\n",
		"1. one\n2. two\nlazy\npara\n2. no\n- b\n1. yes\n1) no\n",
		"text\n```go\nfunc f() {\n\treturn `x`\n}\n```\n\n```\n\n```\n- i\n```\nc\n```\n",
		"```\nx\n ```\n````\n~~~\n```js\n```\n", "```\nunclosed\n", "``` go\nx\n```\n",
		"p99 < 250 ms <b> <http://x> a <- b x > y a <\n",
		"**a `c` b** **`x`**, (*`y`*) **a `b** c` a**`b`**c **a ``b`` c** **a `*` b**\n",
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
