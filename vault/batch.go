package vault

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/memory"
)

// MaxBatch bounds the memories of one batch: one commit of more files than
// this is better split, and a hostile import file cannot make a commit of
// millions of files.
const MaxBatch = 100_000

// Imported carries what a memory brings from elsewhere (an export of
// another vault): fields a plain Create fills from the clock and the
// caller. Zero values mean "fill as Create would".
type Imported struct {
	CreatedAt, UpdatedAt time.Time
	Status               Status // "" is active
	Version              int    // 0 is 1
	// Source is written as given (nil: this writer's client, kind
	// "import"; a zero Source: no source key, as in a hand-written file).
	Source *Source
	// Path is the vault-relative file the memory had; it is reused when it
	// is a memory path in the memory's layer folder and still free.
	Path string
	// Extra holds front-matter keys memvault does not know, written after
	// the known keys in this order. Values must be of a type
	// parser.Document.Set accepts.
	Extra []ExtraField
	// ExactBody writes Content byte for byte as the body instead of
	// normalising it to end with one newline.
	ExactBody bool
}

// ExtraField is one unknown front-matter key and its value.
type ExtraField struct {
	Key   string
	Value any
}

// BatchItem is one memory of a batch. Keep is nil for new content.
type BatchItem struct {
	Memory NewMemory
	Keep   *Imported
}

// Batch is a set of memories written as one commit.
type Batch struct {
	Items []BatchItem
	// Source names where the memories come from in the commit subject
	// ("memory: import 12 memories from memory.jsonl").
	Source string
	// DryRun validates every item and picks its file, but writes nothing.
	DryRun bool
	// Progress, when set, is called after each item is prepared.
	Progress func(done, total int)
}

// BatchSkip is an item that was not written, and why.
type BatchSkip struct {
	Index int // into Batch.Items
	Err   error
}

// BatchResult reports a batch write.
type BatchResult struct {
	// Created holds the written memories (in a dry run, as they would be),
	// in the order of Batch.Items.
	Created []*Memory
	// Index maps each entry of Created to its index in Batch.Items.
	Index []int
	// Skipped lists refused items: invalid fields, a secret, an id that
	// already exists.
	Skipped []BatchSkip
	// Commit is the commit hash; empty in a dry run, when nothing was
	// written or committed, or without a committer.
	Commit string
}

// CreateBatch writes many new memories as one write: the files are written
// atomically and recorded in one commit, rolled back together if the commit
// fails. Each item is validated like Create (limits, the secret guard) and
// an invalid item, or one whose id already exists, is skipped and reported
// in BatchResult.Skipped rather than failing the batch. Supersedes lists
// are written as given, repeats dropped: the memories they name are not
// marked superseded, since an import carries their status itself. An item
// that would close a ring of supersession is skipped.
func (v *Vault) CreateBatch(ctx context.Context, b Batch, by Author) (BatchResult, error) {
	var res BatchResult
	if len(b.Items) > MaxBatch {
		return res, fmt.Errorf("%w: %d memories in one batch, limit %d", ErrInvalid, len(b.Items), MaxBatch)
	}
	if err := checkReason(by.Reason); err != nil {
		return res, err
	}
	items := slices.Clone(b.Items)
	valid := make([]bool, len(items))
	for i := range items {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		// The reason is the batch's, checked once above.
		err := v.validateNew(&items[i].Memory, Author{})
		if err == nil {
			err = refuseImportedSecrets(&items[i])
		}
		if err == nil && items[i].Keep != nil {
			err = validateImported(items[i].Keep)
		}
		if err != nil {
			res.Skipped = append(res.Skipped, BatchSkip{i, err})
			continue
		}
		valid[i] = true
	}
	write := func() error {
		now := v.now().UTC().Truncate(time.Second)
		client := v.clientOf(by)
		w := &writeSet{v: v}
		taken := map[string]bool{}
		ids := map[string]bool{}
		pending := map[string][]string{} // supersedes of the items accepted so far
		committed := false
		var layers []Layer
		for i := range items {
			if !valid[i] {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			it := &items[i]
			// A given id may close a ring of supersession with the vault
			// or with earlier items (a generated one is new to everyone).
			if err := v.checkSupersessionWith(it.Memory.ID, it.Memory.Supersedes, pending); err != nil {
				res.Skipped = append(res.Skipped, BatchSkip{i, err})
				continue
			}
			rel, doc, err := v.prepareItem(it, now, client, taken, ids)
			if err != nil {
				res.Skipped = append(res.Skipped, BatchSkip{i, err})
				continue
			}
			data := doc.Format()
			// The file as written, front matter included: what the
			// field checks cannot see (an unknown key named password).
			var sc secretScan
			sc.bytes("file", data)
			if err := sc.err(); err != nil {
				delete(taken, rel)
				delete(ids, doc.Meta.ID)
				res.Skipped = append(res.Skipped, BatchSkip{i, err})
				continue
			}
			w.ops = append(w.ops, fileOp{rel: rel, data: data, scanned: true})
			// A dry run shows the memory as it would load; a real write
			// takes it from the index afterwards.
			m := &Memory{ID: doc.Meta.ID, Title: it.Memory.Title, Layer: it.Memory.Layer, Path: rel}
			if b.DryRun {
				m, _ = ParseMemory(rel, data, now)
			}
			res.Created = append(res.Created, m)
			res.Index = append(res.Index, i)
			if len(it.Memory.Supersedes) > 0 {
				pending[doc.Meta.ID] = it.Memory.Supersedes
			}
			committed = committed || it.Memory.Layer.Committed()
			if !slices.Contains(layers, it.Memory.Layer) {
				layers = append(layers, it.Memory.Layer)
			}
			if b.Progress != nil {
				b.Progress(len(res.Created), len(items))
			}
		}
		slices.SortFunc(res.Skipped, func(a, b BatchSkip) int { return a.Index - b.Index })
		if b.DryRun || len(w.ops) == 0 {
			return nil
		}
		ids2 := make([]string, len(res.Created))
		for i, m := range res.Created {
			ids2[i] = m.ID
		}
		hash, err := w.apply(ctx, batchMessage(b.Source, ids2, layers, by.Reason, client), committed)
		if err != nil {
			return err
		}
		res.Commit = hash
		// Return the memories as indexed (the loader's view of the files).
		for i, m := range res.Created {
			if got, err := v.Get(m.ID); err == nil {
				res.Created[i] = got
			}
		}
		return nil
	}
	var err error
	if b.DryRun {
		// A dry run reads the index only; it takes no lock so it never
		// waits for, or blocks, a writer.
		err = write()
	} else {
		err = v.withWriteLock(ctx, write)
	}
	if err != nil {
		return BatchResult{Skipped: res.Skipped}, err
	}
	return res, nil
}

// prepareItem picks the file and renders the document of one batch item.
// taken and ids hold the paths and ids used by earlier items of the batch.
func (v *Vault) prepareItem(it *BatchItem, now time.Time, client string, taken, ids map[string]bool) (string, *parser.Document, error) {
	n := &it.Memory
	keep := it.Keep
	if keep == nil {
		keep = &Imported{}
	}
	id := n.ID
	if id == "" {
		var err error
		if id, err = NewULID(now, nil); err != nil {
			return "", nil, err
		}
	}
	if ids[id] {
		return "", nil, fmt.Errorf("%w: id %s appears twice in the batch", ErrDuplicateID, id)
	}
	if v.existsLocked(id) {
		return "", nil, fmt.Errorf("%w: id %s already exists", ErrDuplicateID, id)
	}
	rel := ""
	// The original path is reused only when it is a plain memory path in
	// the right layer folder: never one that could lead elsewhere.
	if p := keep.Path; p != "" && IsMemoryPath(p) && !strings.ContainsAny(p, "\\:") && !taken[p] {
		if l, ok := memory.LayerFromDir(p); ok && l == n.Layer && v.pathFree(p) {
			rel = p
		}
	}
	if rel == "" {
		var err error
		if rel, err = v.freeNameExcept(n.Layer.Dir(), Slug(n.Title), taken); err != nil {
			return "", nil, err
		}
	}
	created := cmp.Or(keep.CreatedAt, now)
	updated := cmp.Or(keep.UpdatedAt, created)
	expires := n.ExpiresAt
	if expires.IsZero() && n.Layer.TTL() > 0 {
		expires = updated.Add(n.Layer.TTL())
	}
	status := cmp.Or(keep.Status, StatusActive)
	version := max(keep.Version, 1)
	source := []parser.KV{{Key: "client", Value: client}, {Key: "kind", Value: cmp.Or(n.Kind, "import")}}
	if keep.Source != nil {
		source = source[:0]
		if keep.Source.Client != "" {
			source = append(source, parser.KV{Key: "client", Value: keep.Source.Client})
		}
		if keep.Source.Kind != "" {
			source = append(source, parser.KV{Key: "kind", Value: keep.Source.Kind})
		}
	}
	body := bodyText(n.Content)
	if keep.ExactBody {
		body = n.Content
	}
	doc, err := newDocument(body, id, n, created, updated, expires, status, source, version)
	if err != nil {
		return "", nil, err
	}
	for _, x := range keep.Extra {
		if err := doc.Set(x.Key, x.Value); err != nil {
			return "", nil, fmt.Errorf("%w: extra key %q: %w", ErrInvalid, x.Key, err)
		}
	}
	taken[rel] = true
	ids[id] = true
	return rel, doc, nil
}

// knownKeys are the front-matter keys memvault writes itself. refs and
// verified_at are read but left out: an import carries them through as
// the file's own keys, so an exported memory keeps them.
var knownKeys = []string{"id", "title", "layer", "importance", "tags", "aliases", "created_at", "updated_at",
	"effective_at", "expires_at", "status", "supersedes", "links", "source", "version"}

// IsKnownKey reports whether key is a front-matter key memvault itself
// reads and writes; other keys are kept as they are.
func IsKnownKey(key string) bool { return slices.Contains(knownKeys, key) }

// validateImported checks the fields an import carries.
func validateImported(k *Imported) error {
	if _, err := ParseStatus(string(k.Status)); err != nil {
		return err
	}
	if k.Version < 0 {
		return fmt.Errorf("%w: version: %d is negative", ErrInvalid, k.Version)
	}
	if !k.CreatedAt.IsZero() && !k.UpdatedAt.IsZero() && k.UpdatedAt.Before(k.CreatedAt) {
		return fmt.Errorf("%w: updated_at %s is before created_at %s", ErrInvalid, k.UpdatedAt.Format(time.RFC3339), k.CreatedAt.Format(time.RFC3339))
	}
	if k.Source != nil {
		for _, s := range []string{k.Source.Client, k.Source.Kind} {
			if strings.ContainsAny(s, "\r\n") || len(s) > 200 {
				return fmt.Errorf("%w: source: %q is not one short line", ErrInvalid, s)
			}
		}
	}
	seen := map[string]bool{}
	for _, x := range k.Extra {
		switch {
		case IsKnownKey(x.Key):
			return fmt.Errorf("%w: extra key %q is a memvault field", ErrInvalid, x.Key)
		case seen[x.Key]:
			return fmt.Errorf("%w: extra key %q appears twice", ErrInvalid, x.Key)
		case x.Key == "" || strings.ContainsAny(x.Key, "\r\n:") || len(x.Key) > 200:
			return fmt.Errorf("%w: extra key %q: not a plain key", ErrInvalid, x.Key)
		}
		seen[x.Key] = true
	}
	return nil
}

// refuseImportedSecrets extends the guard of validateNew (title, content,
// tags, aliases, supersedes, links) to the other text an import brings:
// the source, the original path and unknown keys, named by position (a
// key's name may be the secret).
func refuseImportedSecrets(it *BatchItem) error {
	k := it.Keep
	if k == nil {
		return nil
	}
	var sc secretScan
	if k.Source != nil {
		sc.text("source.client", k.Source.Client)
		sc.text("source.kind", k.Source.Kind)
	}
	sc.text("path", k.Path)
	for i, x := range k.Extra {
		sc.text(fmt.Sprintf("extra key %d name", i+1), x.Key)
		sc.text(fmt.Sprintf("extra key %d value", i+1), fmt.Sprint(x.Value))
	}
	return sc.err()
}

// pathFree reports whether no memory and no file uses rel.
func (v *Vault) pathFree(rel string) bool {
	v.mu.RLock()
	_, taken := v.byPath[rel]
	v.mu.RUnlock()
	if taken {
		return false
	}
	_, err := os.Lstat(filepath.Join(v.dir, filepath.FromSlash(rel)))
	return err != nil
}

// freeNameExcept is freeName that also avoids the paths in taken (files
// of the same batch, not yet on disk).
func (v *Vault) freeNameExcept(dir, slug string, taken map[string]bool) (string, error) {
	for i := 0; i < 10000; i++ {
		name := slug
		if i > 0 {
			name = fmt.Sprintf("%s-%d", slug, i+1)
		}
		rel := dir + "/" + name + ".md"
		if !taken[rel] && v.pathFree(rel) {
			return rel, nil
		}
	}
	return "", fmt.Errorf("no free file name for %q in %s", slug, dir)
}

// batchMessage is the commit message of a batch: a subject with the count
// and the source, the reason, then one Memory-Id trailer per memory so
// `memvault history` finds the commit from any of them.
func batchMessage(source string, ids []string, layers []Layer, reason, client string) string {
	noun := "memories"
	if len(ids) == 1 {
		noun = "memory"
	}
	m := commitmsg.Message{Subject: fmt.Sprintf("memory: add %d %s", len(ids), noun), Body: reason}
	if source != "" {
		m.Subject = fmt.Sprintf("memory: import %d %s from %s", len(ids), noun, truncateRunes(oneLine(source), 120))
	}
	for _, id := range ids {
		m.Trailers = append(m.Trailers, commitmsg.Trailer{Key: commitmsg.KeyID, Value: id})
	}
	for _, l := range layers {
		m.Trailers = append(m.Trailers, commitmsg.Trailer{Key: commitmsg.KeyLayer, Value: l.String()})
	}
	m.Trailers = append(m.Trailers, commitmsg.Trailer{Key: commitmsg.KeyClient, Value: client})
	return m.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
