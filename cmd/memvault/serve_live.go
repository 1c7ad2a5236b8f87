package main

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

// startLive keeps v in step with its folder while the server runs: hand
// edits, git checkouts and pulls, and other memvault processes writing the
// same vault. Each batch is logged with its size and duration, and the
// problems found in the changed files (broken front matter, secrets) are
// logged as warnings. stop ends the watching.
func startLive(ctx context.Context, v *vault.Vault, logger *slog.Logger) (stop func(), err error) {
	// Files changed while the vault was loading have no event left to
	// tell: look again at those modified shortly before now. Re-reading
	// an unchanged one costs a read.
	return startLiveWith(ctx, v, logger, watcher.Options{Since: time.Now().Add(-liveCatchUp)})
}

// liveCatchUp is how far back startLive looks for files changed during
// the load; a 10,000-memory vault loads in about a second.
const liveCatchUp = 3 * time.Second

// startLiveWith is startLive with watcher options, for tests and
// benchmarks.
func startLiveWith(ctx context.Context, v *vault.Vault, logger *slog.Logger, opts watcher.Options) (stop func(), err error) {
	opts.Filter = vault.IsMemoryPath
	opts.Logger = logger
	if opts.Busy == nil {
		opts.Busy = gitrepo.Busy(v.Dir())
	}
	w, err := watcher.Open(ctx, v.Dir(), liveSink{v: v, logger: logger}, opts)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", v.Dir(), err)
	}
	logger.Info("following changes on disk", "vault", v.Dir(), "mode", w.Mode())
	return func() { w.Close() }, nil
}

// liveSink applies the watcher's batches to a vault and logs them.
type liveSink struct {
	v      *vault.Vault
	logger *slog.Logger
}

var _ watcher.Sink = liveSink{}

// Refresh syncs the changed files and logs the batch when it changed
// something, with the problems found in those files.
func (s liveSink) Refresh(ctx context.Context, rels []string) error {
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
func (s liveSink) Reload(ctx context.Context) error {
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
func (s liveSink) logDiagnostics(in func(path string) bool) {
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
