package view

import "github.com/memvault/memvault/vault"

// RecallOf builds the answer of a recall or a list from the set's
// results, in their order.
func RecallOf(rs []vault.SetResult) Recall {
	out := Recall{Results: make([]RecallResult, 0, len(rs))}
	for _, r := range rs {
		out.Results = append(out.Results, RecallResultOf(r))
	}
	return out
}
