package index

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// cedictList is the word list cedict.tab is compiled from.
var cedictList = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile("cedict.txt.gz")
	if err != nil {
		return "", err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	src, err := io.ReadAll(zr)
	return string(src), err
})

func readCedictList(t testing.TB) string {
	t.Helper()
	src, err := cedictList()
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// referenceCedict is the word list parsed into maps, as the index read it
// before it embedded the compiled table: the reference the table's lookups
// must agree with.
var referenceCedict = sync.OnceValue(func() *dictionary {
	src, err := cedictList()
	if err != nil {
		return nil
	}
	return parseCedict(src)
})

// mapLexicon reads a parsed dictionary as the planner reads the general
// one.
type mapLexicon struct{ d *dictionary }

func (m mapLexicon) match(units []unit, fn func(term int32, start, end int)) { m.d.match(units, fn) }
func (m mapLexicon) text(id int32) string                                    { return m.d.terms[id].text }
func (m mapLexicon) toks(id int32) []string                                  { return m.d.terms[id].toks }
func (m mapLexicon) senses(id int32) []int32                                 { return m.d.oneWay[id] }
func (m mapLexicon) headwords(id int32) []int32                              { return m.d.expand[id] }

// compileCedict compiles a word list and opens the table.
func compileCedict(t testing.TB, list string) *cedict {
	t.Helper()
	tab, err := compileCedictTab(list)
	if err != nil {
		t.Fatal(err)
	}
	c, err := openCedict(string(tab))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// queryUnits splits a query into units as plan does.
func queryUnits(q string) []unit {
	var a analyzer
	a.keepStops, a.runs = true, true
	var units []unit
	a.analyze(q, func(t *token) {
		switch t.kind {
		case kindCJKRun:
			units = append(units, unit{cjk: string(t.text), start: t.start, end: t.end})
		case kindWord, kindPart:
			units = append(units, unit{word: string(t.text), start: t.start, end: t.end})
		}
	})
	return units
}

// lookup is a term a dictionary finds in a query, with everything the
// planner reads of it.
type lookup struct {
	text              string
	start, end        int
	toks              []string
	senses, headwords []target
}

type target struct {
	text string
	toks []string
}

func (x lookup) equal(y lookup) bool {
	return x.text == y.text && x.start == y.start && x.end == y.end && slices.Equal(x.toks, y.toks) &&
		slices.EqualFunc(x.senses, y.senses, target.equal) && slices.EqualFunc(x.headwords, y.headwords, target.equal)
}

func (x target) equal(y target) bool { return x.text == y.text && slices.Equal(x.toks, y.toks) }

// lookups returns the terms a dictionary finds in a query, in the order
// match reports them.
func lookups(lex generalLexicon, q string) []lookup {
	var out []lookup
	targets := func(ids []int32) []target {
		var ts []target
		for _, id := range ids {
			ts = append(ts, target{lex.text(id), lex.toks(id)})
		}
		return ts
	}
	lex.match(queryUnits(q), func(id int32, s, e int) {
		out = append(out, lookup{lex.text(id), s, e, lex.toks(id), targets(lex.senses(id)), targets(lex.headwords(id))})
	})
	return out
}

// plannerPair is two indexes that differ only in their general
// dictionary: the compiled table, and the reference. Their one document
// holds the whole word list, so that every target is present and no
// expansion is pruned away.
type plannerPair struct{ table, ref *Index }

var plannerPairs = sync.OnceValue(func() *plannerPair {
	src, err := cedictList()
	if err != nil {
		return nil
	}
	mk := func(g generalLexicon) *Index {
		ix := New()
		ix.general = func() generalLexicon { return g }
		ix.Put(1, Doc{Title: "general dictionary", Body: src})
		return ix
	}
	return &plannerPair{table: mk(generalDictionary()), ref: mk(mapLexicon{referenceCedict()})}
})

// checkSameExpansions fails unless the compiled table and the reference
// find the same terms in q, lead to the same terms, and give the same
// query plan.
func checkSameExpansions(t *testing.T, lex, ref generalLexicon, pair *plannerPair, q string) {
	t.Helper()
	got, want := lookups(lex, q), lookups(ref, q)
	if !slices.EqualFunc(got, want, lookup.equal) {
		t.Fatalf("%q: table finds\n%+v\nthe word list\n%+v", q, got, want)
	}
	if pair == nil {
		return
	}
	if gp, wp := pair.table.plan(q), pair.ref.plan(q); !reflect.DeepEqual(gp, wp) {
		t.Fatalf("%q: plans differ:\ntable %+v\nlist  %+v", q, gp, wp)
	}
}

// TestCedictTableIsCurrent checks that cedict.tab is the compiled word
// list, with today's analyser; with -update it writes it (go generate).
func TestCedictTableIsCurrent(t *testing.T) {
	tab, err := compileCedictTab(readCedictList(t))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("cedict.tab", tab, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(tab) != cedictTab {
		t.Fatalf("cedict.tab (%d bytes) is not cedict.txt.gz compiled (%d bytes): run go generate ./vault/index", len(cedictTab), len(tab))
	}
}

// TestCedictTableMatchesList looks up every headword and every sense of
// the word list, and each headword followed by the next (neighbours share
// prefixes, so their matches overlap and cross), in the compiled table and
// in the parsed list.
func TestCedictTableMatchesList(t *testing.T) {
	ref := referenceCedict()
	if ref == nil {
		t.Fatal("cannot read cedict.txt.gz")
	}
	lex := generalDictionary()
	if got, want := lex.headTab.n+lex.senseTab.n, len(ref.terms); got != want {
		t.Fatalf("table has %d terms, the list %d", got, want)
	}
	pair := plannerPairs()
	// Each query is checked with its query plan (pair) or, for the
	// variants, only for what the dictionaries find: plans cost most of
	// the time, and the planner reads the two alike.
	type query struct {
		text string
		pair *plannerPair
	}
	var queries []query
	senses := map[string]bool{}
	prev := ""
	for line := range strings.Lines(readCedictList(t)) {
		head, rest, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " -> ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		queries = append(queries, query{head, pair}, query{prev + head, nil})
		prev = head
		for s := range strings.SplitSeq(rest, " | ") {
			if !senses[s] {
				senses[s] = true
				queries = append(queries, query{s, pair}, query{"how to " + s + " it", nil})
			}
		}
	}
	if len(senses) < 10000 || len(queries) < 60000 {
		t.Fatalf("%d senses, %d queries: want the whole list", len(senses), len(queries))
	}
	for _, q := range queries {
		checkSameExpansions(t, lex, mapLexicon{ref}, q.pair, q.text)
	}
}

func FuzzGeneralDictionary(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	for _, s := range []string{"结算模块怎么设计的", "deploy to production", "怎么部署和回滚", "roll back the release",
		"明天天气", "一丁点一下", "port number 端口", "数据库连接池超时时间", "log in 日志"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		ref := referenceCedict()
		if ref == nil {
			t.Fatal("cannot read cedict.txt.gz")
		}
		checkSameExpansions(t, generalDictionary(), mapLexicon{ref}, plannerPairs(), q)
	})
}

// TestCompileCedict compiles small lists, including the shapes the table
// cannot hold.
func TestCompileCedict(t *testing.T) {
	tests := []struct {
		name, list string
		wantErr    bool
	}{
		{"comments and junk", "# comment\n部署 -> deploy | deployment\nnot a line\n端口 -> port | interface\n日志 -> log\n", false},
		{"unsorted, shared senses", "日志 -> log | record\n部署 -> deploy\n记录 -> record | log\n部件 -> part\n", false},
		{"stop words and stems", "登录 -> log in | log\n都 -> all\n全部 -> all | the whole\n政策 -> policies\n", false},
		{"empty", "", false},
		{"duplicate headword without senses", "部署 -> the\n部署 -> a\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := compileCedictTab(tt.list)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			c, err := openCedict(string(tab))
			if err != nil {
				t.Fatal(err)
			}
			ref := parseCedict(tt.list)
			for _, q := range []string{"部署日志", "log in to deploy", "全部政策 policies", "记录部件 record the part", "all"} {
				checkSameExpansions(t, c, mapLexicon{ref}, nil, q)
			}
		})
	}
}

func TestOpenCedictRejectsDamage(t *testing.T) {
	good := cedictTab
	for _, tt := range []struct{ name, tab string }{
		{"empty", ""},
		{"magic only", cedictMagic},
		{"truncated", good[:len(good)/2]},
		{"trailing bytes", good + "x"},
		{"wrong magic", "memvault cedict table 0\n" + good[len(cedictMagic):]},
		// A record length off by one moves every later offset.
		{"bad length", good[:len(cedictMagic)+8] + string(good[len(cedictMagic)+8]+1) + good[len(cedictMagic)+9:]},
	} {
		if _, err := openCedict(tt.tab); err == nil {
			t.Errorf("%s: opened", tt.name)
		}
	}
	if _, err := openCedict(good); err != nil {
		t.Fatal(err)
	}
}
