package parser

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestBody(t *testing.T) {
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
			got := parseBody([]byte(tt.in))
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBodyFromParse(t *testing.T) {
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
