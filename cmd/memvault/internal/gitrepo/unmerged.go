package gitrepo

import (
	"context"
	"fmt"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/doctor"
)

// unmerged fills st's unmerged files, the vault's memory files apart:
// what doctor names during an operation stopped on a conflict.
func (g *Repo) unmerged(ctx context.Context, st *doctor.RepoState) error {
	us, err := g.store.UnmergedFiles(ctx, "")
	if err != nil {
		return fmt.Errorf("unmerged files: %w", err)
	}
	for _, u := range us {
		if rel, ok := g.vaultRel(u.Path); ok && vault.IsMemoryPath(rel) {
			st.UnmergedMemories = append(st.UnmergedMemories, rel)
		} else {
			st.UnmergedOther = append(st.UnmergedOther, u.Path)
		}
	}
	return nil
}
