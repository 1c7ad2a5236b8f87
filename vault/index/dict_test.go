package index

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestDefaultDictionary(t *testing.T) {
	t.Parallel()
	d, err := parseDictionary(defaultTerms)
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, l := range strings.Split(defaultTerms, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines++
		}
	}
	if lines < 300 {
		t.Errorf("dictionary has %d groups, want a broad one (>= 300)", lines)
	}
	if len(d.terms) < 2000 {
		t.Errorf("dictionary has %d terms, want >= 2000", len(d.terms))
	}
}

// expansions returns the expansion terms the index adds to a query.
func expansions(ix *Index, q string) []string {
	var out []string
	for _, t := range ix.analyzeQuery(q) {
		if !t.typed {
			out = append(out, t.text)
		}
	}
	return out
}

func TestExpansion(t *testing.T) {
	t.Parallel()
	ix := New()
	tests := []struct {
		query   string
		want    []string // must all be expansions
		notWant []string // must not be expansions
	}{
		{"部署", []string{"deploy", "releas", "上线"}, nil},
		{"deploy to prod", []string{"部署", "发布", "生产"}, nil},
		{"how to sign in", []string{"登录", "login"}, nil},
		{"sign-in page", []string{"登录"}, nil},
		{"令牌", []string{"token"}, nil},
		{"订单号怎么生成", []string{"order", "流程"}, nil},
		{"为什么不用 MySQL", []string{"原因", "因为", "reason"}, nil},
		{"API 网关", []string{"gateway"}, nil},
		{"supported payment channels", []string{"支付", "渠道"}, nil},
		// Everyday words for what a vault records in technical ones.
		{"are smiley faces okay", []string{"emoji"}, nil},
		{"登录过期了怎么办", []string{"401", "unauthoriz"}, nil},
		{"商品数量怎么锁住", []string{"库存", "inventori"}, nil},
		{"库存", nil, []string{"商品数量"}}, // one way
		{"farming vouchers", []string{"abus", "防刷"}, nil},
		// One way: a reason does not expand back into question words.
		{"原因", []string{"理由"}, []string{"为什么", "为何"}},
		// Typed terms are not repeated as expansions.
		{"deploy 部署", []string{"发布"}, []string{"deploy", "部署"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := expansions(ix, tt.query)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("expansions(%q) = %v, want %q among them", tt.query, got, w)
				}
			}
			for _, w := range tt.notWant {
				if slices.Contains(got, w) {
					t.Errorf("expansions(%q) = %v, want no %q", tt.query, got, w)
				}
			}
		})
	}
}

func TestExpansionWeighsLess(t *testing.T) {
	t.Parallel()
	ix := New()
	for _, q := range []string{"部署 生产", "login token", "订单超时"} {
		var typedMin, expMax float64 = 10, 0
		for _, t := range ix.analyzeQuery(q) {
			if t.typed && t.kind != kindPart && t.kind != kindUnigram {
				typedMin = min(typedMin, t.w)
			} else if !t.typed {
				expMax = max(expMax, t.w)
			}
		}
		if expMax >= typedMin {
			t.Errorf("%q: an expansion weighs %v, a typed term %v", q, expMax, typedMin)
		}
	}
}

func TestParseDictionary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		src     string
		wantErr bool
		query   string
		want    []string
	}{
		{name: "group", src: "# c\n\n订单 | order\n", query: "订单", want: []string{"order"}},
		{name: "one way", src: "为什么 -> 原因 | reason\n", query: "为什么", want: []string{"原因", "reason"}},
		{name: "one way does not go back", src: "为什么 -> 原因\n", query: "原因", want: nil},
		{name: "multi-word", src: "登录 | sign in\n", query: "how to sign in", want: []string{"登录"}},
		{name: "mixed term", src: "api 网关 | gateway\n", query: "api网关", want: []string{"gateway"}},
		{name: "not transitive", src: "a1 | b1\nb1 | c1\n", query: "a1", want: []string{"b1"}},
		{name: "single term", src: "订单\n", wantErr: true},
		{name: "empty term", src: "订单 | | order\n", wantErr: true},
		{name: "punctuation only", src: "订单 | ，。\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parseDictionary(tt.src)
			if tt.wantErr {
				var de *DictError
				if !errors.As(err, &de) {
					t.Fatalf("parseDictionary error = %v, want a *DictError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ix := newIndex(defaultParams(), d)
			got := expansions(ix, tt.query)
			if !slices.Equal(got, tt.want) {
				t.Errorf("expansions(%q) = %v, want %v", tt.query, got, tt.want)
			}
		})
	}
}

func TestNewWithTerms(t *testing.T) {
	t.Parallel()
	ix, err := NewWithTerms("# project words\n枫叶 | maplemart\n")
	if err != nil {
		t.Fatal(err)
	}
	ix.Put(1, Doc{Title: "MapleMart storefront", Body: "the shop"})
	if got := ix.Search(Query{Text: "枫叶"}); len(got) != 1 || got[0].ID != 1 {
		t.Errorf("custom synonym: got %v, want doc 1", ids(got))
	}
	_, err = NewWithTerms("ok | fine\nlonely\n")
	var de *DictError
	if !errors.As(err, &de) || de.Line != 2 {
		t.Errorf("NewWithTerms error = %v, want a *DictError on line 2", err)
	}
}
