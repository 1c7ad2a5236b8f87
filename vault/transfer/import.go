package transfer

import (
	"context"
	"errors"
	"strings"

	"github.com/memvault/memvault/vault"
)

// Importer writes a batch of memories as one commit and reads the
// memories already there. *vault.Vault satisfies it.
type Importer interface {
	CreateBatch(ctx context.Context, b vault.Batch, by vault.Author) (vault.BatchResult, error)
	Get(id string) (*vault.Memory, error)
}

// ImportOptions tunes Import.
type ImportOptions struct {
	DryRun bool
	// Progress, when set, is called as memories are prepared.
	Progress func(done, total int)
}

// Imported is one memory an import wrote (or would write, in a dry run).
type Imported struct {
	Pos    string
	Memory *vault.Memory
	Notes  []string // see Item.Notes
}

// Report is the outcome of an import.
type Report struct {
	Imported []Imported
	// Skipped joins the problems found reading the source and the items
	// the vault refused (already there, invalid), in source order of
	// discovery.
	Skipped []Problem
	Commit  string
	DryRun  bool
}

// Refused counts the skipped items that are not Deliberate: what the
// source held that did not reach the vault and needs a look.
func (r Report) Refused() int {
	n := 0
	for _, p := range r.Skipped {
		if !p.Deliberate {
			n++
		}
	}
	return n
}

// Import writes the memories of s into v as one commit (none in a dry
// run) and reports, item by item, what was imported and what was skipped.
func Import(ctx context.Context, v Importer, s *Source, by vault.Author, opts ImportOptions) (Report, error) {
	rep := Report{DryRun: opts.DryRun, Skipped: append([]Problem(nil), s.Problems...)}
	items := make([]vault.BatchItem, len(s.Items))
	for i, it := range s.Items {
		items[i] = it.Batch
	}
	res, err := v.CreateBatch(ctx, vault.Batch{Items: items, Source: s.Name, DryRun: opts.DryRun, Progress: opts.Progress}, by)
	for _, sk := range res.Skipped {
		reason, deliberate := sk.Err.Error(), false
		if errors.Is(sk.Err, vault.ErrDuplicateID) {
			reason = strings.TrimPrefix(reason, vault.ErrDuplicateID.Error()+": ")
			// Say whether the source changed since the last import: an
			// import never overwrites, so a changed memory needs an update.
			n := s.Items[sk.Index].Batch.Memory
			if cur, err := v.Get(n.ID); err == nil {
				if sameText(cur.Body, n.Content) {
					reason = "already imported (id " + n.ID + ", unchanged)"
					deliberate = true
				} else {
					reason = "id " + n.ID + " already exists with different content; not overwritten (see memvault update)"
				}
			}
		}
		rep.Skipped = append(rep.Skipped, Problem{Pos: s.Items[sk.Index].Pos, Reason: reason, Deliberate: deliberate})
	}
	if err != nil {
		return rep, err
	}
	for i, m := range res.Created {
		it := s.Items[res.Index[i]]
		rep.Imported = append(rep.Imported, Imported{Pos: it.Pos, Memory: m, Notes: it.Notes})
	}
	rep.Commit = res.Commit
	return rep, nil
}

// sameText compares bodies ignoring trailing newlines, which a write
// normalises.
func sameText(a, b string) bool {
	return strings.TrimRight(a, "\n") == strings.TrimRight(b, "\n")
}
