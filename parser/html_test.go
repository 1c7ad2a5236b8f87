package parser

import (
	"strings"
	"testing"
)

func TestHTMLIsInert(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       []string // substrings the output has
		never      []string // substrings it must not have
	}{
		{"markdown", "# T\n\nSome **bold** and `code`.\n", []string{"<h1>T</h1>", "<strong>bold</strong>", "<code>code</code>"}, nil},
		{"script tag", "<script>alert(1)</script>\n\ntext <script>x()</script>", []string{"text"}, []string{"<script"}},
		{"inline html", "a <img src=x onerror=alert(1)> b", []string{"a "}, []string{"<img", "onerror"}},
		{"javascript link", "[click](javascript:alert(1))", []string{">click</a>"}, []string{"javascript:"}},
		{"javascript autolink", "<javascript:alert(1)>", nil, []string{`href="javascript:`}},
		{"data link", "[x](data:text/html;base64,PHNjcmlwdD4=)", nil, []string{`href="data:`}},
		{"attribute breakout", `[x](http://a.example/"onmouseover="alert(1))`, nil, []string{`" onmouseover`, `"onmouseover="`}},
		{"wiki link", "see [[Checkout design]]", []string{"[[Checkout design]]"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := HTML([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("HTML(%q) = %q, want it to contain %q", tt.body, out, w)
				}
			}
			for _, n := range tt.never {
				if strings.Contains(strings.ToLower(string(out)), strings.ToLower(n)) {
					t.Errorf("HTML(%q) = %q, contains %q", tt.body, out, n)
				}
			}
		})
	}
}

func FuzzHTML(f *testing.F) {
	f.Add([]byte("# t\n<script>x</script>[a](javascript:b)"))
	f.Add([]byte("<div onclick=x>y</div>"))
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := HTML(body)
		if err != nil {
			return
		}
		low := strings.ToLower(string(out))
		for _, bad := range []string{"<script", "<iframe", `href="javascript:`, "<svg", "<style", "<object"} {
			if strings.Contains(low, bad) {
				t.Fatalf("HTML(%q) = %q: contains %q", body, out, bad)
			}
		}
	})
}
