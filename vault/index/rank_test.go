package index

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/, and cedict.tab")

// concepts returns the labels of a query's concepts.
func concepts(ix *Index, q string) []string {
	var out []string
	for _, c := range ix.plan(q).concepts {
		out = append(out, c.label)
	}
	return out
}

func TestQueryConcepts(t *testing.T) {
	d, err := parseDictionary("覆盖率 | coverage\n门槛 | threshold\n")
	if err != nil {
		t.Fatal(err)
	}
	ix := newIndex(defaultParams(), d)
	ix.general = nil
	tests := []struct {
		query string
		want  []string
	}{
		// An identifier's parts and its whole are one concept.
		{"ops/deploy.sh rollback", []string{"ops/deploy.sh", "rollback"}},
		{"OrderState machine", []string{"OrderState", "machine"}},
		// Stop words are no concept.
		{"how to deploy", []string{"deploy"}},
		// A dictionary term's bigrams are one concept; a bigram across
		// two terms is its own.
		{"覆盖率门槛", []string{"覆盖率", "率门", "门槛"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := concepts(ix, tt.query); !slices.Equal(got, tt.want) {
			t.Errorf("concepts(%q) = %q, want %q", tt.query, got, tt.want)
		}
	}
}

// TestCoverageRanksFullMatchesFirst pins the coverage rule: a document that
// matches every concept of the query outranks one that matches a single
// rare word many times, though plain BM25F ranks it higher.
func TestCoverageRanksFullMatchesFirst(t *testing.T) {
	build := func(p params) *Index {
		ix := newIndex(p, nil)
		ix.general = nil
		ix.Put(1, Doc{Title: "Backoff", Body: "backoff backoff: exponential backoff with jitter, capped backoff"})
		ix.Put(2, Doc{Title: "Consumer failures", Body: "When a kafka consumer fails it will retry the message " +
			"with a growing backoff, and after five failures the message is parked in a dead letter topic " +
			"that the on-call engineer drains by hand once the cause is fixed and deployed. " +
			strings.Repeat("Most of this text is about other things entirely. ", 8)})
		// Each query word in a few other memories, so that all three
		// are about equally rare.
		for i := range 4 {
			for j, w := range []string{"kafka", "retry", "backoff"} {
				ix.Put(DocID(10+3*i+j), Doc{Title: fmt.Sprintf("note %d", i), Body: w + " elsewhere"})
			}
		}
		filler(ix, 100, 40)
		return ix
	}
	q := Query{Text: "kafka retry backoff"}
	plain := defaultParams()
	plain.covPow = 0
	if got := ids(build(plain).Search(q)); len(got) < 2 || got[0] != 1 {
		t.Fatalf("without coverage the test loses its point: got %v, want doc 1 first", got)
	}
	hits := build(defaultParams()).Search(q)
	if got := ids(hits); len(got) < 2 || got[0] != 2 {
		t.Fatalf("with coverage got %v, want doc 2 first", got)
	}
	if h := hits[0]; h.Coverage != 1 || h.Matched != 3 || h.Concepts != 3 {
		t.Errorf("doc 2: coverage %v, matched %d of %d; want 1, 3 of 3", h.Coverage, h.Matched, h.Concepts)
	}
	if h := hits[1]; !(h.Coverage > 0 && h.Coverage < 0.5) || h.Matched != 1 {
		t.Errorf("doc 1: coverage %v, matched %d; want below 0.5, 1", h.Coverage, h.Matched)
	}
}

// ruleDecides indexes docs (ids 1, 2, ...) with the curated dictionary
// dict and 100 filler documents, and checks that query ranks doc off
// first with a rule turned off (else its test loses its point) and doc on
// first with the default parameters. It returns the default index.
func ruleDecides(t *testing.T, dict string, docs []Doc, query string, turnOff func(*params), off, on DocID) *Index {
	t.Helper()
	d, err := parseDictionary(dict)
	if err != nil {
		t.Fatal(err)
	}
	build := func(p params) *Index {
		ix := newIndex(p, d)
		ix.general = nil
		for i, doc := range docs {
			ix.Put(DocID(i+1), doc)
		}
		filler(ix, 100, 40)
		return ix
	}
	q := Query{Text: query}
	without := defaultParams()
	turnOff(&without)
	if got := ids(build(without).Search(q)); len(got) < 2 || got[0] != off {
		t.Fatalf("with the rule off the test loses its point: got %v, want doc %d first", got, off)
	}
	ix := build(defaultParams())
	if got := ids(ix.Search(q)); len(got) < 2 || got[0] != on {
		t.Fatalf("got %v, want doc %d first", got, on)
	}
	return ix
}

// TestLongChineseWordSharesWeight pins bigramPow: the three bigrams of a
// four-character word (运营后台) share its weight in BM25, so a memory that
// has only that word (doc 1) no longer outranks one that answers the whole
// question through translations (doc 2). Summed in full (bigramPow 0) it
// did.
func TestLongChineseWordSharesWeight(t *testing.T) {
	const query = "运营后台导出"
	ix := ruleDecides(t, "运营后台 | ops console\n导出 | export\n", []Doc{
		{Title: "运营后台的权限", Body: "运营后台按角色分配权限。"},
		{Title: "Ops console exports", Body: "Exports from the ops console run as an async task."},
		{Title: "导出规则", Body: "导出超过一万行走异步任务。"},
	}, query, func(p *params) { p.bigramPow = 0 }, 1, 2)
	qp := ix.plan(query)
	for _, tm := range qp.terms {
		want := 1.0 // 导出, and 台导 across the two words
		if tm.text == "运营" || tm.text == "营后" || tm.text == "后台" {
			want = 1 / math.Sqrt(3)
		}
		if w := qp.bm25Weight(tm, ix.p.bigramPow); tm.typed && math.Abs(w-want) > 1e-9 {
			t.Errorf("typed term %q weighs %v, want %v", tm.text, w, want)
		}
	}
}

// TestChineseDeterminersWeighLittle pins wDeterminer: a memory that
// shares only 一个 and one more word with the question (doc 1) no longer
// outranks one that answers it through translations (doc 2). At full
// weight it did.
func TestChineseDeterminersWeighLittle(t *testing.T) {
	const query = "新接一个渠道要实现什么，在哪里注册"
	ix := ruleDecides(t, "实现 | implement\n注册 | register\n", []Doc{
		{Title: "不要过早抽象", Body: "只有一个实现时先不要建抽象基类，等出现第二个实现再抽象。"},
		{Title: "Payment channel adapters", Body: "New channels implement the adapter protocol and are registered in the channel registry."},
	}, query, func(p *params) { p.wDeterminer = 1 }, 1, 2)
	for _, tm := range ix.plan(query).terms {
		if tm.text == "一个" && tm.w != ix.p.wDeterminer {
			t.Errorf("一个 weighs %v, want %v", tm.w, ix.p.wDeterminer)
		}
	}
}

func TestGeneralDictionary(t *testing.T) {
	g := compileCedict(t, "# comment\n部署 -> deploy | deployment\n端口 -> port | interface\nnot a line\n日志 -> log\n")
	cur, err := parseDictionary("订单 | order\n")
	if err != nil {
		t.Fatal(err)
	}
	ix := newIndex(defaultParams(), cur)
	ix.general = func() generalLexicon { return g }
	ix.Put(1, Doc{Title: "Production deploy script", Body: "ops/deploy.sh rolls out"})
	ix.Put(2, Doc{Title: "端口分配", Body: "本地开发的端口"})
	tests := []struct {
		query   string
		want    []string
		notWant []string
	}{
		// Chinese to English, only senses the vault uses.
		{"怎么部署", []string{"deploy"}, []string{"deployment"}},
		// One-word senses lead back to the Chinese word, if the vault
		// has it.
		{"port number", []string{"端口"}, nil},
		{"log level", nil, []string{"日志"}},
	}
	for _, tt := range tests {
		var got []string
		for _, q := range ix.analyzeQuery(tt.query) {
			if q.src == SourceGeneral {
				got = append(got, q.text)
			}
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: general expansions %v, want %q", tt.query, got, w)
			}
		}
		for _, w := range tt.notWant {
			if slices.Contains(got, w) {
				t.Errorf("%q: general expansions %v, want no %q", tt.query, got, w)
			}
		}
	}
	if hits := ix.Search(Query{Text: "部署脚本"}); len(hits) == 0 || hits[0].ID != 1 {
		t.Errorf("部署脚本: got %v, want the English deploy memory through the general dictionary", ids(hits))
	}
}

func TestEmbeddedGeneralDictionary(t *testing.T) {
	d := generalDictionary()
	if n := d.headTab.n + d.senseTab.n; n < 20000 {
		t.Errorf("general dictionary has %d terms, want the pruned CC-CEDICT (> 20000)", n)
	}
	for head, sense := range map[string]string{"部署": "deploy", "回滚": "rollback", "缓存": "cache", "日志": "log"} {
		id := int32(-1)
		d.match([]unit{{cjk: head}}, func(term int32, start, end int) {
			if start == 0 && end == len(head) {
				id = term
			}
		})
		if id < 0 || d.text(id) != head {
			t.Errorf("%s missing", head)
			continue
		}
		var senses []string
		for _, to := range d.senses(id) {
			senses = append(senses, d.text(to))
		}
		if !slices.Contains(senses, sense) {
			t.Errorf("%s senses %v, want %q", head, senses, sense)
		}
	}
}

// bilingual is a small vault whose Chinese memories carry English tags.
func bilingual() []Entry {
	var filler []Entry
	for i := range 30 {
		filler = append(filler, Entry{DocID(100 + i), Doc{Title: fmt.Sprintf("note %d about lunch", i), Body: "noodles and tea 面条和茶"}})
	}
	return append(filler, []Entry{
		{1, Doc{Title: "结算页价格计算顺序", Tags: []string{"checkout", "pricing"}, Body: "先算促销再算优惠券"}},
		{2, Doc{Title: "结算页防重复提交", Tags: []string{"checkout", "idempotency"}, Body: "提交令牌"}},
		{3, Doc{Title: "结算服务超时配置", Tags: []string{"checkout", "timeout"}, Body: "下游调用三秒超时"}},
		{4, Doc{Title: "Checkout service owners", Tags: []string{"owners"}, Body: "The checkout team owns services/checkout."}},
		{5, Doc{Title: "库存预占", Tags: []string{"inventory"}, Body: "下单预占库存"}},
		{6, Doc{Title: "Inventory reservation TTL", Tags: []string{"inventory"}, Body: "Reserved stock is released after 15 minutes."}},
	}...)
}

func TestLearnedTranslations(t *testing.T) {
	ix := newIndex(defaultParams(), nil)
	ix.general = nil
	ix.PutBatch(bilingual())
	got := ix.translations("结算", 2, 0.3)
	if len(got) == 0 || got[0].text != "checkout" {
		t.Fatalf("translations(结算) = %v, want checkout first", got)
	}
	if c := got[0].conf; !(c > 0.3 && c <= 1) {
		t.Errorf("confidence %v, want in (0.3, 1]", c)
	}
	// Each of 结算's three memories has the tag: so the English memory
	// about checkout is found from a Chinese question.
	hits := ix.Search(Query{Text: "结算 负责人"})
	if !slices.Contains(ids(hits), 4) {
		t.Errorf("结算 负责人: got %v, want doc 4 through the learned translation", ids(hits))
	}
	// One memory is no evidence.
	if got := ix.translations("库存", 2, 0.01); len(got) != 0 {
		t.Errorf("translations(库存) = %v from a single memory, want none", got)
	}
	// The table follows the index: once the Chinese memories are gone,
	// nothing is learned.
	for _, id := range []DocID{1, 2, 3} {
		ix.Delete(id)
	}
	if got := ix.translations("结算", 2, 0.3); len(got) != 0 {
		t.Errorf("after deleting the memories, translations(结算) = %v, want none", got)
	}
}

// TestLearnedSameOnEveryPath checks that the short-field lists, and so the
// learned translations, do not depend on how the index was built.
func TestLearnedSameOnEveryPath(t *testing.T) {
	entries, queries := synthCorpus(600)
	entries = append(entries, bilingual()...)
	for i := range entries {
		entries[i].ID += 10_000
	}
	put := New()
	for _, e := range entries {
		put.Put(e.ID, e.Doc)
	}
	batch := New()
	batch.PutBatch(entries)
	bulk := New()
	b := bulk.NewBulk()
	pr := bulk.NewPreparer()
	for _, e := range entries {
		var p Prepared
		pr.Prepare(e.Doc, &p)
		b.Put(e.ID, &p)
	}
	b.Flush()
	bulk.Trim()
	var buf bytes.Buffer
	if _, err := put.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	snap := New()
	if _, err := snap.ReadFrom(&buf); err != nil {
		t.Fatal(err)
	}
	queries = append(queries, "结算", "checkout", "inventory")
	for name, ix := range map[string]*Index{"PutBatch": batch, "Bulk": bulk, "snapshot": snap} {
		if diff := cmp.Diff(put.short, ix.short, cmp.AllowUnexported(shortTerms{})); diff != "" {
			t.Errorf("%s: short-field lists differ from Put's (-put +%s):\n%s", name, name, diff)
		}
		for _, q := range queries {
			for _, w := range strings.Fields(q) {
				if diff := cmp.Diff(put.translations(w, 3, 0), ix.translations(w, 3, 0), cmp.AllowUnexported(learned{})); diff != "" {
					t.Errorf("%s: translations(%q) differ (-put +%s):\n%s", name, w, name, diff)
				}
			}
		}
	}
}

func TestExplainGolden(t *testing.T) {
	cur, err := parseDictionary("部署 | 发布 | deploy | release\n怎么 | 如何 -> 流程 | 步骤\n覆盖率 | coverage\n")
	if err != nil {
		t.Fatal(err)
	}
	ix := newIndex(defaultParams(), cur)
	g := compileCedict(t, "回滚 -> rollback | roll back\n")
	ix.general = func() generalLexicon { return g }
	ix.PutBatch([]Entry{
		{1, Doc{Title: "Production deploy via ops/deploy.sh", Tags: []string{"deploy", "ops"},
			Body: "Run ops/deploy.sh prod; it rolls back on failed health checks (rollback is automatic)."}},
		{2, Doc{Title: "发布流程", Tags: []string{"deploy"}, Body: "每周二、四发布，先灰度 5%。"}},
		{3, Doc{Title: "Redis key naming", Body: "service:entity:id"}},
		{4, Doc{Title: "测试覆盖面", Body: "单元测试要覆盖主要分支"}},
	})
	var out bytes.Buffer
	for _, q := range []struct {
		text string
		id   DocID
	}{{"怎么部署和回滚 ops/deploy.sh", 1}, {"怎么部署和回滚 ops/deploy.sh", 2}, {"redis naming", 3}, {"测试覆盖率", 4}} {
		e := ix.Explain(q.text, q.id)
		out.WriteString("query " + quote(q.text) + " document " + string(rune('0'+q.id)) + "\n")
		if err := e.Format(&out); err != nil {
			t.Fatal(err)
		}
		// The explanation adds up to what Search reports.
		for _, h := range ix.Search(Query{Text: q.text}) {
			if h.ID == q.id && (abs(h.Relevance-e.Relevance) > 1e-6*h.Relevance || abs(h.Coverage-e.Coverage) > 1e-6) {
				t.Errorf("%q doc %d: Explain relevance %v coverage %v, Search %v %v", q.text, q.id, e.Relevance, e.Coverage, h.Relevance, h.Coverage)
			}
		}
	}
	if ix.Explain("deploy", 99) != nil {
		t.Error("Explain of an unknown document should be nil")
	}
	golden := filepath.Join("testdata", "explain.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("explanation differs from %s (-want +got; rerun with -update if intended):\n%s", golden, diff)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
