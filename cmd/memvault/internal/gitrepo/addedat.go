package gitrepo

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

var _ vault.AddedAtReader = HeadFiles{}

// AddedAt implements vault.AddedAtReader: the author time of the oldest
// commit in the file's history (following renames), zero when it has
// none.
func (h HeadFiles) AddedAt(ctx context.Context, rel string) (time.Time, error) {
	s := h.Store
	if s == nil {
		var err error
		if s, err = OpenStore(ctx, h.Dir); err != nil {
			return time.Time{}, err
		}
		defer s.Close()
	}
	cs, err := s.History(ctx, filepath.Join(h.Dir, filepath.FromSlash(rel)), gitstore.HistoryOptions{})
	if errors.Is(err, gitstore.ErrNotFound) || err == nil && len(cs) == 0 {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	return cs[len(cs)-1].When, nil
}
