package staleness

import (
	"context"
	"errors"
	"testing"
	"time"
)

// promptly fails the test when fn does not return: the calls it wraps
// must not wait for anything (the watchdog only turns a hang into a
// failure).
func promptly(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s waited for the update that is running", what)
	}
}

// TestRefreshHonoursDeadlines is the regression test for recalls that
// never answered while a walk ran (issue 27 finding 1): with an update in
// the background, a caller whose context ends gets its error at once
// from Refresh, Current and States; Close cancels the walk and waits for
// it, and later calls are refused.
func TestRefreshHonoursDeadlines(t *testing.T) {
	t.Parallel()
	fg := newFakeGit()
	fg.commit("init", map[string]string{"a.go": goSrc})
	fg.commit("memory: add", map[string]string{".memory/m.md": "m"})
	g := &blockingGit{fakeGit: fg, started: make(chan struct{}, 1), release: make(chan struct{}), ended: make(chan error, 1)}
	tr := NewTracker(g)
	items := []Item{{ID: "m", Since: fg.memorySince(), Refs: []string{"a.go", "nope/**/*.go"}}}
	head, _ := fg.Head(t.Context())

	ctx, cancel := context.WithCancel(t.Context())
	first := make(chan error, 1)
	go func() { first <- tr.Refresh(ctx, items) }()
	<-g.started // the background update holds the tracker, walking
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("Refresh whose caller gave up: %v, want context.Canceled", err)
	}
	promptly(t, "Current", func() {
		if tr.Current(head, items) {
			t.Errorf("Current during the update: true")
		}
	})
	expired, cancel2 := context.WithDeadline(t.Context(), time.Unix(0, 0))
	defer cancel2()
	promptly(t, "Refresh", func() {
		if err := tr.Refresh(expired, items); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Refresh past its deadline: %v", err)
		}
	})
	promptly(t, "States", func() {
		if _, err := tr.States(expired, []string{"m"}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("States past its deadline: %v", err)
		}
	})
	promptly(t, "Close", tr.Close)
	if err := <-g.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the walk ended with %v, want it cancelled by Close", err)
	}
	if err := tr.Refresh(t.Context(), items); !errors.Is(err, ErrClosed) {
		t.Errorf("Refresh after Close: %v, want ErrClosed", err)
	}
}
