package main

import (
	"sync"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/index"
)

// Scores from different vaults do not compare: relevance weighs each
// query term by how rare it is in its own vault, and in a user vault of
// a dozen preferences every term is common, so its best match scores a
// fraction of what the same memory would score in the project vault.
// rankPool ranks the candidates of every vault again in one shared
// index, so that one corpus weighs the terms for all of them.

// rankPoolRenew is how many rescorings one pool index serves before it
// is replaced, which bounds the vocabulary it accumulates.
const rankPoolRenew = 5000

// rankPool is a scratch full-text index, reused across recalls because
// building one (its synonym dictionary) costs milliseconds.
type rankPool struct {
	mu   sync.Mutex
	ix   *index.Index
	uses int
}

// rescore replaces the scores of rs (from two or more vaults) by the
// scores they get when searched together for text: the shared index's
// relevance times each memory's own layer, decay and importance weight
// at instant at. A candidate the pool does not match keeps its score.
func (p *rankPool) rescore(text string, rs []scopedResult, at time.Time) []scopedResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ix == nil || p.uses >= rankPoolRenew {
		p.ix, p.uses = index.New(), 0
	}
	p.uses++
	for i, r := range rs {
		m := r.Memory
		p.ix.Put(index.DocID(i), index.Doc{Title: m.Title, Aliases: m.Aliases, Tags: m.Tags, Body: m.Text})
	}
	hits := p.ix.Search(index.Query{Text: text, Limit: len(rs), Weight: func(id index.DocID, rel float64) float64 {
		return rel * vault.Weight(rs[id].Memory, at)
	}})
	for i := range rs {
		p.ix.Delete(index.DocID(i))
	}
	out := make([]scopedResult, len(rs))
	copy(out, rs)
	for _, h := range hits {
		out[h.ID].Score = h.Score
	}
	return out
}
