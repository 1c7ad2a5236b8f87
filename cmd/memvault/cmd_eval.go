package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// evalCorpus is the format of shared/eval/dev-v1.json.
type evalCorpus struct {
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

// evalScore accumulates rank metrics over queries. Answerable queries
// (with gold memories) count in n and the recall figures; queries that no
// memory answers (kind none, no gold) count in none and abstain.
type evalScore struct {
	n                int
	hit1, hitK       int
	strong1, strong5 int
	rr               float64
	none, abstain    int
}

// add records one answerable query whose first gold memory is at rank
// (1-based; 0 when absent from the results) and whether it was strong.
func (s *evalScore) add(rank int, strong bool, k int) {
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
func (s *evalScore) addNone(abstained bool) {
	s.none++
	if abstained {
		s.abstain++
	}
}

func (s *evalScore) json(k int) map[string]any {
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

func (m *Main) evalCommand() *cobra.Command {
	var k int
	var asJSON, verbose bool
	cmd := &cobra.Command{
		Use:   "eval CORPUS.json",
		Short: "Measure recall quality on a labelled corpus",
		Long: `eval loads the corpus's memories into a temporary vault through the normal
write path, runs every query through recall, and prints Recall@1, Recall@k and
MRR@10 overall, per query kind and per language. A query counts as found at
rank r when any of its gold memories is at rank r. strong_recall@1 and
strong_recall@5 count a gold memory only when recall marks it a strong
match. Overall and per-language figures cover the answerable queries; the
queries no memory answers (kind none, no gold) are reported apart, as the
share that got no strong result (abstain).`,
		Example: `  memvault eval ../shared/eval/dev-v1.json
  memvault eval ../shared/eval/dev-v1.json --json`,
		Args: exactArgs(1, "CORPUS.json"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if k < 1 || k > 10 {
				return usagef("--k: %d is outside 1..10", k)
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return usagef("read corpus: %v", err)
			}
			var c evalCorpus
			if err := json.Unmarshal(data, &c); err != nil {
				return usagef("corpus %s: %v", args[0], err)
			}
			if len(c.Memories) == 0 || len(c.Queries) == 0 {
				return usagef("corpus %s has no memories or no queries", args[0])
			}
			dir, err := os.MkdirTemp("", "memvault-eval-*")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			v, err := vault.Open(ctx, dir, vault.Options{Now: m.Now, Client: "eval"})
			if err != nil {
				return err
			}
			idToKey := map[string]string{}
			for _, mem := range c.Memories {
				layer := vault.Layer(mem.Layer)
				if !layer.Valid() {
					return usagef("corpus memory %s: layer %d is outside 1..5", mem.Key, mem.Layer)
				}
				res, err := v.Create(ctx, vault.NewMemory{Title: mem.Title, Content: mem.Content, Layer: layer,
					Tags: mem.Tags, Importance: mem.Importance, Kind: "import"}, vault.Author{Reason: "eval corpus"})
				if err != nil {
					return fmt.Errorf("corpus memory %s: %w", mem.Key, err)
				}
				idToKey[res.Memory.ID] = mem.Key
			}
			overall := &evalScore{}
			byKind, byLang := map[string]*evalScore{}, map[string]*evalScore{}
			for _, q := range c.Queries {
				rs := v.Recall(vault.Query{Text: q.Q, Limit: 10})
				if len(q.Gold) == 0 {
					abstained := len(rs) == 0 || rs[0].Match != vault.MatchStrong
					if verbose && !abstained {
						fmt.Fprintf(m.Stderr, "strong %q (%s/%s) for a question no memory answers: %s %s\n", q.Q, q.Kind, q.Lang,
							idToKey[rs[0].Memory.ID], rs[0].Memory.Title)
					}
					group(byKind, q.Kind).addNone(abstained)
					continue
				}
				rank, strong := 0, false
				for i, r := range rs {
					if contains(q.Gold, idToKey[r.Memory.ID]) {
						rank, strong = i+1, r.Match == vault.MatchStrong
						break
					}
				}
				if verbose && (rank != 1 || !strong) {
					var got []string
					for _, r := range rs[:min(len(rs), 3)] {
						got = append(got, idToKey[r.Memory.ID]+" "+r.Memory.Title+" ("+r.Match+")")
					}
					fmt.Fprintf(m.Stderr, "rank %d  %q (%s/%s) gold %v, top: %v\n", rank, q.Q, q.Kind, q.Lang, q.Gold, got)
				}
				for _, s := range []*evalScore{overall, group(byKind, q.Kind), group(byLang, q.Lang)} {
					s.add(rank, strong, k)
				}
			}
			if asJSON {
				return writeJSON(m.Stdout, map[string]any{
					"corpus": c.Name, "overall": overall.json(k), "by_kind": groupJSON(byKind, k), "by_lang": groupJSON(byLang, k),
				})
			}
			printEval(m.Stdout, c.Name, k, overall, byKind, byLang)
			return nil
		},
	}
	cmd.Flags().IntVar(&k, "k", 5, "the k of Recall@k")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "list the queries whose gold memory is not ranked first (on stderr)")
	return cmd
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func group(m map[string]*evalScore, key string) *evalScore {
	if m[key] == nil {
		m[key] = &evalScore{}
	}
	return m[key]
}

func groupJSON(m map[string]*evalScore, k int) map[string]any {
	out := map[string]any{}
	for key, s := range m {
		out[key] = s.json(k)
	}
	return out
}

func printEval(w io.Writer, name string, k int, overall *evalScore, byKind, byLang map[string]*evalScore) {
	fmt.Fprintf(w, "corpus %s\n%-16s %6s %9s %9s %8s %8s %8s\n", name, "group", "n", "Recall@1", fmt.Sprintf("Recall@%d", k),
		"MRR@10", "strong@1", "strong@5")
	row := func(label string, s *evalScore) {
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
		m      map[string]*evalScore
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
