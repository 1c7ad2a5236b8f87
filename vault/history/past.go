package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/memvault/memvault/vault"
)

// Snapshot is the vault as recorded at a commit, with what was read, so
// the caller can say so.
type Snapshot struct {
	// Vault is read-only and built from git objects only: the work tree
	// is never looked at. It is nil when Unborn.
	Vault *vault.Vault
	// Commit is the commit read, and Time its commit time; Commit is ""
	// when nothing was recorded at or before At (Vault is then empty).
	Commit string
	Time   time.Time
	// At is the instant AsOf was asked for; zero for At.
	At time.Time
	// Unborn is set when the repository has no commit yet: there is no
	// past to read, and valid time over the work tree is the best answer
	// (the caller reads it).
	Unborn bool
}

// At reads the vault as recorded at revision rev. A revision the
// repository does not have is a *RevisionError.
func (r *Reader) At(ctx context.Context, rev string) (*Snapshot, error) {
	c, err := r.resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	return r.snapshot(ctx, c)
}

// AsOf reads the vault as recorded at instant t: at the newest commit on
// HEAD's first-parent line committed at or before t, so the answer is what
// was believed then. Before the first such commit the vault is empty;
// without any commit the Snapshot is Unborn.
func (r *Reader) AsOf(ctx context.Context, t time.Time) (*Snapshot, error) {
	if _, err := r.repo.Resolve(ctx, "HEAD"); errors.Is(err, ErrNotFound) {
		return &Snapshot{At: t, Unborn: true}, nil
	} else if err != nil {
		return nil, err
	}
	rev, err := r.repo.ResolveTime(ctx, t)
	if errors.Is(err, ErrNotFound) {
		v, err := vault.OpenSnapshot(ctx, r.dir+"@empty", nil, vault.Options{Now: r.now})
		if err != nil {
			return nil, err
		}
		return &Snapshot{Vault: v, At: t}, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := r.repo.Resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	s, err := r.snapshot(ctx, c)
	if err != nil {
		return nil, err
	}
	s.At = t
	return s, nil
}

// snapshot reads the vault at commit c. Files without dates take its
// commit time.
func (r *Reader) snapshot(ctx context.Context, c Commit) (*Snapshot, error) {
	var files []vault.File
	err := r.repo.Walk(ctx, c.Hash, func(p string, data []byte) error {
		if vault.IsMemoryPath(p) {
			files = append(files, vault.File{Rel: p, Data: data, ModTime: c.CommitTime})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the vault at %s: %w", ShortHash(c.Hash), err)
	}
	v, err := vault.OpenSnapshot(ctx, r.dir+"@"+ShortHash(c.Hash), files, vault.Options{Now: r.now})
	if err != nil {
		return nil, err
	}
	return &Snapshot{Vault: v, Commit: c.Hash, Time: c.CommitTime}, nil
}

// MemoryAt reads memory id as recorded at revision rev and returns it with
// the commit id rev names. cur is the memory as the vault has it now (nil
// when deleted): the memory is looked for at cur's path, at the same file
// name in another layer folder (the slug never changes), at the path a
// hand-written file's id names, and failing those, in every file of the
// vault at rev. A revision the repository does not have is a
// *RevisionError; a memory it does not have wraps vault.ErrNotFound.
func (r *Reader) MemoryAt(ctx context.Context, id, rev string, cur *vault.Memory) (*vault.Memory, string, error) {
	c, err := r.resolve(ctx, rev)
	if err != nil {
		return nil, "", err
	}
	var tries []string
	if cur != nil {
		tries = append(tries, cur.Path)
		base := path.Base(cur.Path)
		for _, l := range vault.AllLayers() {
			tries = append(tries, l.Dir()+"/"+base)
		}
	}
	if vault.IsMemoryPath(id + ".md") {
		tries = append(tries, id+".md")
	}
	for _, rel := range tries {
		mem, _, err := r.ReadMemory(ctx, c.Hash, rel)
		if err != nil {
			return nil, "", err
		}
		if mem != nil && mem.ID == id {
			return mem, c.Hash, nil
		}
	}
	var found *vault.Memory
	errFound := errors.New("found")
	err = r.repo.Walk(ctx, c.Hash, func(p string, data []byte) error {
		// Cheap filter first: the id is in the file, or is its path.
		if !vault.IsMemoryPath(p) || (!bytes.Contains(data, []byte(id)) && vault.DerivedID(p) != id) {
			return nil
		}
		if mem, _ := vault.ParseMemory(p, data, time.Time{}); mem != nil && mem.ID == id {
			found = mem
			return errFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return nil, "", err
	}
	if found == nil {
		return nil, "", fmt.Errorf("%w: %s is not in the vault at %s", vault.ErrNotFound, vault.ShortID(id), ShortHash(c.Hash))
	}
	return found, c.Hash, nil
}
