package watcher

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Sink applies batches of changes to an index. Each call must make its
// whole batch visible at once.
type Sink interface {
	// Refresh re-reads the given vault-relative files, with slashes; a
	// missing file was deleted.
	Refresh(ctx context.Context, rels []string) error
	// Reload re-reads the whole folder.
	Reload(ctx context.Context) error
}

// Defaults for the zero values of Options.
const (
	DefaultDebounce        = 50 * time.Millisecond
	DefaultMaxWait         = 10 * time.Second
	DefaultReloadThreshold = 2000
	DefaultPollInterval    = 2 * time.Second
)

// Options configures a Watcher. The zero value is usable.
type Options struct {
	// Debounce is how long the folder must stay quiet before a batch is
	// applied; 0 means DefaultDebounce.
	Debounce time.Duration
	// MaxWait bounds how long a batch may be held back by a burst that
	// does not settle or by Busy; 0 means DefaultMaxWait.
	MaxWait time.Duration
	// ReloadThreshold is the number of changed files above which a batch
	// is applied as one full Reload; 0 means DefaultReloadThreshold.
	ReloadThreshold int
	// Busy, when set, is asked before a settled batch is applied; while
	// it returns true (git holds its index.lock during a checkout) the
	// batch waits, up to MaxWait.
	Busy func() bool
	// Filter says which vault-relative paths are worth reporting; nil
	// means Markdown files outside dot-folders. Dot-files and dot-folders
	// are always ignored.
	Filter func(rel string) bool
	// Since, when set, makes the first batch hold the files modified at
	// or after it: changes made while the consumer was still building the
	// index it now keeps current. Zero reports nothing until an event.
	Since time.Time
	// Poll forces the rescanning fallback even where fsnotify works.
	Poll bool
	// PollInterval is the rescanning period of the fallback; 0 means
	// DefaultPollInterval.
	PollInterval time.Duration
	// OnBatch, when set, is called after each batch is applied, one call
	// at a time.
	OnBatch func(Batch)
	// Logger receives warnings (fallback to rescanning, sink errors); nil
	// discards them.
	Logger *slog.Logger
}

// Batch reports one applied batch.
type Batch struct {
	// Paths are the changed vault-relative files, sorted. With Full they
	// are what was seen before the burst was turned into a reload, and
	// may be empty.
	Paths []string
	// Full is set when the batch was applied as a full Reload.
	Full bool
	// Duration is how long the Sink took.
	Duration time.Duration
	// Err is the Sink's error, if any.
	Err error
}

// errRemote marks a vault on a network or FUSE file system.
var errRemote = errors.New("remote file system")

// Mode says how a Watcher learns about changes.
type Mode string

// The modes of a Watcher.
const (
	ModeNotify Mode = "notify" // fsnotify events
	ModePoll   Mode = "poll"   // periodic rescanning
)

// Watcher follows one folder. Open starts it, Close stops it.
type Watcher struct {
	dir  string
	sink Sink
	opts Options
	log  *slog.Logger
	mode atomic.Value // Mode

	// Owned by the run goroutine after Open returns.
	fsw    *fsnotify.Watcher
	events <-chan fsnotify.Event
	errs   <-chan error
	dirs   map[string]bool // watched folders, vault-relative ("." is the root)
	pend   pending
	snap   map[string]fileStat // the last rescan, when polling
	poll   *time.Ticker
	// rootGone is set while the watched folder itself is missing (a
	// checkout of a branch without it): poll ticks look for its return.
	rootGone bool
	barrier  barrier // with fsnotify, a flush waits for it (barrier.go)

	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// Open starts watching dir and feeding sink. It falls back to
// rescanning, with a warning, when fsnotify cannot watch. A dir that does
// not exist yet is not created (a vault folder is made by its first
// write): the watcher looks for it until it appears, then reads every file
// in it. The watcher stops when ctx is done or Close is called.
func Open(ctx context.Context, dir string, sink Sink, opts Options) (*Watcher, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	w := newWatcher(abs, sink, opts)
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		w.awaitRoot("the vault folder does not exist yet; watching for it")
	case err != nil:
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	case !fi.IsDir():
		return nil, fmt.Errorf("watch %s: not a folder", dir)
	default:
		if name, remote := remoteFS(abs); opts.Poll || remote {
			why := errors.New("rescanning was asked for")
			if !opts.Poll {
				why = fmt.Errorf("%w: the vault is on %s, which does not report every change", errRemote, name)
			}
			w.startPolling(why)
		} else if err := w.startNotify(time.Time{}); err != nil {
			w.startPolling(err)
		}
	}
	ctx, w.cancel = context.WithCancel(ctx)
	go w.run(ctx)
	return w, nil
}

// newWatcher fills in the defaults; the caller picks the event source.
func newWatcher(abs string, sink Sink, opts Options) *Watcher {
	opts.Debounce = cmp.Or(opts.Debounce, DefaultDebounce)
	opts.MaxWait = cmp.Or(opts.MaxWait, DefaultMaxWait)
	opts.ReloadThreshold = cmp.Or(opts.ReloadThreshold, DefaultReloadThreshold)
	opts.PollInterval = cmp.Or(opts.PollInterval, DefaultPollInterval)
	if opts.Filter == nil {
		opts.Filter = isMarkdown
	}
	w := &Watcher{
		dir:  abs,
		sink: sink,
		opts: opts,
		log:  opts.Logger,
		dirs: map[string]bool{},
		done: make(chan struct{}),
	}
	if w.log == nil {
		w.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return w
}

// Mode reports how the watcher currently learns about changes; it turns
// from ModeNotify to ModePoll if watching fails later.
func (w *Watcher) Mode() Mode { return w.mode.Load().(Mode) }

// Close stops the watcher and waits for a batch in progress to finish.
func (w *Watcher) Close() error {
	w.once.Do(func() {
		w.cancel()
		<-w.done
	})
	return nil
}

// startNotify sets up fsnotify on the whole tree. With now set, every
// file found is pending (a folder never seen); else those modified since
// Options.Since are.
func (w *Watcher) startNotify(now time.Time) error {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	w.fsw, w.events, w.errs = fsw, fsw.Events, fsw.Errors
	w.barrier.watch(fsw)
	if err := w.addTree(".", now, w.opts.Since); err != nil {
		w.stopNotify()
		return err
	}
	w.mode.Store(ModeNotify)
	return nil
}

func (w *Watcher) stopNotify() {
	if w.fsw != nil {
		w.fsw.Close()
	}
	w.fsw, w.events, w.errs = nil, nil, nil
	clear(w.dirs)
}

// startPolling switches to rescanning because of why, and warns.
func (w *Watcher) startPolling(why error) {
	w.stopNotify()
	w.snap = w.rescan()
	if since := w.opts.Since; !since.IsZero() {
		for r, st := range w.snap {
			if !st.mod.Before(since) {
				w.pend.add(r, time.Now())
			}
		}
	}
	w.poll = time.NewTicker(w.opts.PollInterval)
	w.mode.Store(ModePoll)
	w.log.Warn("cannot watch the vault for changes; rescanning it periodically instead",
		"vault", w.dir, "every", w.opts.PollInterval, "reason", why, "fix", fallbackHint(why))
}

// fallbackHint says how to make watching work again.
func fallbackHint(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "the inotify watch limit is reached; raise it with `sudo sysctl fs.inotify.max_user_watches=524288` " +
			"(add fs.inotify.max_user_watches=524288 to /etc/sysctl.d/90-inotify.conf to keep it)"
	case errors.Is(err, errRemote):
		return "nothing to fix: changes show within the rescanning period"
	case errors.Is(err, syscall.EMFILE):
		return "the inotify instance limit is reached; raise it with `sudo sysctl fs.inotify.max_user_instances=1024` " +
			"(add it to /etc/sysctl.d/90-inotify.conf to keep it)"
	default:
		return "the file system may not send change notifications (network or FUSE mounts); " +
			"on Linux check `sysctl fs.inotify.max_user_watches` and raise it with `sudo sysctl fs.inotify.max_user_watches=524288`"
	}
}

// addTree watches the folder rel and every folder below it. It records
// the files found there as changed when now is set (a folder that appeared
// after the start: its files were never seen), else those modified at or
// after since, when set.
func (w *Watcher) addTree(rel string, now, since time.Time) error {
	root := filepath.Join(w.dir, filepath.FromSlash(rel))
	if now.IsZero() && since.IsZero() {
		// Only folders are watched: list each folder unsorted and pass
		// over its files without a call per file (WalkDir sorts and
		// joins every name of a 100k-file vault).
		fi, err := os.Lstat(root)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		case !fi.IsDir():
			return nil
		}
		return w.addFolders(root, w.rel(root), true)
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p != root {
				return nil // removed while we walked; its event follows
			}
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if !d.IsDir() && now.IsZero() && since.IsZero() {
			return nil // only folders are watched: a large vault's files cost nothing more
		}
		r := w.rel(p)
		if d.IsDir() {
			if r != "." && hasDotPart(r) {
				return fs.SkipDir
			}
			if err := w.fsw.Add(p); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return fs.SkipDir
				}
				return fmt.Errorf("watch %s: %w", p, err)
			}
			w.dirs[r] = true
			return nil
		}
		switch {
		case !w.wanted(r):
		case !now.IsZero():
			w.pend.add(r, now)
		case !since.IsZero():
			if fi, err := d.Info(); err == nil && !fi.ModTime().Before(since) {
				w.pend.add(r, time.Now())
			}
		}
		return nil
	})
}

// addFolders watches the folder p (slash path r) and the folders below
// it, as addTree's walk does when it records no file: dot-folders are
// skipped, as are folders that vanish meanwhile (their events follow).
func (w *Watcher) addFolders(p, r string, root bool) error {
	if r != "." && hasDotPart(r) {
		return nil
	}
	if err := w.fsw.Add(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("watch %s: %w", p, err)
	}
	w.dirs[r] = true
	// A vault's folders hold thousands of files and rarely a folder:
	// where the link count says there is none, the listing is skipped.
	// Watched already, the folder reports one made from now on.
	if noSubfolders(p) {
		return nil
	}
	f, err := os.Open(p)
	var ents []fs.DirEntry
	if err == nil {
		ents, err = f.ReadDir(-1)
		f.Close()
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !root {
			return nil
		}
		return err
	}
	for _, d := range ents {
		if !d.IsDir() {
			continue
		}
		child := d.Name()
		if r != "." {
			child = r + "/" + child
		}
		if err := w.addFolders(filepath.Join(p, d.Name()), child, false); err != nil {
			return err
		}
	}
	return nil
}

// rel turns an absolute path below the folder into a slash path.
func (w *Watcher) rel(p string) string {
	r, err := filepath.Rel(w.dir, p)
	if err != nil {
		return "."
	}
	return filepath.ToSlash(r)
}

// wanted says whether a vault-relative file path is reported.
func (w *Watcher) wanted(rel string) bool {
	return rel != "." && !strings.HasPrefix(rel, "../") && !hasDotPart(rel) && w.opts.Filter(rel)
}

// isMarkdown is the default Filter.
func isMarkdown(rel string) bool { return strings.HasSuffix(strings.ToLower(rel), ".md") }

// hasDotPart reports whether a slash path has a component starting with a
// dot: .git, editor swap files (.x.md.swp), our own temp files.
func hasDotPart(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if strings.HasPrefix(part, ".") {
			return true
		}
	}
	return false
}

// run is the one goroutine that owns the pending set and the timer.
func (w *Watcher) run(ctx context.Context) {
	defer close(w.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	armed := false
	arm := func(at time.Time) {
		if at.IsZero() {
			return
		}
		timer.Reset(max(time.Until(at), 0))
		armed = true
	}
	flushDone := make(chan struct{})
	flushing := false
	// decide flushes the pending set when it has settled, else re-arms.
	decide := func() {
		if flushing {
			return // flushDone looks again
		}
		now := time.Now()
		busy := false
		if w.opts.Busy != nil && !w.pend.empty() && !now.Before(w.pend.last.Add(w.opts.Debounce)) {
			busy = w.opts.Busy()
		}
		d := w.pend.decide(now, w.opts.Debounce, w.opts.MaxWait, busy)
		if !d.flush {
			arm(d.wait)
			return
		}
		if w.fsw != nil && w.barrier.dir != "" && !w.barrier.passed(w.pend.last) {
			switch {
			case w.barrier.waiting() && now.Before(w.barrier.sentAt.Add(barrierWait)):
				arm(w.barrier.sentAt.Add(barrierWait))
				return
			case w.barrier.waiting():
				// Not back in time: go ahead without it.
				w.barrier.giveUp()
			case w.barrier.send(now) == nil:
				arm(now.Add(barrierWait))
				return
			}
		}
		if w.poll != nil && !w.rootGone && w.pollChanged(now) {
			// The rescan found more: the folder is still changing.
			arm(w.pend.decide(now, w.opts.Debounce, w.opts.MaxWait, false).wait)
			return
		}
		paths, full := w.pend.take()
		flushing = true
		go func() {
			w.apply(ctx, paths, full)
			flushDone <- struct{}{}
		}()
	}
	defer func() {
		timer.Stop()
		if flushing {
			<-flushDone
		}
		if w.poll != nil {
			w.poll.Stop()
		}
		w.stopNotify()
		w.barrier.close()
	}()
	decide() // Options.Since may have left files pending
	for {
		var pollC <-chan time.Time
		if w.poll != nil {
			pollC = w.poll.C
		}
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.events:
			if !ok {
				w.events = nil
				continue
			}
			if w.barrier.handle(ev) {
				if w.barrier.passed(w.pend.last) {
					decide()
				}
				continue
			}
			w.handle(ev, time.Now())
			if !armed {
				decide()
			}
		case err, ok := <-w.errs:
			if !ok {
				w.errs = nil
				continue
			}
			w.handleError(err, time.Now())
			if !armed {
				decide()
			}
		case <-pollC:
			if w.rootGone {
				w.checkRoot(time.Now())
				if !armed {
					decide()
				}
				continue
			}
			if w.pollChanged(time.Now()) && !armed {
				decide()
			}
		case <-timer.C:
			armed = false
			decide()
		case <-flushDone:
			flushing = false
			if !armed {
				decide()
			}
		}
	}
}

// handle turns one fsnotify event into pending changes.
func (w *Watcher) handle(ev fsnotify.Event, now time.Time) {
	rel := w.rel(ev.Name)
	if rel == "." {
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			// Every watch went with the folder: wait for it to come back
			// (a checkout of a branch that has it) and watch it afresh.
			w.stopNotify()
			w.awaitRoot("the vault folder was removed or renamed; watching for its return")
			w.pend.addFull(now)
		}
		return
	}
	if strings.HasPrefix(rel, "../") || hasDotPart(rel) {
		return
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if w.dirs[rel] {
			// A folder went away with files we never listed: reload.
			w.dropTree(rel)
			w.pend.addFull(now)
			return
		}
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			if err := w.addTree(rel, now, time.Time{}); err != nil {
				w.startPolling(err)
				w.pend.addFull(now)
			}
			return
		}
	}
	if w.wanted(rel) {
		w.pend.add(rel, now)
	}
}

// rootPoll is how often a missing vault folder is looked for.
const rootPoll = 100 * time.Millisecond

// awaitRoot looks for the missing folder every rootPoll, saying why.
func (w *Watcher) awaitRoot(why string) {
	w.log.Info(why, "vault", w.dir)
	w.rootGone = true
	w.poll = time.NewTicker(min(w.opts.PollInterval, rootPoll))
	w.mode.Store(ModePoll)
}

// checkRoot watches the folder once it is there. Its files were never
// seen (the ones it had before it went were dropped then): every one of
// them is read, as those of a new subfolder are, so the files of the
// write that created it read back unchanged and announce nothing.
func (w *Watcher) checkRoot(now time.Time) {
	if fi, err := os.Stat(w.dir); err != nil || !fi.IsDir() {
		return
	}
	w.rootGone = false
	w.poll.Stop()
	w.poll = nil
	if err := w.startNotify(now); err != nil {
		w.startPolling(err)
		w.pend.addFull(now)
	}
	w.log.Info("the vault folder is there; watching it", "vault", w.dir, "mode", w.Mode())
}

// dropTree forgets the watches of folder rel and below; the kernel has
// dropped or will drop them, and a renamed folder's watches would report
// the old path.
func (w *Watcher) dropTree(rel string) {
	for d := range w.dirs {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			delete(w.dirs, d)
			_ = w.fsw.Remove(filepath.Join(w.dir, filepath.FromSlash(d)))
		}
	}
}

// handleError reacts to an fsnotify error: a lost event means anything
// may have changed.
func (w *Watcher) handleError(err error, now time.Time) {
	switch {
	case errors.Is(err, fsnotify.ErrEventOverflow):
		w.log.Warn("too many file events at once; reloading the whole vault", "vault", w.dir,
			"hint", "raise fs.inotify.max_queued_events if this happens often")
		w.pend.addFull(now)
	case errors.Is(err, syscall.ENOSPC):
		w.startPolling(err)
		w.pend.addFull(now)
	default:
		w.log.Warn("file watching error", "vault", w.dir, "err", err)
	}
}

// apply hands one batch to the sink.
func (w *Watcher) apply(ctx context.Context, paths []string, full bool) {
	full = full || len(paths) > w.opts.ReloadThreshold
	start := time.Now()
	var err error
	if full {
		err = w.sink.Reload(ctx)
	} else {
		err = w.sink.Refresh(ctx, paths)
	}
	b := Batch{Paths: paths, Full: full, Duration: time.Since(start), Err: err}
	if err != nil && ctx.Err() == nil {
		w.log.Warn("could not apply file changes to the index", "vault", w.dir, "files", len(paths), "full", full, "err", err)
	}
	if w.opts.OnBatch != nil {
		w.opts.OnBatch(b)
	}
}
