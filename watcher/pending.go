package watcher

import (
	"slices"
	"time"
)

// pending is the set of changes seen since the last batch, with the times
// the debounce decision needs. It is pure: the caller passes the time, so
// the settling rules are tested without a clock.
type pending struct {
	paths map[string]struct{}
	full  bool
	first time.Time // first change of the burst; zero when empty
	last  time.Time // latest change
	// busySeen: Busy held this burst back at least once. When it lets go
	// the burst waits one more quiet period: the operation's last events
	// were queued by the kernel before its lock went, but on a loaded
	// machine they may not have reached us yet, and flushing at once
	// would split one git command into two batches.
	busySeen bool
}

// add records a changed vault-relative path.
func (p *pending) add(rel string, now time.Time) {
	if p.paths == nil {
		p.paths = make(map[string]struct{})
	}
	p.paths[rel] = struct{}{}
	p.touch(now)
}

// addFull asks for a reload of the whole folder.
func (p *pending) addFull(now time.Time) {
	p.full = true
	p.touch(now)
}

func (p *pending) touch(now time.Time) {
	if p.first.IsZero() {
		p.first = now
	}
	p.last = now
}

func (p *pending) empty() bool { return len(p.paths) == 0 && !p.full }

// decision is what to do with the pending set at some moment.
type decision struct {
	flush bool
	// wait is when to look again if not flushing; zero when there is
	// nothing pending.
	wait time.Time
}

// decide applies the settling rules at now: flush once no event came for
// quiet and busy is false; but never hold a burst longer than maxWait
// after its first event, so a process that writes forever, or a lock left
// behind by a crashed git, cannot starve the index.
func (p *pending) decide(now time.Time, quiet, maxWait time.Duration, busy bool) decision {
	if p.empty() {
		return decision{}
	}
	deadline := p.first.Add(maxWait)
	if !now.Before(deadline) {
		return decision{flush: true}
	}
	settled := p.last.Add(quiet)
	if now.Before(settled) {
		return decision{wait: minTime(settled, deadline)}
	}
	if busy {
		p.busySeen = true
		return decision{wait: minTime(now.Add(quiet), deadline)}
	}
	if p.busySeen {
		p.busySeen = false
		p.last = now
		return decision{wait: minTime(now.Add(quiet), deadline)}
	}
	return decision{flush: true}
}

// take empties the set and returns its sorted paths and whether a full
// reload was asked for.
func (p *pending) take() (paths []string, full bool) {
	paths = make([]string, 0, len(p.paths))
	for rel := range p.paths {
		paths = append(paths, rel)
	}
	slices.Sort(paths)
	full = p.full
	*p = pending{}
	return paths, full
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
