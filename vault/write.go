package vault

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/memory"
	"github.com/memvault/memvault/vault/merge"
)

// Author says who asks for a write and why; it ends up in the commit.
type Author struct {
	Reason string // why the change is made; the commit body
	Client string // overrides Options.Client for this write
}

// NewMemory is what a caller supplies to create a memory.
type NewMemory struct {
	Title       string
	Content     string
	Layer       Layer // 0 means Project
	Tags        []string
	Aliases     []string
	Importance  int // 0 means 5
	EffectiveAt time.Time
	ExpiresAt   time.Time // zero: the layer's TTL from now, if any
	Supersedes  []string
	Links       []string
	// Refs name the code the memory is about (see Memory.Refs).
	Refs []string
	// AcceptRefs adds the refs proposed from the text (Options.Proposer)
	// to Refs; without it they are only reported.
	AcceptRefs bool
	Kind       string // source.kind: manual (default), auto, import
	// ID, when set, is used instead of a fresh ULID (import, tests).
	ID string
}

// Patch changes some fields of a memory; nil fields stay as they are.
type Patch struct {
	Title       *string
	Content     *string
	Layer       *Layer
	Tags        *[]string
	Importance  *int
	EffectiveAt *time.Time
	ExpiresAt   *time.Time
	Status      *Status
	Supersedes  *[]string
	Links       *[]string
	Refs        *[]string
	// AcceptRefs adds the refs proposed from the memory's new text
	// (Options.Proposer; proposed when Title or Content changes, or when
	// AcceptRefs is set) to its refs; without it they are only reported
	// (WriteResult.ProposedRefs).
	AcceptRefs bool
	// ResolveConflict removes the memory's conflict record (what a git
	// merge left for a person): the memory as it is now, with the rest of
	// the patch, is the decision. Without it, a patch still settles the
	// record's entries for the fields it sets.
	ResolveConflict bool
	// ExpectedETag, when set, is a precondition rather than a change: the
	// update is refused with ErrConflict unless the memory's ETag is still
	// this one. It catches what a version cannot: after a merge, two
	// different contents can carry the same version.
	ExpectedETag string
}

// WriteResult reports a completed write.
type WriteResult struct {
	Memory *Memory
	// Commit is the commit hash; empty when the layer is not committed or
	// the vault has no committer.
	Commit string
	// Superseded lists ids that this write marked superseded.
	Superseded []string
	// ProposedRefs are refs the new or updated memory's text suggests
	// and it does not have (Options.Proposer); accept them with
	// NewMemory.AcceptRefs, Patch.AcceptRefs or an update of refs.
	ProposedRefs []string
}

// Create writes a new memory file and commits it. Memories it supersedes
// are marked superseded in the same commit.
func (v *Vault) Create(ctx context.Context, n NewMemory, by Author) (WriteResult, error) {
	return v.create(ctx, n, by, createOptions{})
}

// createOptions are what a Set adds to a Create.
type createOptions struct {
	// foreign are ids in supersedes that another vault of the set holds
	// (the set checked): recorded in the new memory's supersedes and in
	// the commit's trailers, neither looked up nor marked here.
	foreign map[string]bool
	// check runs under the write lock before anything is written, with
	// the validated memory; an error refuses the write.
	check func(n *NewMemory) error
}

func (v *Vault) create(ctx context.Context, n NewMemory, by Author, o createOptions) (WriteResult, error) {
	if err := v.validateNew(&n, by); err != nil {
		return WriteResult{}, err
	}
	var proposed []string
	if v.ports.proposer != nil && n.Kind != "import" {
		// Advice only: a repository that cannot be read proposes nothing.
		proposed, _ = v.ports.proposer.ProposeRefs(ctx, n.Title+"\n"+n.Content, n.Refs)
		if n.AcceptRefs {
			n.Refs, proposed = acceptRefs(n.Refs, proposed)
		}
	}
	var res WriteResult
	err := v.withWriteLock(ctx, func() error {
		if o.check != nil {
			if err := o.check(&n); err != nil {
				return err
			}
		}
		now := v.now().UTC().Truncate(time.Second)
		id := n.ID
		if id == "" {
			var err error
			if id, err = NewULID(now, nil); err != nil {
				return err
			}
		} else if v.existsLocked(id) {
			return fmt.Errorf("%w: id %s already exists", ErrInvalid, id)
		} else if err := v.checkSupersession(id, n.Supersedes); err != nil {
			// A given id may be one that others already list.
			return err
		}
		rel, err := v.freePath(n.Layer, n.Title)
		if err != nil {
			return err
		}
		expires := n.ExpiresAt
		if expires.IsZero() && n.Layer.TTL() > 0 {
			expires = now.Add(n.Layer.TTL())
		}
		source := []parser.KV{{Key: "client", Value: v.clientOf(by)}, {Key: "kind", Value: cmp.Or(n.Kind, "manual")}}
		doc, err := newDocument(bodyText(n.Content), id, &n, now, now, expires, StatusActive, source, 1)
		if err != nil {
			return err
		}
		w := &writeSet{v: v}
		w.put(rel, doc.Format())
		var superseded []string
		for _, old := range n.Supersedes {
			if o.foreign[old] {
				continue
			}
			ok, err := w.markSuperseded(ctx, old, now)
			if err != nil {
				return err
			}
			if ok {
				superseded = append(superseded, old)
			}
		}
		verb := "add"
		if len(n.Supersedes) > 0 {
			verb = "supersede"
		}
		res, err = w.finish(ctx, commitMessage(verb, n.Layer, n.Title, id, by.Reason, v.clientOf(by), n.Supersedes), n.Layer.Committed(), id, superseded)
		res.ProposedRefs = proposed
		return err
	})
	return res, err
}

// Update applies p to the memory id. With expectedVersion > 0 the write is
// refused with ErrConflict unless the file on disk still has that version,
// and with p.ExpectedETag unless it still has that etag, so an assistant
// never overwrites a change it has not seen. The error names the current
// version and etag.
func (v *Vault) Update(ctx context.Context, id string, expectedVersion int, p Patch, by Author) (WriteResult, error) {
	if p.Supersedes != nil {
		olds := dedupeIDs(*p.Supersedes)
		p.Supersedes = &olds
	}
	if err := validatePatch(p, by); err != nil {
		return WriteResult{}, err
	}
	if p.ExpectedETag != "" && !IsETag(p.ExpectedETag) {
		return WriteResult{}, fmt.Errorf("%w: expected etag %q is not <version>-<12 hex digits> as get_memory, recall and show give it", ErrInvalid, p.ExpectedETag)
	}
	proposed := v.proposeOnUpdate(ctx, id, &p)
	var res WriteResult
	err := v.withWriteLock(ctx, func() error {
		cur, doc, err := v.readCurrent(ctx, id)
		if err != nil {
			return err
		}
		id = cur.ID
		if p.Supersedes != nil {
			if err := v.checkSupersession(id, *p.Supersedes); err != nil {
				return err
			}
		}
		if expectedVersion > 0 && cur.Version != expectedVersion {
			return &StaleError{ID: id, Expected: strconv.Itoa(expectedVersion), Version: cur.Version, ETag: cur.ETag()}
		}
		if p.ExpectedETag != "" {
			if etag := cur.ETag(); etag != p.ExpectedETag {
				return &StaleError{ID: id, Expected: p.ExpectedETag, ByETag: true, Version: cur.Version, ETag: etag}
			}
		}
		now := v.now().UTC().Truncate(time.Second)
		changed, err := applyPatch(doc, cur, p, now)
		if err != nil {
			return err
		}
		if !changed {
			return fmt.Errorf("%w: the patch leaves %s as it is", ErrUnchanged, id)
		}
		if given, err := v.giveIdentity(ctx, cur, doc, now); err != nil {
			return err
		} else if given != "" {
			id = given
		}
		newLayer := cur.Layer
		if p.Layer != nil {
			newLayer = *p.Layer
		}
		w := &writeSet{v: v}
		rel := cur.Path
		if newLayer != cur.Layer {
			// The file follows its layer's folder so an L1 memory promoted
			// to L2 leaves the ignored transient/ folder and gets committed.
			if rel, err = v.freePathKeepSlug(newLayer, cur.Path); err != nil {
				return err
			}
			w.remove(cur.Path)
		}
		w.put(rel, doc.Format())
		verb := "update"
		if p.Status != nil && *p.Status == StatusArchived {
			verb = "archive"
		}
		var superseded []string
		if p.Supersedes != nil {
			verb = "supersede"
			for _, old := range *p.Supersedes {
				if slices.Contains(cur.Supersedes, old) {
					continue
				}
				ok, err := w.markSuperseded(ctx, old, now)
				if err != nil {
					return err
				}
				if ok {
					superseded = append(superseded, old)
				}
			}
		}
		title := cur.Title
		if p.Title != nil {
			title = *p.Title
		}
		res, err = w.finish(ctx, commitMessage(verb, newLayer, title, id, by.Reason, v.clientOf(by), superseded),
			newLayer.Committed() || cur.Layer.Committed(), id, superseded)
		res.ProposedRefs = proposed
		return err
	})
	return res, err
}

// proposeOnUpdate proposes refs from the text a patch gives the memory
// (its new title or content, with what it keeps of the old), as a new
// memory's are proposed, when the text changes or p.AcceptRefs asks;
// with p.AcceptRefs they join p.Refs and none is left to report. The
// memory is read as the index has it, outside the write lock: proposals
// are advice, and the repository read stays out of the lock.
func (v *Vault) proposeOnUpdate(ctx context.Context, id string, p *Patch) []string {
	if v.ports.proposer == nil || p.Title == nil && p.Content == nil && !p.AcceptRefs {
		return nil
	}
	cur, err := v.Get(id)
	if err != nil {
		return nil // the update reports it
	}
	title, content, have := cur.Title, cur.Body, cur.Refs
	if p.Title != nil {
		title = *p.Title
	}
	if p.Content != nil {
		content = *p.Content
	}
	if p.Refs != nil {
		have = *p.Refs
	}
	// Advice only: a repository that cannot be read proposes nothing.
	proposed, _ := v.ports.proposer.ProposeRefs(ctx, title+"\n"+content, have)
	if p.AcceptRefs && len(proposed) > 0 {
		refs, left := acceptRefs(have, proposed)
		p.Refs, proposed = &refs, left
	}
	return proposed
}

// Forget archives the memory (status: archived), or with remove deletes
// its file; both are committed.
func (v *Vault) Forget(ctx context.Context, id string, remove bool, by Author) (WriteResult, error) {
	if strings.TrimSpace(by.Reason) == "" {
		return WriteResult{}, fmt.Errorf("%w: reason: say why the memory is forgotten", ErrInvalid)
	}
	if err := checkReason(by.Reason); err != nil {
		return WriteResult{}, err
	}
	if !remove {
		archived := StatusArchived
		return v.Update(ctx, id, 0, Patch{Status: &archived}, by)
	}
	var res WriteResult
	err := v.withWriteLock(ctx, func() error {
		cur, _, err := v.readCurrent(ctx, id)
		if err != nil {
			return err
		}
		w := &writeSet{v: v}
		w.remove(cur.Path)
		hash, err := w.apply(ctx, commitMessage("delete", cur.Layer, cur.Title, id, by.Reason, v.clientOf(by), nil), cur.Layer.Committed())
		if err != nil {
			return err
		}
		res = WriteResult{Memory: cur, Commit: hash}
		return nil
	})
	return res, err
}

// Confirm records that a person or assistant re-checked the memory against
// the code and found it still holds: it sets verified_at to now, in one
// commit whose reason is by.Reason (a default when empty). The content,
// updated_at and version stay as they are: nothing the memory says
// changed, and a writer holding the current version can still update it.
// Staleness counts code changes from this commit on (vault/staleness).
func (v *Vault) Confirm(ctx context.Context, id string, by Author) (WriteResult, error) {
	if strings.TrimSpace(by.Reason) == "" {
		by.Reason = "re-checked against the code: still accurate"
	}
	if err := checkReason(by.Reason); err != nil {
		return WriteResult{}, err
	}
	var res WriteResult
	err := v.withWriteLock(ctx, func() error {
		cur, doc, err := v.readCurrent(ctx, id)
		if err != nil {
			return err
		}
		now := v.now().UTC().Truncate(time.Second)
		if err := doc.Set("verified_at", now); err != nil {
			return fmt.Errorf("%w: verified_at: %w", ErrInvalid, err)
		}
		id = cur.ID
		if given, err := v.giveIdentity(ctx, cur, doc, now); err != nil {
			return err
		} else if given != "" {
			id = given
		}
		w := &writeSet{v: v}
		w.put(cur.Path, doc.Format())
		res, err = w.finish(ctx, commitMessage("confirm", cur.Layer, cur.Title, id, by.Reason, v.clientOf(by), nil),
			cur.Layer.Committed(), id, nil)
		return err
	})
	return res, err
}

// Confirm confirms memory id (Vault.Confirm) in the vault of the set
// that holds it, and names that vault.
func (s *Set) Confirm(ctx context.Context, id string, by Author) (Member, WriteResult, error) {
	in, _, err := s.Find(id)
	if err != nil {
		return Member{}, WriteResult{}, err
	}
	res, err := in.Vault.Confirm(ctx, id, by)
	return in, res, err
}

// withWriteLock runs fn holding this process's write mutex and, with a
// committer, the cross-process lock.
func (v *Vault) withWriteLock(ctx context.Context, fn func() error) error {
	if v.readOnly {
		return ErrReadOnly
	}
	v.writeMu.Lock()
	defer v.writeMu.Unlock()
	if v.ports.committer != nil {
		unlock, err := v.ports.committer.Lock(ctx)
		if err != nil {
			return fmt.Errorf("take the write lock: %w", err)
		}
		defer unlock()
	}
	return fn()
}

// readCurrent reads a memory's file from disk, not from the index: another
// process may have changed it since our watcher last looked.
func (v *Vault) readCurrent(ctx context.Context, id string) (*Memory, *parser.Document, error) {
	v.mu.RLock()
	d, ok := v.byID[id]
	if !ok {
		if d, ok = v.byAlias(id); ok {
			id = v.entries[d].ID // the path id of a memory since given one
		}
	}
	var rel string
	if ok {
		rel = v.entries[d].Path
	}
	v.mu.RUnlock()
	if !ok {
		// Maybe another process created it: look once more on disk.
		if err := v.Refresh(ctx, v.pathsForID(id)); err != nil {
			return nil, nil, err
		}
		v.mu.RLock()
		d, ok = v.byID[id]
		if ok {
			rel = v.entries[d].Path
		}
		v.mu.RUnlock()
		if !ok {
			return nil, nil, fmt.Errorf("%w: %s", ErrNotFound, ShortID(id))
		}
	}
	if l, ok := memory.LayerFromDir(rel); !ok || l.Committed() {
		// Before the file is read: during a merge it may hold markers, and
		// the operation, not the file, is what to tell the writer about.
		if err := v.refuseDuringOperation(ctx); err != nil {
			return nil, nil, err
		}
	}
	abs := filepath.Join(v.dir, filepath.FromSlash(rel))
	data, err := os.ReadFile(abs)
	if errors.Is(err, os.ErrNotExist) {
		_ = v.Refresh(ctx, []string{rel})
		return nil, nil, fmt.Errorf("%w: %s (its file %s was removed)", ErrNotFound, ShortID(id), rel)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", rel, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, nil, fmt.Errorf("stat %s: %w", rel, err)
	}
	if line := merge.MarkerLine(data); line > 0 {
		return nil, nil, fmt.Errorf("%w: %s:%d: %w: resolve the merge first", ErrMalformedFile, rel, line, ErrConflictMarkers)
	}
	doc, diags := parser.Parse(rel, data)
	if doc == nil || parser.HasError(diags) {
		return nil, nil, fmt.Errorf("%w: %s: fix the file by hand first: %v", ErrMalformedFile, rel, parser.Join(diags))
	}
	m, _ := memory.Parse(rel, data, fi.ModTime())
	if m.ID != id {
		return nil, nil, fmt.Errorf("%w: %s now has id %q on disk", ErrConflict, rel, m.ID)
	}
	if err := v.checkUnambiguous(id, rel); err != nil {
		return nil, nil, err
	}
	return m, doc, nil
}

// pathsForID guesses where a memory with a derived id would live.
func (v *Vault) pathsForID(id string) []string {
	if IsMemoryPath(id + ".md") {
		return []string{id + ".md"}
	}
	return nil
}

func (v *Vault) existsLocked(id string) bool {
	v.mu.RLock()
	defer v.mu.RUnlock()
	_, ok := v.byID[id]
	return ok
}

// clientOf is the writer's name a write records: the author's, else the
// vault's, sanitised (see SanitizeClient) whichever door passed it.
func (v *Vault) clientOf(by Author) string { return cmp.Or(SanitizeClient(by.Client), v.client) }

// freePath picks <layer-dir>/<slug>.md for a new memory, adding a short
// suffix when the name is taken on disk or in the index.
func (v *Vault) freePath(l Layer, title string) (string, error) {
	return v.freeName(l.Dir(), Slug(title))
}

// freePathKeepSlug moves a file name to another layer folder, keeping its
// slug: the slug never changes after creation.
func (v *Vault) freePathKeepSlug(l Layer, rel string) (string, error) {
	return v.freeName(l.Dir(), strings.TrimSuffix(filepath.Base(rel), ".md"))
}

func (v *Vault) freeName(dir, slug string) (string, error) {
	for i := 0; i < 1000; i++ {
		name := slug
		if i > 0 {
			name = fmt.Sprintf("%s-%d", slug, i+1)
		}
		rel := dir + "/" + name + ".md"
		v.mu.RLock()
		_, taken := v.byPath[rel]
		v.mu.RUnlock()
		if taken {
			continue
		}
		if _, err := os.Lstat(filepath.Join(v.dir, filepath.FromSlash(rel))); err == nil {
			continue
		}
		return rel, nil
	}
	return "", fmt.Errorf("no free file name for %q in %s", slug, dir)
}

// bodyText makes sure a body ends with one newline.
func bodyText(content string) string {
	content = strings.TrimRight(content, "\n") + "\n"
	return content
}

// applyPatch sets the changed fields on doc and bumps version and
// updated_at. It reports whether anything changed.
func applyPatch(doc *parser.Document, cur *Memory, p Patch, now time.Time) (bool, error) {
	changed := false
	set := func(key string, val any) error {
		changed = true
		return doc.Set(key, val)
	}
	var err error
	if settled, e := settleRecord(doc, cur, p); settled || e != nil {
		changed, err = true, e
	}
	if p.Title != nil && *p.Title != cur.Title {
		err = errors.Join(err, set("title", *p.Title))
	}
	if p.Content != nil && bodyText(*p.Content) != cur.Body {
		doc.SetBody([]byte(bodyText(*p.Content)))
		changed = true
	}
	if p.Layer != nil && *p.Layer != cur.Layer {
		err = errors.Join(err, set("layer", p.Layer.String()))
	}
	if p.Tags != nil && !slices.Equal(*p.Tags, cur.Tags) {
		err = errors.Join(err, set("tags", *p.Tags))
	}
	if p.Importance != nil && *p.Importance != cur.Importance {
		err = errors.Join(err, set("importance", *p.Importance))
	}
	if p.EffectiveAt != nil && !p.EffectiveAt.Equal(cur.EffectiveAt) {
		if p.EffectiveAt.IsZero() {
			doc.Delete("effective_at")
			changed = true
		} else {
			err = errors.Join(err, set("effective_at", p.EffectiveAt.UTC()))
		}
	}
	newLayer := cur.Layer
	if p.Layer != nil {
		newLayer = *p.Layer
	}
	switch {
	case p.ExpiresAt != nil && !p.ExpiresAt.Equal(cur.ExpiresAt):
		if p.ExpiresAt.IsZero() {
			doc.Delete("expires_at")
			changed = true
		} else {
			err = errors.Join(err, set("expires_at", p.ExpiresAt.UTC()))
		}
	case changed && p.ExpiresAt == nil && newLayer.TTL() > 0 &&
		(cur.ExpiresAt.IsZero() || cur.ExpiresAt.Equal(cur.UpdatedAt.Add(cur.Layer.TTL()))):
		// A default expiry moves with the update; an explicit one stays.
		err = errors.Join(err, doc.Set("expires_at", now.Add(newLayer.TTL())))
	case changed && newLayer.TTL() == 0 && cur.Layer.TTL() > 0 && cur.ExpiresAt.Equal(cur.UpdatedAt.Add(cur.Layer.TTL())):
		doc.Delete("expires_at") // promoted to a layer without TTL
	}
	if p.Status != nil && *p.Status != cur.Status {
		err = errors.Join(err, set("status", string(*p.Status)))
	}
	if p.Supersedes != nil && !slices.Equal(*p.Supersedes, cur.Supersedes) {
		err = errors.Join(err, set("supersedes", *p.Supersedes))
	}
	if p.Links != nil && !slices.Equal(*p.Links, cur.Links) {
		err = errors.Join(err, set("links", *p.Links))
	}
	if p.Refs != nil && !slices.Equal(*p.Refs, cur.Refs) {
		if len(*p.Refs) == 0 {
			doc.Delete("refs")
			changed = true
		} else {
			err = errors.Join(err, set("refs", *p.Refs))
		}
	}
	if err != nil || !changed {
		return changed, err
	}
	if err := doc.Set("updated_at", now); err != nil {
		return false, err
	}
	if err := doc.Set("version", cur.Version+1); err != nil {
		return false, err
	}
	return true, nil
}

// settleRecord removes what p decides from cur's conflict record: the
// whole record when p resolves it, else the entries of the fields p sets
// (a person wrote them after the merge, knowing both sides). A file with
// conflict markers has no record to settle.
func settleRecord(doc *parser.Document, cur *Memory, p Patch) (bool, error) {
	if len(cur.Conflicted) == 0 || slices.Equal(cur.Conflicted, []string{ConflictedMarkers}) {
		return false, nil
	}
	if p.ResolveConflict {
		doc.Delete(merge.ConflictKey)
		return true, nil
	}
	var fields []string
	for name, set := range map[string]bool{
		"title": p.Title != nil, merge.BodyField: p.Content != nil, "layer": p.Layer != nil, "tags": p.Tags != nil,
		"importance": p.Importance != nil, "effective_at": p.EffectiveAt != nil, "expires_at": p.ExpiresAt != nil,
		"status": p.Status != nil, "supersedes": p.Supersedes != nil, "links": p.Links != nil, "refs": p.Refs != nil,
	} {
		if set {
			fields = append(fields, name)
		}
	}
	return merge.Settle(doc, fields)
}

// commitMessage builds the commit message: a subject naming the layer,
// verb and title, the caller's reason as the body, then trailers that
// `memvault history` reads back.
func commitMessage(verb string, l Layer, title, id, reason, client string, superseded []string) string {
	return commitmsg.Write{Verb: verb, Layer: l.String(), Title: title, ID: id, Reason: reason, Client: client,
		Supersedes: superseded}.Message().String()
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// newDocument renders a new memory's file: the front-matter keys memvault
// writes, always in this order, over body. Create and CreateBatch share it
// so a created and an imported memory look alike.
func newDocument(body, id string, n *NewMemory, created, updated, expires time.Time, status Status, source []parser.KV, version int) (*parser.Document, error) {
	doc := parser.New([]byte(body))
	fields := []struct {
		key string
		val any
		set bool
	}{
		{"id", id, true},
		{"title", n.Title, true},
		{"layer", n.Layer.String(), true},
		{"importance", n.Importance, true},
		{"tags", n.Tags, len(n.Tags) > 0},
		{"aliases", n.Aliases, len(n.Aliases) > 0},
		{"created_at", created.UTC(), true},
		{"updated_at", updated.UTC(), true},
		{"effective_at", n.EffectiveAt.UTC(), !n.EffectiveAt.IsZero()},
		{"expires_at", expires.UTC(), !expires.IsZero()},
		{"status", string(status), true},
		{"supersedes", n.Supersedes, len(n.Supersedes) > 0},
		{"links", n.Links, len(n.Links) > 0},
		{"refs", n.Refs, len(n.Refs) > 0},
		{"source", source, len(source) > 0},
		{"version", version, true},
	}
	for _, f := range fields {
		if f.set {
			if err := doc.Set(f.key, f.val); err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrInvalid, f.key, err)
			}
		}
	}
	return doc, nil
}

// Restore writes old, a past version of one of v's memories (read from
// history), back as a new version: its version keeps increasing and
// updated_at moves, so history shows the restore as what it is. A memory
// deleted since is created again with its old id. An expiry that was the
// layer's default, not written in the file, is set from now, as a new
// write would: restored verbatim it would bring the memory back already
// expired. It returns an error wrapping ErrUnchanged when the memory
// already matches old.
func (v *Vault) Restore(ctx context.Context, old *Memory, by Author) (WriteResult, error) {
	expires := &old.ExpiresAt
	if ttl := old.Layer.TTL(); ttl > 0 && old.ExpiresAt.Equal(old.UpdatedAt.Add(ttl)) {
		expires = nil
	}
	cur, err := v.Get(old.ID)
	if errors.Is(err, ErrNotFound) {
		n := NewMemory{
			ID: old.ID, Title: old.Title, Content: old.Body, Layer: old.Layer, Tags: old.Tags,
			Aliases: old.Aliases, Importance: old.Importance, EffectiveAt: old.EffectiveAt,
			Supersedes: old.Supersedes, Links: old.Links, Kind: old.Source.Kind,
		}
		if expires != nil {
			n.ExpiresAt = *expires
		}
		return v.Create(ctx, n, by)
	}
	if err != nil {
		return WriteResult{}, err
	}
	p := Patch{Title: &old.Title, Content: &old.Body, Layer: &old.Layer, Tags: &old.Tags,
		Importance: &old.Importance, EffectiveAt: &old.EffectiveAt, ExpiresAt: expires,
		Status: &old.Status, Links: &old.Links}
	// Any Supersedes in a patch makes the write a "supersede"; give it
	// only when it changes.
	if !slices.Equal(old.Supersedes, cur.Supersedes) {
		p.Supersedes = &old.Supersedes
	}
	return v.Update(ctx, old.ID, 0, p, by)
}
