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
// A memory file with errors is logged at ERROR, naming it and its fix,
// when it first shows up (and again when what is wrong with it changes),
// and its fix is logged when it arrives: not once per tick.
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
	var broken map[string]string // path: what was logged
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
		broken = l.logBroken(rep, err, broken)
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
		l.Logger.Error("sync failed; trying again at the next interval", "step", step, "remote", rep.Remote, "branch", rep.Branch, "err", err)
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

// logBroken logs the broken memory files that are new since the last
// round, and those fixed since; before is what was logged, and the result
// is what is now. A round that failed before its lint step says nothing
// about the files.
func (l Loop) logBroken(rep Report, err error, before map[string]string) map[string]string {
	if se := (*StepError)(nil); err != nil && (!errors.As(err, &se) || se.Step != StepLint && se.Step != StepPush && se.Step != StepCommit) {
		return before
	}
	now := map[string]string{}
	for _, b := range rep.Broken {
		line := b.String()
		now[b.Path] = line
		if before[b.Path] != line && l.Logger != nil {
			l.Logger.Error("memory file has an error; left out of what sync commits, the rest syncs", "file", b.Path, "line", b.Line,
				"problem", b.Problem, "origin", b.Origin, "commit", b.Commit, "author", b.Author, "fix", b.Fix)
		}
	}
	for p := range before {
		if _, ok := now[p]; !ok && l.Logger != nil {
			l.Logger.Info("memory file fixed", "file", p)
		}
	}
	return now
}

// Start runs sync at every interval, in a Loop of its own goroutine, until
// ctx ends or stop is called; stop waits for the sync under way.
// synced, when set, hears of every sync's end (Loop.Synced).
func Start(ctx context.Context, sync func(context.Context) (Report, error), every time.Duration, logger *slog.Logger, synced func(Report, error)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	t, done := time.NewTicker(every), make(chan struct{})
	go func() {
		defer close(done)
		Loop{Sync: sync, Ticks: t.C, Logger: logger, Synced: synced}.Run(ctx)
	}()
	return func() { cancel(); t.Stop(); <-done }
}
