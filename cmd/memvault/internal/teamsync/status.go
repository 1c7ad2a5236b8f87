package teamsync

import (
	"errors"
	"sync"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// Status keeps the last sync round of a team server, for memory_stats and
// memory://context: a failed round, or a broken file it left out, is seen
// where people look, not only in the log. Safe for concurrent use.
type Status struct {
	mu   sync.Mutex
	last *view.SyncStatus
}

// Record notes a round's outcome, ended at at.
func (st *Status) Record(rep Report, err error, at time.Time) {
	v := &view.SyncStatus{At: view.Instant(at), OK: err == nil, Pushed: rep.Pushed}
	if err != nil {
		v.Step, v.Error = "unknown", err.Error()
		if se := (*StepError)(nil); errors.As(err, &se) {
			v.Step = se.Step
		}
	}
	for _, b := range rep.Broken {
		v.Broken = append(v.Broken, b.String())
	}
	st.mu.Lock()
	st.last = v
	st.mu.Unlock()
}

// Last is the last round's outcome; nil before the first round ends.
func (st *Status) Last() *view.SyncStatus {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.last == nil {
		return nil
	}
	c := *st.last
	return &c
}
