// Package precommit holds the rules git's pre-commit hook applies to the
// memory files a commit would record: no secret and no conflict marker.
// It reads the staged files through the Staged interface it declares;
// cmd/memvault/internal/hook implements it with gitstore.
package precommit

import (
	"context"
	"strings"

	"github.com/memvault/memvault/vault/merge"
	"github.com/memvault/memvault/vault/secret"
)

// Staged is what a commit is about to record under a vault, as a
// pre-commit hook sees it; cmd/memvault implements it with gitstore.
type Staged interface {
	// WalkStaged calls fn with the path and staged content (not the work
	// tree's) of each file the commit would add or change under the
	// vault; files staged as HEAD has them are left out, so a secret
	// already committed does not block an unrelated commit.
	WalkStaged(ctx context.Context, fn func(path string, data []byte) error) error
}

// StagedSecret is a secret in a file staged for commit: its place and
// rule, never the secret.
type StagedSecret struct {
	// Path is as Staged names the file.
	Path string
	secret.Finding
}

// StagedSecrets is the pre-commit rule: it scans the Markdown files a
// commit would add or change under the vault for secrets, and a commit that
// would record any is to be refused. Findings come in walk order.
func StagedSecrets(ctx context.Context, staged Staged) ([]StagedSecret, error) {
	var out []StagedSecret
	err := staged.WalkStaged(ctx, func(path string, data []byte) error {
		if !strings.HasSuffix(path, ".md") {
			return nil
		}
		for _, f := range secret.Scan(data) {
			out = append(out, StagedSecret{Path: path, Finding: f})
		}
		return nil
	})
	return out, err
}

// StagedMarker is a staged memory file holding git conflict markers.
type StagedMarker struct {
	// Path is as Staged names the file; Line is the first marker's.
	Path string
	Line int
}

// StagedConflictMarkers is the pre-commit rule against committing half a
// merge: it lists the Markdown files a commit would record under the vault
// that hold git conflict markers, in walk order; a commit that would
// record any is to be refused.
func StagedConflictMarkers(ctx context.Context, staged Staged) ([]StagedMarker, error) {
	var out []StagedMarker
	err := staged.WalkStaged(ctx, func(path string, data []byte) error {
		if line := merge.MarkerLine(data); line > 0 && strings.HasSuffix(path, ".md") {
			out = append(out, StagedMarker{Path: path, Line: line})
		}
		return nil
	})
	return out, err
}
