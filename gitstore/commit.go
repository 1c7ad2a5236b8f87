package gitstore

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Change is one commit to make.
type Change struct {
	// Paths are the files to commit, absolute (inside the work tree) or
	// relative to its root. Each is committed with its current content on
	// disk; a path that no longer exists is deleted from the tree.
	Paths []string
	// Message is the full commit message: subject, blank line, body,
	// trailers. A final newline is added if missing.
	Message string
	// Author is the commit author. Nil means the configured git identity
	// (see Store.Identity); ErrNoIdentity if there is none.
	Author *Signature
	// RefuseDetached makes Commit return ErrDetachedHead, and commit
	// nothing, when HEAD is detached. It is checked against the HEAD the
	// commit would be placed on, so a checkout between a caller's own
	// check and the commit cannot slip through.
	RefuseDetached bool
}

// CommitResult describes a commit that was made.
type CommitResult struct {
	Hash     string // full object id
	Branch   string // short branch name; "" when Detached
	Detached bool   // HEAD was detached and was moved to the new commit
	Unborn   bool   // the branch had no commits before this one
	// Cleared are the git locks a memvault process that is gone had left,
	// which this commit removed to proceed.
	Cleared []StaleLock
}

// State describes the repository's HEAD and whether a commit could be made
// now.
type State struct {
	Branch      string // short branch name; "" when detached
	Head        string // commit id; "" when unborn
	Detached    bool
	Unborn      bool
	Operation   string // "", "merge", "rebase", "am", "cherry-pick", "revert" or "bisect"
	IndexLocked bool   // .git/index.lock exists
	// RefLock is the lock file of the ref HEAD moves (refs/heads/<branch>.lock,
	// or HEAD.lock when detached) when it exists: a process killed while
	// moving the branch leaves it, and every commit then fails until it is
	// removed.
	RefLock string
	// Stale are those of the two locks that a memvault process that is
	// gone left: the next Commit, or ClearStaleLocks, removes them. Locks
	// not listed here belong to a running process, or to git, and are
	// never removed.
	Stale []StaleLock
}

// maxRefRetries bounds how often Commit rebuilds on a branch that moved.
const maxRefRetries = 20

// State reports HEAD, any operation in progress and whether the index is
// locked.
func (s *Store) State(ctx context.Context) (State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return State{}, err
	}
	h, err := s.readHead()
	if err != nil {
		return State{}, err
	}
	st := State{Branch: h.branch(), Detached: h.detached, Unborn: h.unborn, Operation: s.operation()}
	if !h.unborn {
		st.Head = h.hash.String()
	}
	for i, target := range s.lockTargets() {
		exists, stale := inspectLock(target, s.owner)
		if !exists {
			continue
		}
		if i == 0 {
			st.IndexLocked = true
		} else {
			st.RefLock = target + ".lock"
		}
		if stale == nil {
			if _, orphan := s.orphanLock(target); orphan {
				st.Stale = append(st.Stale, StaleLock{Path: target + ".lock", Owner: orphanOwner})
			}
		}
		if stale != nil {
			st.Stale = append(st.Stale, StaleLock{Path: target + ".lock", Owner: stale.String()})
		}
	}
	return st, nil
}

// Head returns the commit HEAD points at, "" while its branch is unborn.
// It reads HEAD and the ref it names and nothing else: the served vault
// asks before every call whether someone else's commit moved HEAD, and
// State's lock and operation checks there were most of that question's
// cost (BenchmarkHead, BenchmarkState).
func (s *Store) Head(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return "", err
	}
	h, err := s.stampHead()
	if err != nil || h.unborn {
		return "", err
	}
	return h.hash.String(), nil
}

// Operation names the multi-step git operation in progress ("merge",
// "rebase", "am", "cherry-pick", "revert" or "bisect"), or "" when none
// is, from the marker files git leaves in the worktree's git dir: a few
// stats, cheap enough to ask before every write.
func (s *Store) Operation(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return s.operation(), nil
}

// operation names the multi-step git operation in progress, if any.
func (s *Store) operation() string { return OperationIn(s.gitDir) }

// OperationIn names the multi-step git operation in progress in the
// worktree whose git dir is gitDir ("rebase", "am", "merge",
// "cherry-pick", "revert", "bisect"), or "", from the marker files git
// leaves there.
func OperationIn(gitDir string) string {
	exists := func(name string) bool {
		_, err := os.Lstat(filepath.Join(gitDir, name))
		return err == nil
	}
	switch {
	case exists("rebase-merge"):
		return "rebase"
	case exists("rebase-apply/applying"):
		return "am"
	case exists("rebase-apply"):
		return "rebase"
	case exists("MERGE_HEAD"):
		return "merge"
	case exists("CHERRY_PICK_HEAD"):
		return "cherry-pick"
	case exists("REVERT_HEAD"):
		return "revert"
	case exists("BISECT_LOG"):
		return "bisect"
	}
	return ""
}

// Identity returns the author Commit uses when Change.Author is nil.
func (s *Store) Identity(ctx context.Context) (Signature, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return Signature{}, err
	}
	h, err := s.readHead()
	if err != nil {
		return Signature{}, err
	}
	return s.identity(h.ref)
}

// Commit makes one commit on the current branch (or detached HEAD) that
// changes exactly c.Paths relative to HEAD, then updates only those paths'
// entries in .git/index. See the package documentation for how. It returns
// ErrNoChange (and commits nothing) when every path already matches HEAD,
// ErrOperationInProgress during a merge, rebase and the like, and
// ErrIndexLocked when another process holds the index for longer than
// IndexLockTimeout. On any error the branch and the index are left
// unchanged; objects it wrote stay unreferenced until git gc prunes them.
// It returns only once every object it wrote is in place or has failed,
// and reports those failures itself.
// The blobs, trees and commit object are written, and the new index
// written and synced under the name of its lock's owner record, before
// the index lock is taken, so git's locks are held only to check the index
// and move the ref.
func (s *Store) Commit(ctx context.Context, c Change) (res CommitResult, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return CommitResult{}, err
	}
	defer func() {
		// After the commit is published and its locks released.
		if err == nil {
			s.housekeep()
		}
	}()
	tx := &commitTx{s: s, refuseDetached: c.RefuseDetached}
	defer func() { err = tx.end(err) }()
	if err := tx.prepare(c); err != nil {
		return CommitResult{}, fmt.Errorf("commit: %w", err)
	}
	if err := tx.lock(ctx); err != nil {
		return CommitResult{}, fmt.Errorf("commit: %w", err)
	}
	return tx.publish(ctx)
}

// commitTx is one Commit in three steps: prepare reads the files and
// writes the commit's objects and the new index before any git lock is
// taken; lock takes the index lock and checks that what was prepared
// still applies; publish moves the ref and renames the index into place.
// end, which Commit defers, waits for the writes in flight and releases
// what was not published.
type commitTx struct {
	s              *Store
	refuseDetached bool // Change.RefuseDetached
	files          []workFile
	blobs          []plumbing.Hash // the files' blob ids (zero: deleted)
	author         object.Signature
	committer      object.Signature
	msg            string
	onHead         head  // the HEAD commit was built on
	commit         built // the commit built on onHead
	indexPath      string
	ix             *indexFile         // the Store's cached index, edited in place; nil until read
	base           [indexHashLen]byte // checksum of the index file ix was read from
	stale          bool               // editIndex changed the files' entries in ix
	next           preparedIndex      // ix laid out for writing
	staged         *stagedLock        // the index lock's owner record, written before the lock
	ilock          *lockFile          // the index lock; nil until taken
	published      bool               // the new index replaced the file
}

// prepare reads the files and builds the commit and the new index.
func (tx *commitTx) prepare(c Change) error {
	s := tx.s
	rels, err := s.changePaths(c.Paths)
	if err != nil {
		return err
	}
	if op := s.operation(); op != "" {
		return fmt.Errorf("%w: %s", ErrOperationInProgress, op)
	}
	s.cleared = s.cleared[:0]
	s.dirtyDirs = s.dirtyDirs[:0] // left over from a commit that failed

	// Read the files and build the commit on HEAD as it is now before
	// taking any git lock, so that the locks are held for the index and
	// the ref alone: objects are content-addressed and need no lock, and
	// a process killed here leaves unreferenced objects (git gc prunes
	// them), never a lock that blocks the user's git. Under the lock,
	// HEAD is read again and the commit rebuilt if it moved.
	tx.files = make([]workFile, len(rels))
	for i, rel := range rels {
		if tx.files[i], err = readWorkFile(s.abs(rel), rel, s.fileMode); err != nil {
			return err
		}
	}
	if tx.onHead, err = s.readHead(); err != nil {
		return err
	}
	// Refused early, before any lock is taken; checked again under the
	// lock against the HEAD the commit would land on.
	if tx.onHead.detached && tx.refuseDetached {
		return fmt.Errorf("%w at %s", ErrDetachedHead, tx.onHead.hash)
	}
	sig, err := s.author(c.Author, tx.onHead)
	if err != nil {
		return err
	}
	when := s.now()
	tx.author = object.Signature{Name: sig.Name, Email: sig.Email, When: when}
	tx.committer = object.Signature{Name: committerName, Email: sig.Email, When: when}
	tx.msg = c.Message
	if !strings.HasSuffix(tx.msg, "\n") {
		tx.msg += "\n"
	}
	return tx.build()
}

// build writes the commit's objects while other goroutines lay out, hash
// and write the new index.
func (tx *commitTx) build() error {
	s := tx.s
	// The new index depends on the files alone, not on the commit: it is
	// laid out, hashed and written on other goroutines while this one
	// builds the commit's objects, both before any lock is taken. It is
	// written into a fresh owner record of the index lock and synced
	// there; taking the lock links the lock to it (stageLock). Under the
	// lock it is used if the index it was derived from is still the
	// file's; either way it is complete before the branch moves, so that
	// a full disk fails the commit rather than leaving the index behind.
	tx.indexPath = filepath.Join(s.gitDir, "index")
	ix, err := s.loadIndex(tx.indexPath)
	if err != nil {
		return err
	}
	// ix is the Store's cached copy and is edited in place; if the edit is
	// not published, the cache must go (end).
	tx.ix = ix
	tx.blobs = make([]plumbing.Hash, len(tx.files))
	for i, f := range tx.files {
		if f.exists {
			tx.blobs[i] = blobHash(f.data)
		}
	}
	tx.base = ix.sum
	tx.stale = editIndex(ix, tx.files, tx.blobs)
	s.smudgeRacy(ix, tx.files)
	if tx.staged, err = s.stageLock(tx.indexPath); err != nil {
		return fmt.Errorf("lock index: %w", err)
	}
	prepared := s.prepareIndex(ix, tx.staged)
	tx.commit, err = s.buildCommit(tx.onHead, tx.files, tx.blobs, tx.author, tx.committer, tx.msg)
	r := <-prepared
	tx.next = r.p
	if err == nil && r.err != nil {
		err = fmt.Errorf("write index: %w", r.err)
	}
	if err != nil {
		return err
	}
	// The object files reach the disk before the lock is taken; their
	// directories' syncs run on, joined by the lock files' in updateRef.
	return s.startDirSyncs()
}

// preparedResult is what prepareIndex sends.
type preparedResult struct {
	p   preparedIndex
	err error
}

// prepareIndex lays ix out on another goroutine and, when staged is not
// nil, writes it there, and syncs it when the index is to be fsynced.
func (s *Store) prepareIndex(ix *indexFile, staged *stagedLock) <-chan preparedResult {
	prepared := make(chan preparedResult, 1)
	go func() {
		p := s.layoutIndex(ix)
		var err error
		if staged != nil {
			err = s.fillIndex(p, staged.f)
			if err == nil && s.syncs(fsyncIndex) {
				if err = s.fsys.syncFile(staged.f); err == nil {
					staged.synced = true
				}
			}
		}
		prepared <- preparedResult{p, err}
	}()
	return prepared
}

// lock takes the index lock and checks under it that the commit still
// applies; when the index changed since it was read, the new index is
// derived again from the index as it is now.
func (tx *commitTx) lock(ctx context.Context) error {
	s := tx.s
	timeout := s.IndexLockTimeout
	if timeout <= 0 {
		timeout = DefaultIndexLockTimeout
	}
	ilock, err := s.acquireLockFile(ctx, tx.indexPath, timeout, tx.staged)
	if err != nil {
		if errors.Is(err, errTimeout) {
			return fmt.Errorf("%w (%s.lock)", ErrIndexLocked, tx.indexPath)
		}
		return fmt.Errorf("lock index: %w", err)
	}
	tx.ilock = ilock
	// Checked again under the lock: git starts these operations holding it.
	if op := s.operation(); op != "" {
		return fmt.Errorf("%w: %s", ErrOperationInProgress, op)
	}
	if indexIs(tx.indexPath, tx.base) {
		return nil
	}
	// Changed since it was read (git add, another writer): edit the
	// index as it is now.
	s.index = nil
	ix, err := s.loadIndex(tx.indexPath)
	if err != nil {
		return err
	}
	tx.ix = ix
	tx.stale = editIndex(ix, tx.files, tx.blobs)
	s.smudgeRacy(ix, tx.files)
	tx.next = s.layoutIndex(ix)
	if ilock.filled {
		if err := ilock.reset(); err != nil {
			return fmt.Errorf("write index: %w", err)
		}
	}
	return nil
}

// publish moves the ref to the commit, then renames the new index over
// the old one.
func (tx *commitTx) publish(ctx context.Context) (CommitResult, error) {
	s := tx.s
	// refErr, when set, is errMovedNotSynced: the branch has moved, so
	// the index is kept in step, then the error reported.
	refErr := tx.moveRef(ctx)
	if refErr != nil && !errors.Is(refErr, errMovedNotSynced) {
		return CommitResult{}, refErr
	}
	h, commitHash := tx.onHead, tx.commit.hash
	res := CommitResult{Hash: commitHash.String(), Branch: h.branch(), Detached: h.detached, Unborn: h.unborn,
		Cleared: slices.Clone(s.cleared)}
	indexErr := s.publishIndex(tx.ilock)
	if !tx.ilock.done {
		return res, fmt.Errorf("commit %s made, but updating the index failed (run `git reset -q -- <paths>`): %w", commitHash, indexErr)
	}
	tx.keep()
	switch {
	case refErr != nil:
		return res, fmt.Errorf("commit %s made, but it may not survive a power loss: %w", commitHash, refErr)
	case indexErr != nil:
		// Renamed, but the git directory could not be synced.
		return res, fmt.Errorf("commit %s made, but its index update may not survive a power loss: %w", commitHash, indexErr)
	}
	return res, nil
}

// moveRef moves the branch HEAD is on (or HEAD, detached) from
// tx.onHead to tx.commit, rebuilding the commit on HEAD while HEAD moves
// under it. It returns ErrNoChange when the files match HEAD, and an
// error wrapping errMovedNotSynced when the ref moved but its directory
// could not be synced.
func (tx *commitTx) moveRef(ctx context.Context) error {
	s := tx.s
	syncing := tx.ilock.synced
	for attempt := 0; ; attempt++ {
		if attempt == maxRefRetries {
			return fmt.Errorf("commit: %w after %d attempts", ErrRefChanged, attempt)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := tx.rebase(); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		h, b := tx.onHead, tx.commit
		if b.noChange {
			return tx.noChange()
		}
		if err := tx.fillIndex(); err != nil {
			return err
		}
		if s.syncs(fsyncIndex) && !syncing {
			// Flushed alongside the objects; publishIndex renames it.
			syncing = true
			ilock := tx.ilock // not tx: that would move tx to the heap
			s.batch.run(func() error { return ilock.sync(s.fsys) })
		}
		reflogMsg := "commit: " + subject(tx.msg)
		if h.unborn {
			reflogMsg = "commit (initial): " + subject(tx.msg)
		}
		err := s.updateRef(ctx, h, b.hash, Signature{tx.committer.Name, tx.committer.Email}, tx.committer.When, reflogMsg)
		switch {
		case errors.Is(err, errRefMoved):
			continue
		case err != nil && !errors.Is(err, errMovedNotSynced):
			return fmt.Errorf("commit: %w", err)
		}
		return err
	}
}

// rebase reads HEAD and, when it has moved since the commit was built,
// builds the commit again on it.
func (tx *commitTx) rebase() error {
	h, err := tx.s.readHead()
	if err != nil {
		return err
	}
	if h.detached && tx.refuseDetached {
		return fmt.Errorf("%w at %s", ErrDetachedHead, h.hash)
	}
	if h == tx.onHead {
		return nil
	}
	b, err := tx.s.buildCommit(h, tx.files, tx.blobs, tx.author, tx.committer, tx.msg)
	if err != nil {
		return err
	}
	tx.onHead, tx.commit = h, b
	return nil
}

// noChange ends a commit whose files match HEAD already with ErrNoChange.
func (tx *commitTx) noChange() error {
	if !tx.stale {
		// A no-op leaves the user's index alone (the cached copy,
		// edited, goes).
		return ErrNoChange
	}
	if err := tx.fillIndex(); err != nil {
		return err
	}
	// Nothing to commit, but the index may lag HEAD for these paths: a
	// process killed after moving the branch and before publishing the
	// index leaves it so, and git status would then show the commit's
	// files as deleted and untracked. Recovery commits the same paths
	// again; bring their entries in step.
	if err := tx.s.publishIndex(tx.ilock); err != nil {
		return fmt.Errorf("commit: write index: %w", err)
	}
	tx.keep()
	return ErrNoChange
}

// fillIndex writes the new index into its lock file unless it is there
// already (written before the lock was taken).
func (tx *commitTx) fillIndex() error {
	if tx.ilock.filled {
		return nil
	}
	tx.ilock.filled = true
	if err := tx.s.fillIndex(tx.next, tx.ilock.f); err != nil {
		return fmt.Errorf("commit: write index: %w", err)
	}
	return nil
}

// keep records that the new index replaced the file and makes it the
// Store's cached index.
func (tx *commitTx) keep() {
	tx.published = true
	tx.s.keepIndex(tx.next)
}

// end waits for the object writes and syncs in flight, adding their
// errors to err: whatever the exit, none outlives the commit, and their
// errors are this commit's, not the next one's. It then releases what
// was not published: the index lock, its staged owner record and, when
// the index was edited but not published, the Store's cached copy.
func (tx *commitTx) end(err error) error {
	// No sync outlives the call, nor runs while rollback closes the lock.
	err = tx.s.settle(err)
	if tx.ilock != nil {
		tx.ilock.rollback()
	}
	tx.staged.discard()
	if tx.ix != nil && !tx.published {
		tx.s.index = nil
	}
	return err
}

// settle waits for the object writes and syncs in flight and returns err
// with the first of their errors, if any, added.
func (s *Store) settle(err error) error {
	werr := s.batch.wait()
	switch {
	case werr == nil:
		return err
	case err == nil:
		return fmt.Errorf("commit: %w", werr)
	}
	return fmt.Errorf("%w; %w", err, werr)
}

// built is a commit built on a HEAD: its root tree and the commit object;
// noChange when the files match HEAD already (no commit object then).
type built struct {
	root     plumbing.Hash
	hash     plumbing.Hash
	noChange bool
}

// buildCommit writes the blobs, trees and commit object that put files on
// top of h.
func (s *Store) buildCommit(h head, files []workFile, blobs []plumbing.Hash, author, committer object.Signature, msg string) (built, error) {
	base := plumbing.ZeroHash
	var parents []plumbing.Hash
	if !h.unborn {
		pc, err := s.getCommit(h.hash)
		if err != nil {
			return built{}, fmt.Errorf("HEAD: %w", err)
		}
		base, parents = pc.TreeHash, []plumbing.Hash{h.hash}
	}
	root, err := s.applyFiles(base, files, blobs)
	if err != nil {
		return built{}, err
	}
	b := built{root: root}
	if root == base && !h.unborn || h.unborn && root == emptyTreeHash {
		b.noChange = true
		return b, nil
	}
	co := &object.Commit{Author: author, Committer: committer, Message: msg, TreeHash: root, ParentHashes: parents}
	if b.hash, err = s.writeCommit(co); err != nil {
		return built{}, err
	}
	return b, nil
}

// publishIndex renames index.lock over the index, syncing it first and the
// git directory after when core.fsync asks for the index.
func (s *Store) publishIndex(ilock *lockFile) error {
	durable := s.syncs(fsyncIndex)
	release := holdReplaced(ilock.target, &s.releases)
	err := ilock.publish(s.fsys, durable)
	release()
	if err != nil {
		return err
	}
	if durable {
		return s.fsys.syncDir(filepath.Dir(ilock.target))
	}
	return nil
}

// preparedIndex is a new index laid out and hashed, ready to be written:
// its pieces, in order, and whether they are one buffer laid out in full.
type preparedIndex struct {
	ix   *indexFile
	segs [][]byte
	full bool
}

// editIndex sets the index entries of files to the work tree's stat data
// and blobs (their ids) and removes those of files that are gone. It
// reports whether an entry's object or mode changed, or an entry came or
// went.
func editIndex(ix *indexFile, files []workFile, blobs []plumbing.Hash) (stale bool) {
	for i, f := range files {
		e, ok := ix.lookup(f.rel)
		if f.exists {
			stale = stale || !ok || e.hash() != blobs[i] || e.mode() != f.mode
			ix.set(newIndexEntry(f.rel, f.stat, f.mode, blobs[i]))
		} else {
			stale = stale || ok
			ix.remove(f.rel)
		}
	}
	return stale
}

// layoutIndex lays ix out for writing. Runs of entries unchanged since
// the index was read or last laid out in full stay in the bytes they are
// in (copying a large index on every commit cost more than the few
// entries a commit changes; docs/git.md, "Server writes, second round
// (2026-12-02)"); once more than maxLooseIndexEntries
// are encoded one by one, the index is laid out in one buffer again
// (full), which keepIndex then makes its entries' source.
func (s *Store) layoutIndex(ix *indexFile) preparedIndex {
	spill, spans, loose := ix.layout(s.indexSpill)
	s.indexSpill = spill
	p := preparedIndex{ix: ix, segs: make([][]byte, 0, len(spans))}
	maxLoose := s.maxLooseIndex
	if maxLoose == 0 {
		maxLoose = maxLooseIndexEntries
	}
	p.full = ix.version == 4 || loose > maxLoose
	if p.full {
		s.indexBuf = ix.join(s.indexBuf, spans, spill)
		p.segs = append(p.segs, s.indexBuf)
	} else {
		for _, sp := range spans {
			p.segs = append(p.segs, sp.bytes(ix.src, spill))
		}
	}
	return p
}

// fillIndex writes p and its checksum to f, computing the checksum into
// p's index: the bytes are written on another goroutine while this one
// hashes them, and when the index is to be fsynced, the writeback of
// every chunk written starts at once.
func (s *Store) fillIndex(p preparedIndex, f *os.File) error {
	var werr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		durable := s.syncs(fsyncIndex)
		var written, flushed int64
		for _, b := range p.segs {
			for len(b) > 0 {
				n := min(len(b), indexWritebackChunk)
				if _, werr = f.Write(b[:n]); werr != nil {
					return
				}
				b = b[n:]
				written += int64(n)
				if durable && written-flushed >= indexWritebackChunk {
					startWriteback(f, flushed, written-flushed)
					flushed = written
				}
			}
		}
	}()
	h := sha1.New()
	for _, b := range p.segs {
		h.Write(b)
	}
	h.Sum(p.ix.sum[:0])
	<-done
	if werr != nil {
		return werr
	}
	_, err := f.Write(p.ix.sum[:])
	return err
}

// indexIs reports whether the index file at path is the one whose
// checksum is sum (zero: no index file; an index git wrote without a
// checksum, index.skipHash, is never taken for unchanged).
func indexIs(path string, sum [indexHashLen]byte) bool {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return sum == [indexHashLen]byte{}
	}
	if err != nil || sum == [indexHashLen]byte{} {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() < indexHeaderLen+indexHashLen {
		return false
	}
	var got [indexHashLen]byte
	_, err = f.ReadAt(got[:], fi.Size()-indexHashLen)
	return err == nil && got == sum
}

// indexWritebackChunk is how many bytes of the index fillIndex writes
// before it starts their writeback when the index is to be fsynced: the
// device then writes while the rest is hashed and written, and the fsync
// waits for the last chunk, not for the whole index (docs/git.md, "Server
// writes, third round (2026-12-02): the commit's wall time").
const indexWritebackChunk = 1 << 20

// maxLooseIndexEntries bounds the entries layoutIndex encodes one by one
// before it lays the index out in one buffer again.
const maxLooseIndexEntries = 512

// keepIndex makes p's index, just written and published, the Store's
// cached index; after a full layout its entries point into the new buffer
// and the old one is kept for the next full layout.
func (s *Store) keepIndex(p preparedIndex) {
	if p.full {
		spare := p.ix.src
		p.ix.adopt(s.indexBuf)
		s.indexBuf = spare
	}
	s.index = p.ix
}

// author picks the commit author.
func (s *Store) author(a *Signature, h head) (Signature, error) {
	if a != nil {
		if strings.TrimSpace(a.Name) == "" || strings.TrimSpace(a.Email) == "" {
			return Signature{}, fmt.Errorf("%w: author needs a name and an email", ErrNoIdentity)
		}
		if strings.ContainsAny(a.Name+a.Email, "<>\n") {
			return Signature{}, fmt.Errorf("author %q <%s>: name and email must not contain <, > or newlines", a.Name, a.Email)
		}
		return *a, nil
	}
	return s.identity(h.ref)
}

func subject(msg string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	return line
}

// changePaths validates and de-duplicates the paths of a change.
func (s *Store) changePaths(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no paths given", ErrNoChange)
	}
	seen := make(map[string]bool, len(paths))
	rels := make([]string, 0, len(paths))
	for _, p := range paths {
		rel, err := s.rel(p)
		if err != nil {
			return nil, err
		}
		if rel == "" {
			return nil, fmt.Errorf("%w: %s is the work-tree root, not a file", ErrOutsideWorkTree, p)
		}
		if !seen[rel] {
			seen[rel] = true
			rels = append(rels, rel)
		}
		if err := s.checkNoSymlinkParent(rel); err != nil {
			return nil, err
		}
	}
	sort.Strings(rels)
	return rels, nil
}

// checkNoSymlinkParent refuses a path that goes through a symbolic link
// inside the work tree: git tracks the link itself, not what is behind it.
func (s *Store) checkNoSymlinkParent(rel string) error {
	for i := 0; i < len(rel); i++ {
		if rel[i] != '/' {
			continue
		}
		fi, err := os.Lstat(s.abs(rel[:i]))
		if err != nil {
			return nil // missing parents are created by the caller or mean a deletion
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%w: %s is beyond the symbolic link %s", ErrOutsideWorkTree, rel, rel[:i])
		}
	}
	return nil
}

func (s *Store) writeCommit(c *object.Commit) (plumbing.Hash, error) {
	obj := &plumbing.MemoryObject{}
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	r, _ := obj.Reader()
	data, err := io.ReadAll(r)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return s.writeObject(plumbing.CommitObject, data)
}

// pathChange is one file to set or delete, relative to the tree it applies
// to.
type pathChange struct {
	rel   string
	del   bool
	mode  uint32
	hash  plumbing.Hash
	index int // position in the caller's files, to report blob ids back
}

// applyFiles writes blobs for files that differ from the base tree (blobs
// holds their ids) and returns the new root tree.
func (s *Store) applyFiles(base plumbing.Hash, files []workFile, blobs []plumbing.Hash) (plumbing.Hash, error) {
	changes := make([]pathChange, 0, len(files))
	for i, f := range files {
		ch := pathChange{rel: f.rel, del: !f.exists, mode: f.mode, index: i}
		if f.exists {
			old, found, err := s.lookupPath(base, f.rel)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if found && !s.fileMode && (old.mode == modeFile || old.mode == modeExec) && f.mode != modeSymlink {
				ch.mode = old.mode // core.fileMode=false: keep the recorded bit
			}
			ch.hash = blobs[i]
			if !found || old.hash != ch.hash {
				if _, err := s.writeObject(plumbing.BlobObject, f.data); err != nil {
					return plumbing.ZeroHash, err
				}
			}
		}
		changes = append(changes, ch)
	}
	root, nonEmpty, err := s.editTree(base, changes)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if !nonEmpty {
		if root, err = s.writeObject(plumbing.TreeObject, nil); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	return root, nil
}

func blobHash(data []byte) plumbing.Hash {
	return plumbing.ComputeHash(plumbing.BlobObject, data)
}

// editTree applies changes (paths relative to this tree, sorted) to the tree
// base (zero: none), writing the trees that change. It returns the new
// tree's id and whether it has any entries; an empty tree is not written.
func (s *Store) editTree(base plumbing.Hash, changes []pathChange) (plumbing.Hash, bool, error) {
	var orig []treeEntry
	var t *tree // the base's cached tree when edited in place
	if !base.IsZero() {
		bt, err := s.getTree(base)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		orig = bt.entries
		if len(orig) >= editInPlaceEntries {
			// A large tree is edited in place: it leaves the cache under
			// its old id and comes back under its new one, or is read
			// again if the edit fails.
			s.trees.remove(base)
			t = bt
		}
	}
	inPlace := t != nil
	if !inPlace {
		t = &tree{entries: append(make([]treeEntry, 0, len(orig)+len(changes)), orig...)}
	}
	modified := false
	for i := 0; i < len(changes); {
		dir, _, nested := strings.Cut(changes[i].rel, "/")
		if !nested {
			modified = t.applyFile(changes[i]) || modified
			i++
			continue
		}
		// Gather every change below this directory.
		j := i
		var sub []pathChange
		for ; j < len(changes); j++ {
			d, rest, ok := strings.Cut(changes[j].rel, "/")
			if !ok || d != dir {
				break
			}
			c := changes[j]
			c.rel = rest
			sub = append(sub, c)
		}
		i = j
		subBase := plumbing.ZeroHash
		if k, ok := t.search(dir, true); ok {
			subBase = t.entries[k].hash
		} else if k, ok := t.search(dir, false); ok {
			if t.entries[k].mode == modeGitlink {
				return plumbing.ZeroHash, false, fmt.Errorf("%s is a submodule", dir)
			}
			if allDeletes(sub) {
				continue // deleting below a file: nothing to do
			}
			t.entries = append(t.entries[:k], t.entries[k+1:]...) // a file becomes a directory
			modified = true
		}
		h, nonEmpty, err := s.editTree(subBase, sub)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		k, exists := t.search(dir, true)
		switch {
		case !nonEmpty && exists:
			t.entries = append(t.entries[:k], t.entries[k+1:]...)
			modified = true
		case !nonEmpty:
		case exists && t.entries[k].hash == h:
		case exists:
			t.entries[k].hash = h
			modified = true
		default:
			t.insert(k, treeEntry{name: dir, mode: modeDir, hash: h})
			modified = true
		}
	}
	if !modified {
		if inPlace {
			s.trees.put(base, t, len(t.entries)+1) // unchanged
		}
		return base, len(orig) > 0, nil
	}
	if len(t.entries) == 0 {
		return plumbing.ZeroHash, false, nil
	}
	// The encoding is only written out, so one buffer serves every tree
	// (a new buffer a write was much of a large vault's garbage;
	// docs/git.md, "Server writes, second round (2026-12-02)").
	s.treeBuf = encodeTree(s.treeBuf, t.entries)
	h, err := s.writeObject(plumbing.TreeObject, s.treeBuf)
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	s.trees.put(h, t, len(t.entries)+1)
	return h, true, nil
}

// editInPlaceEntries is the size from which editTree changes a cached tree
// in place instead of a copy: copying a large folder's tree on every write
// made the server collect garbage every few dozen writes (docs/git.md,
// "Server writes, second round (2026-12-02)").
const editInPlaceEntries = 1024

func allDeletes(cs []pathChange) bool {
	for _, c := range cs {
		if !c.del {
			return false
		}
	}
	return true
}

// applyFile sets or deletes one file entry; it reports whether the tree
// changed.
func (t *tree) applyFile(c pathChange) bool {
	k, isFile := t.search(c.rel, false)
	if c.del {
		if !isFile {
			return false
		}
		t.entries = append(t.entries[:k], t.entries[k+1:]...)
		return true
	}
	if isFile {
		if t.entries[k].hash == c.hash && t.entries[k].mode == c.mode {
			return false
		}
		t.entries[k].hash, t.entries[k].mode = c.hash, c.mode
		return true
	}
	if d, isDir := t.search(c.rel, true); isDir {
		t.entries = append(t.entries[:d], t.entries[d+1:]...) // a directory becomes a file
		k, _ = t.search(c.rel, false)
	}
	t.insert(k, treeEntry{name: c.rel, mode: c.mode, hash: c.hash})
	return true
}

func (t *tree) insert(k int, e treeEntry) {
	t.entries = append(t.entries, treeEntry{})
	copy(t.entries[k+1:], t.entries[k:])
	t.entries[k] = e
}

// lookupPath finds the entry at a slash path below a tree.
func (s *Store) lookupPath(root plumbing.Hash, rel string) (treeEntry, bool, error) {
	cur := treeEntry{mode: modeDir, hash: root}
	if root.IsZero() {
		return treeEntry{}, false, nil
	}
	for rel != "" {
		if cur.mode != modeDir {
			return treeEntry{}, false, nil
		}
		var comp string
		comp, rel, _ = strings.Cut(rel, "/")
		e, ok, err := s.findEntry(cur.hash, comp)
		if err != nil || !ok {
			return treeEntry{}, false, err
		}
		cur = e
	}
	return cur, true, nil
}

// loadIndex returns the index, decoding the file only if it is not the one
// this Store last read or wrote (same trailing checksum). The result is the
// Store's cached copy: a caller that edits it must publish it or drop the
// cache.
func (s *Store) loadIndex(path string) (*indexFile, error) {
	if s.prefetched != nil {
		// PrefetchIndex's copy stands in for the cached one; the
		// checksum below decides whether it is still the file's.
		if ix := <-s.prefetched; ix != nil {
			s.index = ix
		}
		s.prefetched = nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		s.index = nil
		return &indexFile{version: 2}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	if s.index != nil && fi.Size() >= indexHeaderLen+indexHashLen && s.index.sum != ([indexHashLen]byte{}) {
		var sum [indexHashLen]byte
		if _, err := f.ReadAt(sum[:], fi.Size()-indexHashLen); err == nil && sum == s.index.sum {
			m := uint32(fi.ModTime().Unix())
			if m < s.index.mtimeSec {
				// Set back by hand: entries left off the racy list
				// may be racy again.
				s.index.racyKnown = false
			}
			s.index.mtimeSec = m
			return s.index, nil
		}
	}
	ix, err := decodeIndexFrom(f, fi.Size())
	if err != nil {
		s.index = nil
		return nil, fmt.Errorf("read index: %w", err)
	}
	ix.mtimeSec = uint32(fi.ModTime().Unix())
	s.index = ix
	return ix, nil
}

// readIndexFile reads and decodes the index file at path.
func readIndexFile(path string) (*indexFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return decodeIndexFrom(f, fi.Size())
}

// decodeIndexFrom reads size bytes of an index file from f and decodes them.
func decodeIndexFrom(f io.Reader, size int64) (*indexFile, error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return decodeIndex(data)
}
