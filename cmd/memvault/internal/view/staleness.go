package view

import "github.com/memvault/memvault/vault/staleness"

// Staleness says whether a memory still matches the code its refs name:
// state is fresh, possibly_stale or stale, and reason says why (which
// path went where, how many commits changed it and the latest one's
// subject, uncommitted changes). Absent for a memory without refs.
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

// SetStaleness fills in each result's staleness from states.
func (r Recall) SetStaleness(states map[string]staleness.Staleness) {
	for i := range r.Results {
		r.Results[i].Staleness = StalenessOf(states, r.Results[i].ID)
	}
}
