package index

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokenize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"camelCase identifier", "OrderCreated", []string{"order", "creat", "ordercreated"}},
		{"acronym then word", "HTTPServer", []string{"http", "server", "httpserver"}},
		{"snake_case", "gen_order_no", []string{"gen", "order", "no", "gen_order_no"}},
		{"kebab-case", "state-machine", []string{"stat", "machin", "state-machine"}},
		{"path", "ops/deploy.sh", []string{"ops", "deploy", "sh", "deploy.sh", "ops/deploy.sh"}},
		{"dotted name", "order.events.v1", []string{"order", "event", "v1", "order.events.v1"}},
		{"version kept whole", "Elasticsearch 8.11", []string{"elasticsearch", "8.11"}},
		{"patch version also answers to minor", "iOS 3.8.0", []string{"os", "ios", "3.8.0", "3.8"}},
		{"version inside identifier", "python:3.11-slim", []string{"python", "3.11", "slim", "3.11-slim"}},
		{"numbers kept", "8101 port", []string{"8101", "port"}},
		{"CJK bigrams", "订单服务", []string{"订单", "单服", "服务"}},
		{"one-character CJK run", "库", []string{"库"}},
		{"script boundary splits", "v2订单", []string{"v2", "订单"}},
		{"function words split CJK runs", "支付的回调", []string{"支付", "回调"}},
		{"question words dropped", "链路追踪用什么系统", []string{"链路", "路追", "追踪", "踪用", "系统"}},
		{"full-width ASCII folded", "ＯｒｄｅｒＩＤ，订单", []string{"order", "id", "orderid", "订单"}},
		{"ideographic space separates", "订单　支付", []string{"订单", "支付"}},
		{"English stop words dropped", "how do we deploy the service", []string{"deploy", "servic"}},
		{"plural, -ing, -ed meet", "creates creating created", []string{"creat", "creat", "creat"}},
		{"y and ies meet", "policy policies", []string{"polici", "polici"}},
		{"short words left alone", "bus gas", []string{"bus", "gas"}},
		{"exceptions left alone", "redis kubernetes alias", []string{"redis", "kubernetes", "alias"}},
		{"trailing dot is punctuation", "Use Redis.", []string{"redis"}},
		{"punctuation only", "，。！？…", nil},
		{"empty", "", nil},
		{"lowercase non-ASCII", "Ärger ÜBER", []string{"ärger", "über"}},
		{"windows path", `C:\tools\run.bat`, []string{"c", "tool", "run", "bat", "run.bat", "tools/run.bat"}},
		{"decorator and call", "@require_perm('order:refund')", []string{"requir", "perm", "require_perm", "order", "refund"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tokenize(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Tokenize(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestStem(t *testing.T) {
	t.Parallel()
	groups := [][]string{
		{"deploy", "deploys", "deployed", "deploying"},
		{"cache", "caches", "cached", "caching"},
		{"name", "names", "named", "naming"},
		{"retry", "retries", "retried"},
		{"index", "indexes", "indexed", "indexing"},
		{"log", "logs", "logged", "logging"},
		{"alias", "aliases"},
		{"class", "classes"},
	}
	for _, g := range groups {
		t.Run(g[0], func(t *testing.T) {
			want := string(stem([]byte(g[0])))
			for _, w := range g[1:] {
				if got := string(stem([]byte(w))); got != want {
					t.Errorf("stem(%q) = %q, want %q (as %q)", w, got, want, g[0])
				}
			}
		})
	}
}

func TestTokenOffsets(t *testing.T) {
	t.Parallel()
	s := "部署 ops/deploy.sh 到生产"
	var a analyzer
	a.analyze(s, func(tk *token) {
		if tk.start < 0 || tk.end > len(s) || tk.start >= tk.end {
			t.Fatalf("token %q has offsets [%d,%d) outside %d bytes", tk.text, tk.start, tk.end, len(s))
		}
		if tk.kind == kindBigram || tk.kind == kindUnigram {
			if got := s[tk.start:tk.end]; got != string(tk.text) {
				t.Errorf("CJK token %q spans %q", tk.text, got)
			}
		}
	})
}

// analyzeAll returns every token of s, with the plainWord shortcut or not.
func analyzeAll(s string, slow, keepStops bool) []token {
	a := analyzer{slow: slow, keepStops: keepStops, runs: keepStops}
	var out []token
	a.analyze(s, func(t *token) {
		c := *t
		c.text = append([]byte(nil), t.text...)
		out = append(out, c)
	})
	return out
}

// checkPlainWords fails t if the plainWord shortcut changes any token of s.
func checkPlainWords(t *testing.T, s string) {
	t.Helper()
	for _, keep := range []bool{false, true} {
		want, got := analyzeAll(s, true, keep), analyzeAll(s, false, keep)
		if d := cmp.Diff(want, got, cmp.AllowUnexported(token{})); d != "" {
			t.Fatalf("analyze(%q, keepStops=%v) with the shortcut differs (-without +with):\n%s", s, keep, d)
		}
	}
}

func TestPlainWordShortcut(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"plain words only", "Capitalized Words and MiXed", "HTTPServer OrderCreated iOS",
		"gen_order_no state-machine ops/deploy.sh order.events.v1 a\\b", "trailing. dot, comma; x-",
		"x_", "a.", "3.8.0 8.11 v2 2026 10x", "v2订单 订单v2 abc订单", "ＯｒｄｅｒＩＤ ab１２ abＡ ab／c",
		"café naïve Ärger über", "ab\u0301c", "the and of a an", strings.Repeat("x", 70) + " " + strings.Repeat("y", 64),
		"ab\xffcd", "end", "a", "Z",
		// Identifiers (the ident shortcut) and runs that only look like one.
		"order_id dead-letter-queue a_b x-1 1_x the_and of-the v2_3.8 gen_order_no_",
		"order_id.go order_id/x order_idX order_id订单 订单order_id order__id order_-id",
		"order_ID order_ïd order_id́ a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p-q-r-s " + strings.Repeat("ab_", 30) + "z",
		"running_tests tested-cases " + strings.Repeat("q", 65) + "_x",
	} {
		t.Run(s, func(t *testing.T) { checkPlainWords(t, s) })
	}
	for _, s := range fuzzSeeds(t) {
		checkPlainWords(t, s)
	}
}
