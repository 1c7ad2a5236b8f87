package parser

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Body
	}{
		{
			name: "empty",
			in:   "",
			want: Body{},
		},
		{
			name: "first H1 only",
			in:   "Intro\n\n## Sub\n\n# First *one*\n\n# Second\n",
			want: Body{Heading: "First one", Text: "Intro\nSub\nFirst one\nSecond"},
		},
		{
			name: "setext H1",
			in:   "Title `code`\n=====\n\ntext\n",
			want: Body{Heading: "Title code", Text: "Title code\ntext"},
		},
		{
			name: "plain text without syntax",
			in: "Some **bold**, _em_ and ~~strike~~ text,\nwrapped.\n\n" +
				"- item one\n- item *two*\n\n> quoted\n\n1. first\n\n---\n\n<div>html block</div>\n\ninline <b>html</b>, \\*escaped\\*, &amp; &#x4e2d;\n",
			want: Body{Text: "Some bold, em and ~~strike~~ text, wrapped.\nitem one\nitem two\nquoted\nfirst\ninline html, *escaped*, & 中"},
		},
		{
			name: "code kept as text",
			in:   "Use `PaymentStrategy.Pay()` here.\n\n```go\nfunc Pay() error {\n\treturn nil\n}\n```\n\n    indented code\n",
			want: Body{Text: "Use PaymentStrategy.Pay() here.\nfunc Pay() error {\n\treturn nil\n}\nindented code"},
		},
		{
			name: "links: text kept, URLs dropped",
			in:   "See [the ADR](https://example.com/adr/12 \"title\") and [ref][r] and <https://auto.example/x>.\n\n![diagram](img.png)\n\n[r]: https://example.com/ref\n",
			want: Body{
				Text:  "See the ADR and ref and .\ndiagram",
				Links: []string{"https://example.com/adr/12", "https://example.com/ref", "https://auto.example/x"},
			},
		},
		{
			name: "wiki links",
			in:   "Read [[payments-overview]] and [[Checkout#Flow|the flow]], again [[payments-overview]], ![[diagram.png]].\n\n`[[not-in-span]]`\n\n```\n[[not-in-block]]\n```\n\n[[ ]] [[a\nb]]\n",
			want: Body{
				Text:      "Read payments-overview and the flow, again payments-overview, diagram.png.\n[[not-in-span]]\n[[not-in-block]]\n[[ ]] [[a b]]",
				WikiLinks: []string{"payments-overview", "Checkout#Flow", "diagram.png"},
			},
		},
		{
			name: "wiki link inside a link label",
			in:   "[see [[x]]](http://l)\n",
			want: Body{Text: "see x", Links: []string{"http://l"}, WikiLinks: []string{"x"}},
		},
		{
			name: "inline tags",
			in: "#start of line and #checkout/strategy, #结算 #snake_case #kebab-case #Checkout #checkout/strategy\n\n" +
				"Not: C#, x#y, #123, `#code`, \\#escaped, https://x.io/#frag, [t](http://x/#a)\n\n" +
				"# Heading with #draft\n\n```\n#incode\n```\n",
			want: Body{
				Heading: "Heading with #draft",
				Text: "#start of line and #checkout/strategy, #结算 #snake_case #kebab-case #Checkout #checkout/strategy\n" +
					"Not: C#, x#y, #123, #code, #escaped, https://x.io/#frag, t\nHeading with #draft\n#incode",
				Links: []string{"http://x/#a"},
				Tags:  []string{"start", "checkout/strategy", "结算", "snake_case", "kebab-case", "Checkout", "draft"},
			},
		},
		{
			name: "CRLF body",
			in:   "# Title\r\n\r\nline one\r\nline two\r\n\r\n```\r\ncode\r\n```\r\n",
			want: Body{Heading: "Title", Text: "Title\nline one line two\ncode"},
		},
		{
			name: "chinese",
			in:   "# 结算策略\n\n结算流程使用**策略模式**，见 [[支付概览]]。 #架构\n",
			want: Body{Heading: "结算策略", Text: "结算策略\n结算流程使用策略模式，见 支付概览。 #架构", WikiLinks: []string{"支付概览"}, Tags: []string{"架构"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseBody([]byte(tt.in), nil)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBodyFromParse(t *testing.T) {
	t.Parallel()
	d, _ := Parse("m.md", []byte(canonical))
	want := Body{Text: "Body: the decision and why (Markdown)."}
	if diff := cmp.Diff(want, d.Body, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Body (-want +got):\n%s", diff)
	}
	d.SetBody([]byte("# New\n\n[[x]]\n"))
	want = Body{Heading: "New", Text: "New\nx", WikiLinks: []string{"x"}}
	if diff := cmp.Diff(want, d.Body, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Body after SetBody (-want +got):\n%s", diff)
	}
}

func TestBodyDedupMany(t *testing.T) {
	t.Parallel()
	var in []byte
	for i := range 100 {
		in = fmt.Appendf(in, "[[n%d]] #t%d [[n%d]] #t%d\n", i%50, i%40, i%50, i%40)
	}
	b := parseBody(in, nil)
	if len(b.WikiLinks) != 50 || len(b.Tags) != 40 {
		t.Errorf("got %d wiki links and %d tags, want 50 and 40", len(b.WikiLinks), len(b.Tags))
	}
	if b.WikiLinks[49] != "n49" || b.Tags[39] != "t39" {
		t.Errorf("order lost: last wiki link %q, last tag %q", b.WikiLinks[49], b.Tags[39])
	}
}

func TestMarkdownSource(t *testing.T) {
	t.Parallel()
	normal := []byte(strings.Repeat("A normal paragraph line.\n", 100))
	if got := markdownSource(normal); &got[0] != &normal[0] || len(got) != len(normal) {
		t.Errorf("a normal body was copied or changed")
	}

	long := []byte(strings.Repeat("word ", 1000) + "\n") // 5000 bytes, one line
	got := markdownSource(long)
	for line := range strings.Lines(string(got)) {
		if len(line) > maxLineBytes {
			t.Errorf("line of %d bytes after wrapping, want <= %d", len(line), maxLineBytes)
		}
	}
	if want := strings.Join(strings.Fields(string(long)), " "); strings.Join(strings.Fields(string(got)), " ") != want {
		t.Errorf("wrapping at blanks changed the words")
	}

	cjk := []byte(strings.Repeat("结算", 1000) + "\n") // no blanks at all
	got = markdownSource(cjk)
	if !utf8.Valid(got) || strings.ReplaceAll(string(got), "\n", "") != strings.TrimSuffix(string(cjk), "\n") {
		t.Errorf("wrapping CJK text split a character or lost text")
	}

	run := []byte(strings.Repeat("x\n", maxRunLines+10))
	got = markdownSource(run)
	if !bytes.Contains(got, []byte("\n\n")) || bytes.Count(got, []byte("x")) != maxRunLines+10 {
		t.Errorf("a long run of lines was not split by a blank line, or lost lines")
	}

	huge := []byte(strings.Repeat("y\n\n", maxWalkBytes))
	if got := markdownSource(huge); len(got) > maxWalkBytes {
		t.Errorf("source of %d bytes, want <= %d", len(got), maxWalkBytes)
	}
}

// hostileBodies are inputs on which goldmark is quadratic without the
// bounds of markdownSource.
func hostileBodies(n int) map[string]string {
	return map[string]string{
		"brackets":    strings.Repeat("[", n),
		"wiki opens":  strings.Repeat("[[a", n/3),
		"link opens":  strings.Repeat("[a](", n/4),
		"blockquotes": strings.Repeat("> ", n/2),
		"emphasis":    strings.Repeat("*_", n/2),
		"references":  strings.Repeat("[a]: b\n", n/7),
	}
}

func TestParseHostileBodies(t *testing.T) {
	t.Parallel()
	for name, body := range hostileBodies(64 << 10) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := []byte("---\nid: a\n---\n" + body)
			d, _ := Parse("m.md", in)
			if d == nil || !bytes.Equal(d.Format(), in) || !bytes.Equal(d.BodyBytes(), []byte(body)) {
				t.Fatalf("hostile body not kept as is")
			}
		})
	}
}
