package mcpserver

import (
	"log/slog"
	"os"
	"sync"
	"time"
)

// tokenSet gives the tokens a request is checked against.
type tokenSet interface {
	current() tokens
}

// current makes a fixed set of tokens a tokenSet.
func (t tokens) current() tokens { return t }

// tokenFile is a team server's tokens: the shared token and the people
// of the tokens file, read again whenever the file changed (its size,
// modification time or inode: an edit in place or a new file renamed
// over it), so that a token removed from the file stops working at the
// next request, without a restart. A file that no longer loads (see
// LoadTokens) is logged and leaves the shared token alone accepted: a
// mistake in the file must not keep a removed token working.
type tokenFile struct {
	path, shared string
	logger       *slog.Logger

	mu   sync.Mutex
	seen os.FileInfo // the file as last read; nil before
	set  tokens
}

func newTokenFile(path, shared string, callers []Caller, logger *slog.Logger) *tokenFile {
	f := &tokenFile{path: path, shared: shared, logger: logger, set: newTokens(shared, callers)}
	f.seen, _ = os.Stat(path)
	return f
}

func (f *tokenFile) current() tokens {
	fi, err := os.Stat(f.path)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil && f.seen != nil && os.SameFile(fi, f.seen) && fi.Size() == f.seen.Size() && fi.ModTime().Equal(f.seen.ModTime()) && changeTime(fi).Equal(changeTime(f.seen)) {
		return f.set
	}
	if err != nil && f.seen == nil {
		return f.set // still missing: already reported
	}
	callers, lerr := LoadTokens(f.path)
	if lerr != nil {
		f.logger.Error("tokens file no longer loads: only the shared token is accepted until it is fixed", "err", lerr)
		callers = nil
	} else {
		f.logger.Info("tokens file read again", "people", len(callers))
	}
	f.seen = fi // nil when missing
	f.set = newTokens(f.shared, callers)
	return f.set
}

// changeTime is fi's status change time where the system has one, else
// its modification time.
func changeTime(fi os.FileInfo) time.Time {
	if t, ok := statChangeTime(fi); ok {
		return t
	}
	return fi.ModTime()
}
