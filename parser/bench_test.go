package parser

import (
	"os"
	"path/filepath"
	"testing"
)

// typical is a 1-2 KB memory: the canonical front matter and a body with a
// heading, paragraphs, a list, code, links, a wiki link and a tag.
var typical = []byte(canonical + `
# Checkout uses the strategy pattern

The checkout flow picks a ` + "`PaymentStrategy`" + ` per region so that payment
methods can be swapped without touching the cart. See [the ADR](https://example.com/adr/12)
and [[payments-overview]] for the history. #architecture

- Card payments go through ` + "`CardStrategy`" + ` (Stripe).
- Invoices use ` + "`InvoiceStrategy`" + `; net-30 terms for B2B.
- 结算流程使用策略模式，支付方式可以按地区替换。

` + "```go" + `
type PaymentStrategy interface {
	Pay(ctx context.Context, amount Money) error
}
` + "```" + `

**Why:** adding a region used to mean editing a 400-line switch; now it is a new
strategy and one registry line. Do not reintroduce the switch.
`)

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(typical)))
	for b.Loop() {
		d, diags := Parse("m.md", typical)
		if d == nil || len(diags) != 0 {
			b.Fatal(diags)
		}
	}
}

// BenchmarkParseParts splits the cost between the front matter (fast path,
// and yaml.v3 alone for comparison) and the body.
func BenchmarkParseParts(b *testing.B) {
	d, _ := Parse("m.md", typical)
	b.Run("frontmatter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m Meta
			root, _, err := parseYAML(d.fm, nil)
			if err != nil {
				b.Fatal(err)
			}
			decodeMeta(&m, root, "m.md", d.fileLine, nil)
		}
	})
	b.Run("frontmatter-yamlv3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m Meta
			root, _, err := fullYAML(d.fm)
			if err != nil {
				b.Fatal(err)
			}
			decodeMeta(&m, root, "m.md", d.fileLine, nil)
		}
	})
	b.Run("body", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			parseBody(d.body, nil)
		}
	})
}

func BenchmarkSetFormat(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		d, _ := Parse("m.md", typical)
		if err := d.Set("importance", 9); err != nil {
			b.Fatal(err)
		}
		_ = d.Format()
	}
}

// BenchmarkParseHostile parses 1 MB bodies on which goldmark alone is
// quadratic (one took 24 s at 200 KB before markdownSource bounded it).
func BenchmarkParseHostile(b *testing.B) {
	for name, body := range hostileBodies(1<<20 - 64) {
		in := []byte("---\nid: a\n---\n" + body)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if d, _ := Parse("m.md", in); d == nil {
					b.Fatal("nil document")
				}
			}
		})
	}
}

// BenchmarkParseSampleVault parses every memory of the sample vault per
// iteration and reports the mean cost of one file.
func BenchmarkParseSampleVault(b *testing.B) {
	paths, _ := filepath.Glob("../sample-vault/*/*.md")
	var files [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
	}
	if len(files) == 0 {
		b.Skip("no sample vault")
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			if d, _ := Parse("m.md", f); d == nil {
				b.Fatal("nil document")
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(files))/1e3, "µs/file")
}

func BenchmarkParseSkipBody(b *testing.B) {
	b.ReportAllocs()
	opts := Options{SkipBody: true}
	for b.Loop() {
		if d, _ := opts.Parse("m.md", typical); d == nil {
			b.Fatal("nil document")
		}
	}
}
