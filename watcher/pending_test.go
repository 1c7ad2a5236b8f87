package watcher

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestPendingDecide(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	const quiet, maxWait = 50 * time.Millisecond, time.Second
	tests := []struct {
		name   string
		events []int // ms after t0
		full   bool
		now    int
		busy   bool
		want   decision
	}{
		{name: "empty", now: 100, want: decision{}},
		{name: "still settling", events: []int{0, 30}, now: 60, want: decision{wait: ms(80)}},
		{name: "settled", events: []int{0, 30}, now: 80, want: decision{flush: true}},
		{name: "settled but busy", events: []int{0}, now: 60, busy: true, want: decision{wait: ms(110)}},
		{name: "busy past max wait", events: []int{0}, now: 1000, busy: true, want: decision{flush: true}},
		{name: "endless burst hits max wait", events: []int{0, 400, 800, 990}, now: 1000, want: decision{flush: true}},
		{name: "wait capped by max wait", events: []int{0, 980}, now: 990, want: decision{wait: ms(1000)}},
		{name: "full only", full: true, now: 10, want: decision{wait: ms(50)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p pending
			for _, e := range tt.events {
				p.add("a.md", ms(e))
			}
			if tt.full {
				p.addFull(t0)
			}
			got := p.decide(ms(tt.now), quiet, maxWait, tt.busy)
			if got != tt.want {
				t.Errorf("decide = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestPendingQuietAfterBusy: once Busy lets go, the burst waits one more
// quiet period before it is flushed, so the last events of the operation
// that held it back land in the same batch.
func TestPendingQuietAfterBusy(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	const quiet, maxWait = 50 * time.Millisecond, time.Second
	var p pending
	p.add("a.md", ms(0))
	steps := []struct {
		now  int
		busy bool
		want decision
	}{
		{now: 60, busy: true, want: decision{wait: ms(110)}},
		{now: 110, busy: false, want: decision{wait: ms(160)}},
		{now: 160, busy: false, want: decision{flush: true}},
	}
	for _, s := range steps {
		if got := p.decide(ms(s.now), quiet, maxWait, s.busy); got != s.want {
			t.Fatalf("at %d ms (busy %v): decide = %+v, want %+v", s.now, s.busy, got, s.want)
		}
	}
	// Never past the deadline, even right after Busy let go.
	var q pending
	q.add("a.md", ms(0))
	q.decide(ms(980), quiet, maxWait, true)
	if got, want := q.decide(ms(990), quiet, maxWait, false), (decision{wait: ms(1000)}); got != want {
		t.Errorf("near the deadline: decide = %+v, want %+v", got, want)
	}
}

func TestPendingTake(t *testing.T) {
	t.Parallel()
	var p pending
	now := time.Now()
	for _, r := range []string{"b.md", "a.md", "b.md", "c/d.md"} {
		p.add(r, now)
	}
	paths, full := p.take()
	if want := []string{"a.md", "b.md", "c/d.md"}; !slices.Equal(paths, want) || full {
		t.Errorf("take = %v, %v; want %v, false", paths, full, want)
	}
	if !p.empty() {
		t.Errorf("after take: not empty: %+v", p)
	}
	p.addFull(now)
	if paths, full = p.take(); len(paths) != 0 || !full {
		t.Errorf("take after addFull = %v, %v; want [], true", paths, full)
	}
}

func TestHasDotPartAndWanted(t *testing.T) {
	t.Parallel()
	w := newWatcher("/v", nil, Options{})
	tests := []struct {
		rel  string
		want bool
	}{
		{"project/a.md", true},
		{"project/A.MD", true},
		{".git/HEAD", false},
		{"project/.a.md.swp", false},
		{"project/.a.md.tmp-123", false},
		{".obsidian/x.md", false},
		{"project/a.md~", false},
		{"project/4913", false},
		{"project/a.md___jb_tmp___", false},
		{"project/a.md___jb_old___", false},
		{"project/#a.md#", false},
		{"project/a.txt", false},
		{".", false},
		{"../x.md", false},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			if got := w.wanted(tt.rel); got != tt.want {
				t.Errorf("wanted(%q) = %v, want %v", tt.rel, got, tt.want)
			}
		})
	}
}

func TestFallbackHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("watch /v/project: %w", syscall.ENOSPC), "sysctl fs.inotify.max_user_watches="},
		{fmt.Errorf("inotify_init1: %w", syscall.EMFILE), "sysctl fs.inotify.max_user_instances="},
		{errors.New("operation not supported"), "max_user_watches"},
		{fmt.Errorf("%w: the vault is on NFS", errRemote), "nothing to fix"},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			if got := fallbackHint(tt.err); !strings.Contains(got, tt.want) {
				t.Errorf("fallbackHint(%v) = %q, want it to contain %q", tt.err, got, tt.want)
			}
		})
	}
}

// FuzzPendingDecide feeds arbitrary event timings and checks the settling
// rules' promises: a batch is flushed by its deadline at the latest, and
// a wait is always in the future and never past the deadline.
func FuzzPendingDecide(f *testing.F) {
	f.Add([]byte{0, 10, 20}, uint16(70), false)
	f.Add([]byte{0}, uint16(2000), true)
	f.Add([]byte{255, 255, 255, 255}, uint16(1), true)
	f.Fuzz(func(t *testing.T, gaps []byte, after uint16, busy bool) {
		const quiet, maxWait = 50 * time.Millisecond, time.Second
		t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
		var p pending
		now := t0
		for _, g := range gaps {
			now = now.Add(time.Duration(g) * time.Millisecond)
			p.add("a.md", now)
		}
		now = now.Add(time.Duration(after) * time.Millisecond)
		d := p.decide(now, quiet, maxWait, busy)
		if len(gaps) == 0 {
			if d.flush || !d.wait.IsZero() {
				t.Fatalf("empty set: %+v, want nothing to do", d)
			}
			return
		}
		deadline := p.first.Add(maxWait)
		switch {
		case !now.Before(deadline) && !d.flush:
			t.Fatalf("past the deadline %v at %v: %+v, want a flush", deadline, now, d)
		case d.flush:
			return
		case !d.wait.After(now):
			t.Fatalf("wait %v is not after now %v", d.wait, now)
		case d.wait.After(deadline):
			t.Fatalf("wait %v is past the deadline %v", d.wait, deadline)
		}
	})
}

// FuzzWanted checks that no path with a dot part or without the .md
// extension is ever reported, whatever the event names.
func FuzzWanted(f *testing.F) {
	for _, s := range []string{"project/a.md", ".git/x.md", "a/.b/c.md", "a.md~", "../x.md", "a//b.md", ""} {
		f.Add(s)
	}
	w := newWatcher("/v", nil, Options{})
	f.Fuzz(func(t *testing.T, rel string) {
		if !w.wanted(rel) {
			return
		}
		if hasDotPart(rel) || !strings.HasSuffix(strings.ToLower(rel), ".md") {
			t.Fatalf("wanted(%q) = true", rel)
		}
	})
}

// TestRemoteFSLocal: a temp folder is on a local file system, which
// fsnotify watches.
func TestRemoteFSLocal(t *testing.T) {
	t.Parallel()
	if name, remote := remoteFS(t.TempDir()); remote {
		t.Skipf("the temp folder is on %s", name)
	}
	if _, remote := remoteFS(filepath.Join(t.TempDir(), "missing")); remote {
		t.Error("remoteFS of a missing folder = true, want false")
	}
}
