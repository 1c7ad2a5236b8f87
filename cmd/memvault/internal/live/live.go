package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/watcher"
)

// Start watches dir, then loads the vault there with load and keeps it
// in step with its folder while the server runs: hand edits, git checkouts
// and pulls, other memvault processes writing the same vault. The watch
// starts first, so a change made while the vault loads arrives as an event,
// applied once the load is done, however long the load takes (looking for
// recently modified files after the load missed older changes of a long
// load, and stat'ed every file again). Each batch is logged with its size
// and duration, with the problems found in the changed files (broken front
// matter, secrets) as warnings. stop ends the watching; a watch that cannot
// start is logged and the vault served without it.
func Start(ctx context.Context, dir string, logger *slog.Logger, load func() (*vault.Vault, error)) (v *vault.Vault, stop func(), err error) {
	sink := &liveSink{logger: logger, ready: make(chan struct{})}
	w, werr := openWatch(ctx, dir, sink, watcher.Options{})
	if v, err = load(); err != nil {
		if werr == nil {
			w.Close()
		}
		return nil, nil, err
	}
	sink.v = v
	close(sink.ready)
	if werr != nil {
		logger.Warn("cannot follow changes on disk", "vault", v.Dir(), "err", werr)
		return v, func() {}, nil
	}
	return v, func() { w.Close() }, nil
}

// StartWith keeps a loaded vault in step with its folder, with watcher
// options, for tests and benchmarks.
func StartWith(ctx context.Context, v *vault.Vault, logger *slog.Logger, opts watcher.Options) (stop func(), err error) {
	ready := make(chan struct{})
	close(ready)
	w, err := openWatch(ctx, v.Dir(), &liveSink{v: v, logger: logger, ready: ready}, opts)
	if err != nil {
		return nil, err
	}
	return func() { w.Close() }, nil
}

// openWatch starts the watcher of a vault folder for sink.
func openWatch(ctx context.Context, dir string, sink *liveSink, opts watcher.Options) (*watcher.Watcher, error) {
	opts.Filter, opts.Logger = vault.IsMemoryPath, sink.logger
	if opts.Busy == nil {
		opts.Busy = gitrepo.Busy(dir)
	}
	w, err := watcher.Open(ctx, dir, sink, opts)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	sink.logger.Info("following changes on disk", "vault", dir, "mode", w.Mode())
	return w, nil
}

// liveSink applies the watcher's batches to a vault and logs them. The
// batches wait for ready: until then the vault is loading.
type liveSink struct {
	v      *vault.Vault
	logger *slog.Logger
	ready  chan struct{}
}

var _ watcher.Sink = (*liveSink)(nil)

// wait waits for the vault to be loaded.
func (s *liveSink) wait(ctx context.Context) error {
	select {
	case <-s.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Refresh syncs the changed files and logs the batch when it changed
// something, with the problems found in those files.
func (s *liveSink) Refresh(ctx context.Context, rels []string) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	start := time.Now()
	ids, err := s.v.SyncFiles(ctx, rels)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		// Our own writes, or saves that changed nothing.
		return nil
	}
	s.logger.Info("applied file changes", "vault", s.v.Dir(), "files", len(rels), "memories", len(ids),
		"duration", time.Since(start).Round(time.Microsecond))
	s.logDiagnostics(func(path string) bool { return slices.Contains(rels, path) })
	return nil
}

// Reload reloads the whole vault and logs it, with every error-level
// problem.
func (s *liveSink) Reload(ctx context.Context) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	start := time.Now()
	if err := s.v.SyncAll(ctx); err != nil {
		return err
	}
	st := s.v.Stats()
	s.logger.Info("reloaded the vault after many file changes", "vault", s.v.Dir(), "memories", st.Total,
		"errors", st.Errors, "warnings", st.Warnings, "duration", time.Since(start).Round(time.Microsecond))
	// After a reload only secrets and broken files are worth a line each;
	// lint lists the rest.
	s.logDiagnostics(nil)
	return nil
}

// logDiagnostics logs the problems of the files in (nil: error-level
// problems of every file): one warning per secret finding, which names
// rule and place but never the value, and one per other problem.
func (s *liveSink) logDiagnostics(in func(path string) bool) {
	var stale map[string]bool // paths served from their last good version; built on first need
	for _, d := range s.v.DiagnosticsOf(in) {
		if in == nil && d.Severity != parser.SeverityError {
			continue
		}
		if errors.Is(d.Err, vault.ErrSecret) {
			s.logger.Warn("possible secret in a memory file", "vault", s.v.Dir(), "file", d.Path, "line", d.Line, "problem", d.Err)
			continue
		}
		msg := "memory file has a problem"
		if stale == nil {
			stale = map[string]bool{}
			for _, m := range s.v.All() {
				if m.Stale {
					stale[m.Path] = true
				}
			}
		}
		if stale[d.Path] {
			msg = "memory file no longer parses; serving its last good version"
		}
		s.logger.Warn(msg, "vault", s.v.Dir(), "file", d.Path, "line", d.Line, "severity", d.Severity, "problem", d.Err)
	}
}
