package teamsync

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/syncbuf"
)

// syncResult is what a fake sync returns, in order.
type syncResult struct {
	rep Report
	err error
}

// TestLoopSyncsAtEachTickAndSurvivesFailures drives the loop by fake
// ticks and a fake sync: a failed sync is logged with its step and the
// next tick syncs again; a panic is a failed sync; a sync that merged is
// logged; the loop ends with its context.
func TestLoopSyncsAtEachTickAndSurvivesFailures(t *testing.T) {
	results := []syncResult{
		{Report{Remote: "origin", Branch: "main"}, &StepError{StepFetch, errors.New("could not read from remote")}},
		{Report{}, nil}, // the fake panics on this one
		{Report{Remote: "origin", Branch: "main", Merged: true, Pushed: true, PushedNew: true}, nil},
	}
	var buf syncbuf.Buffer
	ticks := make(chan time.Time)
	synced := make(chan syncResult)
	calls := 0
	l := Loop{
		Sync: func(ctx context.Context) (Report, error) {
			calls++
			if calls == 2 {
				panic("boom")
			}
			r := results[calls-1]
			return r.rep, r.err
		},
		Ticks:  ticks,
		Logger: slog.New(slog.NewTextHandler(&buf, nil)),
		Synced: func(rep Report, err error) { synced <- syncResult{rep, err} },
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()

	for i, want := range []struct {
		err  string
		logs string
	}{
		{"fetch: could not read from remote", `level=ERROR msg="sync failed; trying again at the next interval" step=fetch remote=origin branch=main`},
		{"sync panicked: boom", `level=ERROR msg="sync failed; trying again at the next interval" step=unknown`},
		{"", `level=INFO msg=synced remote=origin branch=main merged=true pushed=true`},
	} {
		ticks <- time.Time{}
		got := <-synced
		if errText(got.err) != want.err {
			t.Errorf("sync %d: err %v, want %q", i+1, got.err, want.err)
		}
		if !strings.Contains(buf.String(), want.logs) {
			t.Errorf("sync %d: log lacks %q:\n%s", i+1, want.logs, buf.String())
		}
	}
	cancel()
	<-done
	if calls != 3 {
		t.Errorf("%d syncs, want 3", calls)
	}
}

// TestLoopRunsOneSyncAtATime: ticks that come while a sync runs do not
// start a second one beside it.
func TestLoopRunsOneSyncAtATime(t *testing.T) {
	ticks := make(chan time.Time, 3)
	release := make(chan struct{})
	started := make(chan struct{}, 3)
	synced := make(chan struct{}, 3)
	var mu sync.Mutex
	running, most := 0, 0
	l := Loop{
		Sync: func(ctx context.Context) (Report, error) {
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			started <- struct{}{}
			<-release
			mu.Lock()
			running--
			mu.Unlock()
			return Report{}, nil
		},
		Ticks:  ticks,
		Synced: func(Report, error) { synced <- struct{}{} },
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()
	for range 3 {
		ticks <- time.Time{}
	}
	for range 3 {
		<-started
		release <- struct{}{}
		<-synced
	}
	cancel()
	<-done
	if most != 1 {
		t.Errorf("%d syncs ran at once, want 1", most)
	}
}

// TestLoopStopsWithItsContext: a cancelled context ends the loop without
// a sync, even with a tick waiting.
func TestLoopStopsWithItsContext(t *testing.T) {
	ticks := make(chan time.Time, 1)
	ticks <- time.Time{}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	Loop{Sync: func(context.Context) (Report, error) {
		t.Error("synced after the context ended")
		return Report{}, nil
	}, Ticks: ticks}.Run(ctx)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestLoopLogsABrokenFileWhenItComesAndGoes: a broken memory file is
// logged at ERROR, with its fix, in the round it shows up, not again while
// it stays the same, and its fix is logged when it arrives.
func TestLoopLogsABrokenFileWhenItComesAndGoes(t *testing.T) {
	broken := Report{Broken: []Broken{{Path: "project/a.md", Line: 3, Problem: "bad", Fix: "quote the title", Origin: OriginUpstream}}}
	rounds := []Report{broken, broken, {}}
	var buf syncbuf.Buffer
	ticks := make(chan time.Time)
	synced := make(chan struct{})
	calls := 0
	l := Loop{
		Sync:   func(context.Context) (Report, error) { calls++; return rounds[calls-1], nil },
		Ticks:  ticks,
		Logger: slog.New(slog.NewTextHandler(&buf, nil)),
		Synced: func(Report, error) { synced <- struct{}{} },
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()
	for range rounds {
		ticks <- time.Time{}
		<-synced
	}
	cancel()
	<-done
	log := buf.String()
	if n := strings.Count(log, "level=ERROR"); n != 1 || !strings.Contains(log, `file=project/a.md line=3 problem=bad origin="from the remote"`) || !strings.Contains(log, `fix="quote the title"`) {
		t.Errorf("%d ERROR line(s), want 1 naming the file and its fix:\n%s", n, log)
	}
	if !strings.Contains(log, `level=INFO msg="memory file fixed" file=project/a.md`) {
		t.Errorf("the fix is not logged:\n%s", log)
	}
}
