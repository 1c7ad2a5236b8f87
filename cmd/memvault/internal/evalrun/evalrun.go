package evalrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// Corpus is the format of shared/eval/dev-v1.json and dev-v2.json.
type Corpus struct {
	Name     string `json:"name"`
	Memories []struct {
		Key        string   `json:"key"`
		Lang       string   `json:"lang"`
		Layer      int      `json:"layer"`
		Title      string   `json:"title"`
		Content    string   `json:"content"`
		Tags       []string `json:"tags"`
		Importance int      `json:"importance"`
	} `json:"memories"`
	Queries []struct {
		Q    string   `json:"q"`
		Lang string   `json:"lang"`
		Kind string   `json:"kind"`
		Gold []string `json:"gold"`
	} `json:"queries"`
}

// Score accumulates rank metrics over queries. Answerable queries
// (with gold memories) count in n and the recall figures; queries that no
// memory answers (kind none, no gold) count in none and abstain.
type Score struct {
	n                int
	hit1, hitK       int
	strong1, strong5 int
	rr               float64
	none, abstain    int
}

// add records one answerable query whose first gold memory is at rank
// (1-based; 0 when absent from the results) and whether it was strong.
func (s *Score) add(rank int, strong bool, k int) {
	s.n++
	if rank == 1 {
		s.hit1++
	}
	if rank >= 1 && rank <= k {
		s.hitK++
	}
	if rank >= 1 && rank <= 10 {
		s.rr += 1 / float64(rank)
	}
	if strong && rank == 1 {
		s.strong1++
	}
	if strong && rank >= 1 && rank <= 5 {
		s.strong5++
	}
}

// addNone records a query no memory answers: it abstains when no result
// is strong.
func (s *Score) addNone(abstained bool) {
	s.none++
	if abstained {
		s.abstain++
	}
}

// JSON is the score as `eval --json` prints it.
func (s *Score) JSON(k int) map[string]any {
	out := map[string]any{"n": s.n}
	if s.n > 0 {
		n := float64(s.n)
		out["recall@1"] = view.Round3(float64(s.hit1) / n)
		out[fmt.Sprintf("recall@%d", k)] = view.Round3(float64(s.hitK) / n)
		out["mrr@10"] = view.Round3(s.rr / n)
		out["strong_recall@1"] = view.Round3(float64(s.strong1) / n)
		out["strong_recall@5"] = view.Round3(float64(s.strong5) / n)
	}
	if s.none > 0 {
		if s.n == 0 {
			out["n"] = s.none
		}
		out["abstain"] = view.Round3(float64(s.abstain) / float64(s.none))
	}
	return out
}

// Report is the outcome of a run: the scores overall, per query kind and
// per language.
type Report struct {
	Name    string
	K       int
	Overall *Score
	ByKind  map[string]*Score
	ByLang  map[string]*Score
}

// ReadCorpus reads and checks the corpus file at path.
func ReadCorpus(path string) (*Corpus, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read corpus: %w", err)
	}
	var c Corpus
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("corpus %s: %w", path, err)
	}
	if len(c.Memories) == 0 || len(c.Queries) == 0 {
		return nil, fmt.Errorf("corpus %s has no memories or no queries", path)
	}
	for _, mem := range c.Memories {
		if !vault.Layer(mem.Layer).Valid() {
			return nil, fmt.Errorf("corpus memory %s: layer %d is outside 1..5", mem.Key, mem.Layer)
		}
	}
	return &c, nil
}

// Run loads the corpus's memories into a vault in a temporary folder
// through the normal write path, runs every query through recall and
// scores the ranks with Recall@k. misses, when not nil, gets a line for
// every answerable query whose gold memory is not first and strong, and
// for every unanswerable one that got a strong result.
func Run(ctx context.Context, c *Corpus, k int, now func() time.Time, misses io.Writer) (*Report, error) {
	dir, err := os.MkdirTemp("", "memvault-eval-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	v, idToKey, err := load(ctx, c, dir, now)
	if err != nil {
		return nil, err
	}
	rep := &Report{Name: c.Name, K: k, Overall: &Score{}, ByKind: map[string]*Score{}, ByLang: map[string]*Score{}}
	for _, q := range c.Queries {
		rs := v.Recall(vault.Query{Text: q.Q, Limit: 10})
		if len(q.Gold) == 0 {
			abstained := len(rs) == 0 || rs[0].Match != vault.MatchStrong
			if misses != nil && !abstained {
				fmt.Fprintf(misses, "strong %q (%s/%s) for a question no memory answers: %s %s\n", q.Q, q.Kind, q.Lang,
					idToKey[rs[0].Memory.ID], rs[0].Memory.Title)
			}
			group(rep.ByKind, q.Kind).addNone(abstained)
			continue
		}
		rank, strong := 0, false
		for i, r := range rs {
			if slices.Contains(q.Gold, idToKey[r.Memory.ID]) {
				rank, strong = i+1, r.Match == vault.MatchStrong
				break
			}
		}
		if misses != nil && (rank != 1 || !strong) {
			var got []string
			for _, r := range rs[:min(len(rs), 3)] {
				got = append(got, idToKey[r.Memory.ID]+" "+r.Memory.Title+" ("+r.Match+")")
			}
			fmt.Fprintf(misses, "rank %d  %q (%s/%s) gold %v, top: %v\n", rank, q.Q, q.Kind, q.Lang, q.Gold, got)
		}
		for _, s := range []*Score{rep.Overall, group(rep.ByKind, q.Kind), group(rep.ByLang, q.Lang)} {
			s.add(rank, strong, k)
		}
	}
	return rep, nil
}

// load writes the corpus's memories into a new vault at dir through the
// normal write path and maps their ids to the corpus's keys.
func load(ctx context.Context, c *Corpus, dir string, now func() time.Time) (*vault.Vault, map[string]string, error) {
	v, err := vault.Open(ctx, dir, vault.Options{Now: now, Client: "eval"})
	if err != nil {
		return nil, nil, err
	}
	idToKey := map[string]string{}
	for _, mem := range c.Memories {
		res, err := v.Create(ctx, vault.NewMemory{Title: mem.Title, Content: mem.Content, Layer: vault.Layer(mem.Layer),
			Tags: mem.Tags, Importance: mem.Importance, Kind: "import"}, vault.Author{Reason: "eval corpus"})
		if err != nil {
			return nil, nil, fmt.Errorf("corpus memory %s: %w", mem.Key, err)
		}
		idToKey[res.Memory.ID] = mem.Key
	}
	return v, idToKey, nil
}

// JSON is the report as `eval --json` prints it.
func (r *Report) JSON() map[string]any {
	return map[string]any{"corpus": r.Name, "overall": r.Overall.JSON(r.K), "by_kind": groupJSON(r.ByKind, r.K), "by_lang": groupJSON(r.ByLang, r.K)}
}

func group(m map[string]*Score, key string) *Score {
	if m[key] == nil {
		m[key] = &Score{}
	}
	return m[key]
}

func groupJSON(m map[string]*Score, k int) map[string]any {
	out := map[string]any{}
	for key, s := range m {
		out[key] = s.JSON(k)
	}
	return out
}

// Print writes the report as a table.
func (r *Report) Print(w io.Writer) {
	name, k, overall, byKind, byLang := r.Name, r.K, r.Overall, r.ByKind, r.ByLang
	fmt.Fprintf(w, "corpus %s\n%-16s %6s %9s %9s %8s %8s %8s\n", name, "group", "n", "Recall@1", fmt.Sprintf("Recall@%d", k),
		"MRR@10", "strong@1", "strong@5")
	row := func(label string, s *Score) {
		if s.n > 0 {
			n := float64(s.n)
			fmt.Fprintf(w, "%-16s %6d %9.3f %9.3f %8.3f %8.3f %8.3f\n", label, s.n, float64(s.hit1)/n, float64(s.hitK)/n, s.rr/n,
				float64(s.strong1)/n, float64(s.strong5)/n)
		}
		if s.none > 0 {
			fmt.Fprintf(w, "%-16s %6d  abstain %.3f\n", label, s.none, float64(s.abstain)/float64(s.none))
		}
	}
	row("overall", overall)
	for _, part := range []struct {
		prefix string
		m      map[string]*Score
	}{{"kind", byKind}, {"lang", byLang}} {
		keys := make([]string, 0, len(part.m))
		for key := range part.m {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			row(part.prefix+"="+key, part.m[key])
		}
	}
}
