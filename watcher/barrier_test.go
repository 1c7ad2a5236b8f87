package watcher

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// TestBarrier walks a barrier through its states: a burst may flush only
// once a barrier written after its last event has come back, and an event
// of an older barrier file, or of a file elsewhere, does not count.
func TestBarrier(t *testing.T) {
	b := barrier{}
	if !b.open() {
		t.Fatal("no private folder")
	}
	t.Cleanup(b.close)
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	burst := t0.Add(-time.Second) // the burst's last event
	ev := func(name string, op fsnotify.Op) fsnotify.Event {
		return fsnotify.Event{Name: filepath.Join(b.dir, name), Op: op}
	}
	steps := []struct {
		name          string
		do            func() bool // reports whether the event was the barrier's
		want, waiting bool
	}{
		{"nothing sent", func() bool { return true }, false, false},
		{"sent", func() bool { return b.send(t0) == nil }, false, true},
		{"another folder's event", func() bool { return !b.handle(fsnotify.Event{Name: "/elsewhere/1", Op: fsnotify.Create}) }, false, true},
		{"a remove of it", func() bool { return b.handle(ev("1", fsnotify.Remove)) }, false, true},
		{"it came back", func() bool { return b.handle(ev("1", fsnotify.Create)) }, true, false},
		{"a second one sent", func() bool { return b.send(t0.Add(time.Second)) == nil }, false, true},
		{"the first one's late write", func() bool { return b.handle(ev("1", fsnotify.Write)) }, false, true},
		{"the second came back", func() bool { return b.handle(ev("2", fsnotify.Create)) }, true, false},
	}
	for _, s := range steps {
		if !s.do() {
			t.Fatalf("%s: the step failed", s.name)
		}
		if got := b.passed(burst); got != s.want {
			t.Errorf("%s: passed = %v, want %v", s.name, got, s.want)
		}
		if got := b.waiting(); got != s.waiting {
			t.Errorf("%s: waiting = %v, want %v", s.name, got, s.waiting)
		}
	}
	if b.passed(t0.Add(2 * time.Second)) {
		t.Error("a barrier written before the burst's last event passed it")
	}
}
