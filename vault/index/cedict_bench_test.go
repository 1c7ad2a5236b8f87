package index

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// BenchmarkGeneralFirstQuery measures what the general dictionary costs the
// first query of a process: opening the embedded table ("load"), then that
// plus indexing two documents and searching ("load+search"); "parse" is
// what the index paid before it embedded the compiled table, gunzipping and
// parsing the word list.
func BenchmarkGeneralFirstQuery(b *testing.B) {
	gz, err := os.ReadFile("cedict.txt.gz")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			if err != nil {
				b.Fatal(err)
			}
			src, err := io.ReadAll(zr)
			if err != nil {
				b.Fatal(err)
			}
			parseCedict(string(src))
		}
	})
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			if _, err := openCedict(cedictTab); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load+search", func(b *testing.B) {
		for b.Loop() {
			g, err := openCedict(cedictTab)
			if err != nil {
				b.Fatal(err)
			}
			ix := New()
			ix.general = func() generalLexicon { return g }
			ix.Put(1, Doc{Title: "结算模块设计", Body: "settlement module design: deploy to production"})
			ix.Put(2, Doc{Title: "Deploy to production", Body: "ops/deploy.sh 部署到生产环境"})
			if len(ix.Search(Query{Text: "结算模块怎么设计的"})) == 0 {
				b.Fatal("no hits")
			}
		}
	})
}

// BenchmarkGeneralMatch measures what the general dictionary costs one
// query, over the held-out queries: finding its terms and reading their
// targets, in the compiled table and in the maps parsing the word list
// built.
func BenchmarkGeneralMatch(b *testing.B) {
	var queries [][]unit
	for _, q := range fuzzSeeds(b) {
		queries = append(queries, queryUnits(q))
	}
	ref := referenceCedict()
	if ref == nil {
		b.Fatal("cannot read cedict.txt.gz")
	}
	for _, c := range []struct {
		name string
		lex  generalLexicon
	}{{"table", generalDictionary()}, {"maps", mapLexicon{ref}}} {
		b.Run(c.name, func(b *testing.B) {
			found := 0
			for b.Loop() {
				for _, units := range queries {
					c.lex.match(units, func(id int32, _, _ int) {
						found++
						for _, to := range c.lex.senses(id) {
							found += len(c.lex.toks(to))
						}
						for _, to := range c.lex.headwords(id) {
							found += len(c.lex.toks(to))
						}
					})
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(queries)), "ns/query")
		})
	}
}
