package teamsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Loop runs a sync at every tick until its context ends: the loop behind
// `memvault serve --pull-interval`, which keeps a shared server in step
// with the remote through the same path as `memvault sync`. The syncs run
// one after another in the goroutine that calls Run, so two never
// overlap; a tick that comes while a sync runs waits (a time.Ticker drops
// the ticks a slow receiver misses). A failed sync is logged with the step
// that failed and tried again at the next tick: it never ends the loop.
type Loop struct {
	// Sync runs one sync ((*Syncer).Run).
	Sync func(ctx context.Context) (Report, error)
	// Ticks says when to sync (a time.Ticker's C; tests send their own).
	Ticks <-chan time.Time
	// Logger receives one line per sync that did something or failed.
	Logger *slog.Logger
	// Synced, when set, hears of every sync's end, after its log line.
	Synced func(Report, error)
}

// Run syncs at each tick until ctx is done or Ticks is closed. A sync
// under way when ctx ends runs on with the cancelled context, which kills
// its git command.
func (l Loop) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-l.Ticks:
			if !ok {
				return
			}
		}
		if ctx.Err() != nil {
			return // both were ready and select picked the tick
		}
		rep, err := l.once(ctx)
		l.log(rep, err)
		if l.Synced != nil {
			l.Synced(rep, err)
		}
	}
}

// once runs one sync; a panic in it is an error of that sync, not the
// end of the server that runs the loop.
func (l Loop) once(ctx context.Context) (rep Report, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("sync panicked: %v", r)
		}
	}()
	return l.Sync(ctx)
}

func (l Loop) log(rep Report, err error) {
	if l.Logger == nil {
		return
	}
	if err != nil {
		step := "unknown"
		if se := (*StepError)(nil); errors.As(err, &se) {
			step = se.Step
		}
		l.Logger.Warn("sync failed; trying again at the next interval", "step", step, "remote", rep.Remote, "branch", rep.Branch, "err", err)
		return
	}
	attrs := []any{"remote", rep.Remote, "branch", rep.Branch, "merged", rep.Merged, "pushed", rep.PushedNew}
	if rep.Committed != "" {
		attrs = append(attrs, "committed", rep.Committed)
	}
	if len(rep.Resolved) > 0 {
		attrs = append(attrs, "resolved", len(rep.Resolved))
	}
	if n := len(rep.Lint.Conflicted); n > 0 {
		attrs = append(attrs, "conflicted", n)
	}
	if rep.Merged || rep.Committed != "" || len(rep.Resolved) > 0 || rep.PushedNew {
		l.Logger.Info("synced", attrs...)
		return
	}
	// Nothing came in, went out or was committed: every interval says
	// so, which is noise at the usual level.
	l.Logger.Debug("synced", attrs...)
}

// Start runs sync at every interval, in a Loop of its own goroutine, until
// ctx ends or stop is called; stop waits for the sync under way.
func Start(ctx context.Context, sync func(context.Context) (Report, error), every time.Duration, logger *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	t, done := time.NewTicker(every), make(chan struct{})
	go func() {
		defer close(done)
		Loop{Sync: sync, Ticks: t.C, Logger: logger}.Run(ctx)
	}()
	return func() { cancel(); t.Stop(); <-done }
}
