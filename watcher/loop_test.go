package watcher

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fsnotify/fsnotify"
)

// call is one Sink call seen by fakeSink.
type call struct {
	paths []string
	full  bool
	at    time.Duration // since the test started, on the bubble's clock
}

type fakeSink struct {
	start time.Time
	mu    sync.Mutex
	calls []call
}

func (s *fakeSink) Refresh(_ context.Context, rels []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call{paths: slices.Clone(rels), at: time.Since(s.start)})
	return nil
}

func (s *fakeSink) Reload(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call{full: true, at: time.Since(s.start)})
	return nil
}

func (s *fakeSink) got() []call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// fakeWatcher runs the watcher loop on hand-fed events, inside a synctest
// bubble, so the debounce runs on the bubble's fake clock.
type fakeWatcher struct {
	*Watcher
	sink   *fakeSink
	events chan fsnotify.Event
	errs   chan error
}

func startFake(t *testing.T, opts Options) *fakeWatcher {
	t.Helper()
	sink := &fakeSink{start: time.Now()}
	w := newWatcher(filepath.FromSlash("/nonexistent/vault"), sink, opts)
	f := &fakeWatcher{Watcher: w, sink: sink, events: make(chan fsnotify.Event), errs: make(chan error)}
	w.events, w.errs = f.events, f.errs
	w.mode.Store(ModeNotify)
	var ctx context.Context
	ctx, w.cancel = context.WithCancel(t.Context())
	go w.run(ctx)
	t.Cleanup(func() { w.Close() })
	return f
}

func (f *fakeWatcher) send(op fsnotify.Op, rel string) {
	f.events <- fsnotify.Event{Name: filepath.Join(f.dir, filepath.FromSlash(rel)), Op: op}
}

func TestLoopCoalescesABurst(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Debounce: 50 * time.Millisecond})
		f.send(fsnotify.Create, "project/.a.md.swp")
		f.send(fsnotify.Rename, "project/a.md")
		time.Sleep(10 * time.Millisecond)
		f.send(fsnotify.Create, "project/a.md")
		f.send(fsnotify.Create, "project/4913")
		time.Sleep(10 * time.Millisecond)
		f.send(fsnotify.Write, "project/a.md")
		f.send(fsnotify.Write, "short-term/b.md")
		f.send(fsnotify.Remove, "project/a.md~")
		time.Sleep(49 * time.Millisecond)
		synctest.Wait()
		if got := f.sink.got(); len(got) != 0 {
			t.Fatalf("before the burst settled: calls %+v, want none", got)
		}
		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		want := []call{{paths: []string{"project/a.md", "short-term/b.md"}, at: 70 * time.Millisecond}}
		if got := f.sink.got(); !equalCalls(got, want) {
			t.Errorf("calls = %+v, want %+v", got, want)
		}
	})
}

func TestLoopRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		opts  func() Options // built inside the bubble, on its clock
		feed  func(f *fakeWatcher)
		after time.Duration
		want  []call
	}{
		{
			name: "over the threshold becomes a reload",
			opts: func() Options { return Options{Debounce: 20 * time.Millisecond, ReloadThreshold: 2} },
			feed: func(f *fakeWatcher) {
				for _, r := range []string{"a.md", "b.md", "c.md"} {
					f.send(fsnotify.Create, r)
				}
			},
			after: time.Second,
			want:  []call{{full: true, at: 20 * time.Millisecond}},
		},
		{
			name: "held while busy, then one batch",
			opts: func() Options { return Options{Debounce: 20 * time.Millisecond, Busy: busyFor(300 * time.Millisecond)} },
			feed: func(f *fakeWatcher) {
				f.send(fsnotify.Create, "a.md")
				time.Sleep(100 * time.Millisecond)
				f.send(fsnotify.Create, "b.md")
			},
			after: time.Second,
			// Busy lets go at 300 ms; one more quiet period for the
			// operation's last events.
			want: []call{{paths: []string{"a.md", "b.md"}, at: 320 * time.Millisecond}},
		},
		{
			name: "busy forever is cut at max wait",
			opts: func() Options {
				return Options{Debounce: 20 * time.Millisecond, MaxWait: 500 * time.Millisecond, Busy: func() bool { return true }}
			},
			feed: func(f *fakeWatcher) {
				f.send(fsnotify.Create, "a.md")
			},
			after: time.Second,
			want:  []call{{paths: []string{"a.md"}, at: 500 * time.Millisecond}},
		},
		{
			name: "overflow reloads",
			opts: func() Options { return Options{Debounce: 20 * time.Millisecond} },
			feed: func(f *fakeWatcher) {
				f.send(fsnotify.Write, "a.md")
				f.errs <- fsnotify.ErrEventOverflow
			},
			after: time.Second,
			want:  []call{{full: true, at: 20 * time.Millisecond}},
		},
		{
			name: "ignored files make no batch",
			opts: func() Options { return Options{Debounce: 20 * time.Millisecond} },
			feed: func(f *fakeWatcher) {
				for _, r := range []string{".git/index", "a.md.swp", ".a.md.swp", "a.md~", "4913", "a.md___jb_tmp___", "notes.txt"} {
					f.send(fsnotify.Create, r)
				}
			},
			after: time.Second,
			want:  nil,
		},
		{
			name: "separate bursts, separate batches",
			opts: func() Options { return Options{Debounce: 20 * time.Millisecond} },
			feed: func(f *fakeWatcher) {
				f.send(fsnotify.Write, "a.md")
				time.Sleep(100 * time.Millisecond)
				f.send(fsnotify.Write, "b.md")
			},
			after: time.Second,
			want: []call{
				{paths: []string{"a.md"}, at: 20 * time.Millisecond},
				{paths: []string{"b.md"}, at: 120 * time.Millisecond},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				f := startFake(t, tt.opts())
				tt.feed(f)
				time.Sleep(tt.after)
				synctest.Wait()
				if got := f.sink.got(); !equalCalls(got, tt.want) {
					t.Errorf("calls = %+v, want %+v", got, tt.want)
				}
			})
		})
	}
}

// busyFor is a Busy check that is true for d from now.
func busyFor(d time.Duration) func() bool {
	start := time.Now()
	return func() bool { return time.Since(start) < d }
}

func equalCalls(a, b []call) bool {
	return slices.EqualFunc(a, b, func(x, y call) bool {
		return x.full == y.full && x.at == y.at && slices.Equal(x.paths, y.paths)
	})
}

// TestLoopPollDebounce runs the rescanning fallback on a real folder under
// the bubble's clock: a change is found at the next rescan, and a file
// still changing when the batch is due holds it back one more quiet period.
func TestLoopPollDebounce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "project", "a.md"), "a")
		sink := &fakeSink{start: time.Now()}
		w, err := Open(t.Context(), dir, sink, Options{Poll: true, PollInterval: 100 * time.Millisecond, Debounce: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if w.Mode() != ModePoll {
			t.Fatalf("mode = %s, want poll", w.Mode())
		}
		writeFile(t, filepath.Join(dir, "project", "b.md"), "b")
		// The rescan at 100 ms finds b.md; the batch would be due at 120 ms,
		// but b.md changes again at 110 ms: the rescan made before applying
		// sees it and waits until 140 ms.
		time.Sleep(110 * time.Millisecond)
		synctest.Wait()
		writeFile(t, filepath.Join(dir, "project", "b.md"), "b, longer")
		time.Sleep(25 * time.Millisecond)
		synctest.Wait()
		if got := sink.got(); len(got) != 0 {
			t.Fatalf("at 135 ms: calls %+v, want none while b.md was still changing", got)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		want := []call{{paths: []string{"project/b.md"}, at: 140 * time.Millisecond}}
		if got := sink.got(); !equalCalls(got, want) {
			t.Errorf("calls = %+v, want %+v", got, want)
		}
	})
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
