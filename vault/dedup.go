package vault

import (
	"slices"

	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/title"
)

// dedupCandidates is how many recall hits are compared with a new title.
const dedupCandidates = 10

// nearDuplicate finds an active memory of the given layer whose title is
// near-identical to title (see title.Title.Same), leaving out the ids in exempt:
// models often remember the same thing twice, and one memory that evolves
// is better than two that drift apart. The rule is one; where the
// candidates come from is the vault's mode: the best recall hits for the
// title, or, in a headers-only vault, which has no index to recall with,
// every memory of the layer (which finds whatever the recall finds among
// its hits, and also a same-titled memory ranked below them).
func (v *Vault) nearDuplicate(title string, layer Layer, exempt []string) *Memory {
	if layer == 0 {
		layer = Project
	}
	want := newTitleSig(title)
	same := func(m *Memory, sig titleSig) bool {
		return !slices.Contains(exempt, m.ID) && want.Same(sig)
	}
	if v.headersOnly {
		return v.sameTitleScan(layer, same)
	}
	for _, r := range v.Recall(Query{Text: title, Limit: dedupCandidates + len(exempt), Layers: []Layer{layer}}) {
		if r.State == string(StatusActive) && same(r.Memory, newTitleSig(r.Memory.Title)) {
			return r.Memory
		}
	}
	return nil
}

// sameTitleScan returns a copy of the first active memory of layer that
// same accepts, every memory of the layer a candidate, with the title
// signatures the headers-only load computed.
func (v *Vault) sameTitleScan(layer Layer, same func(*Memory, titleSig) bool) *Memory {
	at := v.now()
	v.mu.RLock()
	defer v.mu.RUnlock()
	succ := v.successors()
	for id, m := range v.entries {
		if m == nil || m.Layer != layer {
			continue
		}
		if v.stateLocked(index.DocID(id), m, at, succ) != string(StatusActive) {
			continue
		}
		var sig titleSig
		if sigs := v.load.titleSigs; id < len(sigs) && sigs[id].mem == m {
			sig = sigs[id].sig
		} else {
			sig = newTitleSig(m.Title) // written since the load
		}
		if same(m, sig) {
			return m.clone()
		}
	}
	return nil
}

// titleSig is a title as the same-title rule compares it (vault/title),
// computed once.
type titleSig = title.Title

func newTitleSig(s string) titleSig { return title.New(s) }
