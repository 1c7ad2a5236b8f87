package staleness

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/memvault/memvault/vault/fault"
)

// snapshotVersion changes whenever the meaning of a saved tracker does.
// 2: renames in a row are followed, and a folder ref records where its
// newest commit moved it. 3: refs record whether their path never
// existed (absent).
const snapshotVersion = 3

// ErrSnapshot is wrapped by Load's errors: the bytes are not a tracker
// this version saved.
var ErrSnapshot = fault.New(fault.Internal, "not a staleness snapshot of this version")

type snapshot struct {
	Version int                      `json:"version"`
	Head    string                   `json:"head"`
	Entries map[string]entrySnapshot `json:"entries"`
}

type entrySnapshot struct {
	Spec  string        `json:"spec"`
	Since time.Time     `json:"since"`
	Refs  []refSnapshot `json:"refs,omitempty"`
	Bad   []string      `json:"bad,omitempty"`
}

type refSnapshot struct {
	Raw         string `json:"raw"`
	Count       int    `json:"count,omitempty"`
	LatestID    string `json:"latest,omitempty"`
	LatestSubj  string `json:"latest_subject,omitempty"`
	LastCounted string `json:"last_counted,omitempty"`
	Decided     bool   `json:"decided,omitempty"`
	Gone        bool   `json:"gone,omitempty"`
	MovedTo     string `json:"moved_to,omitempty"`
	GoneID      string `json:"gone_id,omitempty"`
	GoneSubj    string `json:"gone_subject,omitempty"`
	Absent      bool   `json:"absent,omitempty"`
}

// Save returns the tracker's state, for Load in a later process: a
// command that starts where the last one stopped walks only the commits
// since.
func (t *Tracker) Save(ctx context.Context) ([]byte, error) {
	if err := t.lock(ctx); err != nil {
		return nil, err
	}
	defer t.unlock()
	s := snapshot{Version: snapshotVersion, Head: t.head, Entries: make(map[string]entrySnapshot, len(t.entries))}
	for id, e := range t.entries {
		es := entrySnapshot{Spec: e.spec, Since: e.since, Bad: e.bad}
		for _, r := range e.refs {
			es.Refs = append(es.Refs, refSnapshot{Raw: r.ref.Raw, Count: r.count, LatestID: r.latestID, LatestSubj: r.latestSubj,
				LastCounted: r.lastCounted, Decided: r.decided, Gone: r.gone, MovedTo: r.movedTo, GoneID: r.goneID, GoneSubj: r.goneSubj, Absent: r.absent})
		}
		s.Entries[id] = es
	}
	return json.Marshal(s)
}

// Load replaces the tracker's state with one Save returned. The next
// Update goes on from the saved HEAD (from scratch when it is no longer
// an ancestor).
func (t *Tracker) Load(data []byte) error {
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	if s.Version != snapshotVersion {
		return fmt.Errorf("%w: version %d", ErrSnapshot, s.Version)
	}
	entries := make(map[string]*entry, len(s.Entries))
	for id, es := range s.Entries {
		it := Item{ID: id, Since: es.Since}
		for _, r := range es.Refs {
			it.Refs = append(it.Refs, r.Raw)
		}
		it.Refs = append(it.Refs, es.Bad...)
		e := newEntry(it, es.Spec)
		if len(e.refs) != len(es.Refs) {
			return fmt.Errorf("%w: %s: a ref no longer parses", ErrSnapshot, id)
		}
		for i, r := range es.Refs {
			*e.refs[i] = refState{ref: e.refs[i].ref, count: r.Count, latestID: r.LatestID, latestSubj: r.LatestSubj,
				lastCounted: r.LastCounted, decided: r.Decided, gone: r.Gone, movedTo: r.MovedTo, goneID: r.GoneID, goneSubj: r.GoneSubj, absent: r.Absent}
		}
		entries[id] = e
	}
	t.sem <- struct{}{} // Load comes first, when nothing else can hold the lock
	defer t.unlock()
	t.head, t.entries, t.match, t.prefixes = s.Head, entries, nil, nil
	return nil
}
