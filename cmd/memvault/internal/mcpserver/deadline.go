package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultRecallTimeout bounds one recall (the tool and the prompt). A
// recall of a query within vault.MaxQueryBytes takes milliseconds; the
// deadline is the backstop that keeps a slow one (a huge vault, a loaded
// machine) from holding the vault's read lock, and so the writes waiting
// on it, for longer.
const DefaultRecallTimeout = 5 * time.Second

// recallContext gives a recall its deadline: Config.RecallTimeout from
// now, or none when it is negative. The client's cancel
// (notifications/cancelled) and the server's shutdown reach the recall
// through ctx already.
func (s *Server) recallContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.recallTimeout < 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, s.recallTimeout)
}

// stalenessContext bounds the staleness part of a recall (the last one)
// so that the answer still goes out within the recall's deadline: it ends
// a tenth of the recall's limit before ctx does. A memory whose staleness
// is not known by then is served with staleness unknown.
func (s *Server) stalenessContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d, ok := ctx.Deadline()
	if !ok || s.recallTimeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, d.Add(-s.recallTimeout/10))
}

// recallError says why a recall stopped when its deadline ended it, so
// that the model narrows the query rather than retrying it.
func (s *Server) recallError(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("recall stopped after %s, the server's limit for one recall: narrow the query: %w", s.recallTimeout, err)
	}
	return err
}
