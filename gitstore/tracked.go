package gitstore

import (
	"context"
	"path/filepath"
)

// Tracked reports which of paths (absolute, or relative to the work
// tree's root) git tracks: the index has an entry for them, at any stage.
// Paths outside the work tree are not tracked. The result is keyed by the
// paths as given.
func (s *Store) Tracked(ctx context.Context, paths []string) (map[string]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	ix, err := s.loadIndex(filepath.Join(s.gitDir, "index"))
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(paths))
	for _, p := range paths {
		rel, err := s.rel(p)
		if err != nil || rel == "" {
			continue
		}
		if _, ok := ix.find(rel); ok {
			out[p] = true
		}
	}
	return out, nil
}
