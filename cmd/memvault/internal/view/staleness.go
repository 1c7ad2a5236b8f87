package view

import (
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/staleness"
)

// Staleness says whether a memory still matches the code its refs name:
// state is fresh, possibly_stale, stale or unknown, and reason says why
// (which path went where, how many commits changed it and the latest
// one's subject, uncommitted changes; for unknown, a ref to a path the
// repository never had, or an answer not ready within a recall's
// deadline). Absent for a memory without refs.
type Staleness struct {
	State  string `json:"state"`
	Reason string `json:"reason"`
}

// StalenessOf returns the view of memory id's staleness in states, nil
// when states has none for it.
func StalenessOf(states map[string]staleness.Staleness, id string) *Staleness {
	st, ok := states[id]
	if !ok {
		return nil
	}
	return &Staleness{State: string(st.State), Reason: st.Reason}
}

// RecallWith is RecallOf with each result's staleness from states.
func RecallWith(rs []vault.SetResult, states map[string]staleness.Staleness) Recall {
	out := RecallOf(rs)
	out.SetStaleness(states)
	return out
}

// SetStaleness fills in each result's staleness from states.
func (r Recall) SetStaleness(states map[string]staleness.Staleness) {
	for i := range r.Results {
		r.Results[i].Staleness = StalenessOf(states, r.Results[i].ID)
	}
}

// Confirm reports a confirmation: `memvault confirm --json` and the MCP
// confirm_memory tool.
type Confirm struct {
	ID         string `json:"id"`
	VerifiedAt string `json:"verified_at"`
	// Commit is the commit made; "" for the transient layer.
	Commit string `json:"commit"`
	Vault  string `json:"vault"`
	// Staleness is the memory's staleness after the confirmation; absent
	// without refs.
	Staleness *Staleness `json:"staleness,omitempty"`
}

// ConfirmOf builds the view of a confirmation of a memory of the vault
// named vaultName; states are the staleness after it.
func ConfirmOf(res vault.WriteResult, vaultName string, states map[string]staleness.Staleness) Confirm {
	return Confirm{ID: res.Memory.ID, VerifiedAt: Instant(res.Memory.VerifiedAt), Commit: res.Commit, Vault: vaultName,
		Staleness: StalenessOf(states, res.Memory.ID)}
}
