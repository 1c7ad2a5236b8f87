package parser

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// sameTree reports how the fast path's tree differs from yaml.v3's, "" if
// it does not (comments aside).
func sameTree(fast, full *yaml.Node, path string) string {
	switch {
	case fast.Kind != full.Kind:
		return fmt.Sprintf("%s: kind %v, want %v", path, fast.Kind, full.Kind)
	case fast.Style != full.Style:
		return fmt.Sprintf("%s: style %v, want %v", path, fast.Style, full.Style)
	case fast.ShortTag() != full.ShortTag():
		return fmt.Sprintf("%s: tag %s, want %s", path, fast.ShortTag(), full.ShortTag())
	case fast.Value != full.Value:
		return fmt.Sprintf("%s: value %q, want %q", path, fast.Value, full.Value)
	case fast.Line != full.Line || fast.Column != full.Column:
		return fmt.Sprintf("%s: at %d:%d, want %d:%d", path, fast.Line, fast.Column, full.Line, full.Column)
	case len(fast.Content) != len(full.Content):
		return fmt.Sprintf("%s: %d children, want %d", path, len(fast.Content), len(full.Content))
	}
	for i := range fast.Content {
		if d := sameTree(fast.Content[i], full.Content[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// checkFastYAML fails t if the fast path accepts fm but builds a tree that
// differs from yaml.v3's (or yaml.v3 rejects fm). It reports whether the
// fast path took fm.
func checkFastYAML(t *testing.T, fm []byte) bool {
	t.Helper()
	fast := fastYAML(fm, nil)
	if fast == nil {
		return false
	}
	full, _, err := fullYAML(fm)
	if err != nil {
		t.Fatalf("fast path accepted front matter yaml.v3 rejects (%v):\n%q", err, fm)
	}
	if full == nil {
		t.Fatalf("fast path built a mapping, yaml.v3 found none:\n%q", fm)
	}
	if d := sameTree(fast, full, "root"); d != "" {
		t.Fatalf("fast path differs from yaml.v3: %s\n%q", d, fm)
	}
	return true
}

func TestFastYAMLMatchesYAML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fm   string
		fast bool // the fast path must take it
	}{
		{"id: a\ntitle: Checkout uses the strategy pattern\n", true},
		{"layer: project               # 1..5\nimportance: 8 # c\n", true},
		{"tags: [checkout, architecture, 结算]\naliases: [结算策略, 'it''s', \"q: x\"]\n", true},
		{"source: {client: claude-code, kind: manual}\nempty: []\nnone: {}\n", true},
		{"created_at: 2026-11-30T10:02:11Z\nd: 2026-11-30\nn: 3\nf: 1.5\nb: true\nnl: null\nt: ~\n", true},
		{"tags:\n  - a\n  - 'b'\n  # c\n\n  - \"d\"\nnext: x\n", true},
		{"tags: # comment\n- a\n- b\n", true},
		{"# head\n\nid: a   \n\n# tail\n", true},
		{"title: a [b] {c}, d and C# and http://x.io/a#b\n", true},
		{"title: \"  spaced  \"\nx: '  '\ny: \"\"\n", true},
		{"title: 结算：使用策略模式  # 注释\ntags: [结算, 架构]   \n", true},
		{"1: int key\nnull: null key\ntrue: bool key\nk.e-y_: v\n", true},
		{"id: a\r\ntags: [x]\r\n", true},
		{"a: b: c\n", false},
		{"a: b\n  c\n", false},
		{"a: |\n  x\n", false},
		{"a: &x y\nb: *x\n", false},
		{"a: [b\n", false},
		{"a: [b,]\n", false},
		{"a:\n", false},
		{"a:\n  b: c\n", false},
		{"a: \"esc\\n\"\n", false},
		{"a: 'unclosed\n", false},
		{"a: \"x\" y\n", false},
		{"a:\tb\n", false},
		{"- a\n", false},
		{"a: -1\n", false},
		{"a: [x: y]\n", false},
		{"a: {k: v: w}\n", false},
		{"a: b #c\n#d\n  # e\n", true},
		{"a: b\n...\n", false},
		{"a: \u2028\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.fm, func(t *testing.T) {
			if got := checkFastYAML(t, []byte(tt.fm)); tt.fast && !got {
				t.Errorf("fast path did not take it")
			}
		})
	}
}

// TestFastYAMLOnFiles checks the fast path on every front matter in
// testdata and the sample vault, and that it takes the sample vault's
// (they are what real memories look like).
func TestFastYAMLOnFiles(t *testing.T) {
	t.Parallel()
	for _, pattern := range []string{"testdata/roundtrip/*.md", "testdata/roundtrip/*.golden", "../sample-vault/*/*.md"} {
		paths, _ := filepath.Glob(pattern)
		for _, path := range paths {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			d, _ := Parse(path, data)
			if d == nil || !d.hasFM || isBlankYAML(d.fm) {
				continue
			}
			if took := checkFastYAML(t, d.fm); !took && filepath.Base(filepath.Dir(path)) != "roundtrip" {
				t.Errorf("%s: fast path did not take a sample memory", path)
			}
		}
	}
}

// FuzzFrontMatter holds the fast path to yaml.v3 on arbitrary front matter.
func FuzzFrontMatter(f *testing.F) {
	paths, _ := filepath.Glob("testdata/roundtrip/*.md")
	samples, _ := filepath.Glob("../sample-vault/*/*.md")
	for _, path := range append(paths, samples...) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		_, fm, _, _, status := splitFrontMatter(data)
		if status == fmOK {
			f.Add(fm)
		}
	}
	f.Add([]byte("tags:\n  - a\n  - 'b'\nsource: {client: x, kind: y}\nt: \"q\"\n"))
	f.Fuzz(func(t *testing.T, fm []byte) {
		checkFastYAML(t, fm)
	})
}
