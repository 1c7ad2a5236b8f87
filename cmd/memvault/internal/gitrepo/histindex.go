package gitrepo

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"

	"github.com/memvault/memvault/cmd/memvault/internal/histindex"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/history"
)

// historyIndex returns the vault's history index brought up to HEAD, for
// Log: with it a memory's history reads only the commits that touched
// its file or name it, not the whole log. The index is saved in the git
// folder when it changed, so the next process starts from it. A walk
// that opts says is short (a limit, no trailer to find: the timeline's
// pages) does not build a missing index, it uses one that is there. It
// returns nil (Log walks without it) when there is no HEAD or the index
// cannot be brought up to date: it is only a cache.
func (g *Repo) historyIndex(ctx context.Context, opts history.LogOptions) gitstore.HistoryIndex {
	if g.noHist {
		return nil
	}
	g.histOnce.Do(func() {
		g.hist = histindex.New(g.prefix, commitmsg.KeyID)
		_ = g.hist.Load(g.historyIndexPath()) // none or damaged: built afresh
	})
	if opts.Limit > 0 && opts.Follow == "" && g.hist.Snapshot().Len() == 0 {
		return nil
	}
	head, err := g.store.Resolve(ctx, "")
	if err != nil {
		return nil
	}
	changed, err := g.hist.Update(ctx, g.store, head)
	if err != nil {
		return nil
	}
	snap := g.hist.Snapshot()
	if changed {
		_ = snap.Save(g.historyIndexPath()) // not saved: the next process walks more
	}
	return snap
}

// historyIndexPath is where the vault's history index is saved: in the
// git folder, one file per vault folder of the repository.
func (g *Repo) historyIndexPath() string {
	sum := sha256.Sum256([]byte(g.prefix))
	return filepath.Join(g.store.CommonDir(), "memvault", fmt.Sprintf("history-%x.idx", sum[:6]))
}
