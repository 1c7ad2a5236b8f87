package gitstore

import (
	"encoding/binary"
	"os"
	"slices"
)

// Racily clean entries. Git trusts an index entry whose stat data matches
// the file, but a file rewritten in the same second as the index, at the
// same size, matches at the one-second precision most builds of git
// compare (git without USE_NSEC, Debian's among them). Git therefore
// re-reads every entry whose mtime is not older than the index file
// itself ("racily clean"), and when it writes a new index, which is newer
// and would end that doubt, it first zeroes the size of each such entry
// whose file no longer matches (ce_smudge_racily_clean_entry), so that
// the change is still seen. A commit here writes the index too and must
// do the same for the entries it carries over: without it, a file the
// user changed within a second of a git command became invisible to git
// status and git diff for good, and a checkout could overwrite it.

// smudgeRacy zeroes the size of every stage-0 entry of ix, other than
// those of skip (just set from their files), that is racily clean against
// the index file ix was read from and whose file's content no longer
// matches the entry's object.
//
// Only the entries listed in ix.racy are looked at: every entry once
// after the index is decoded, then those still racy and the ones each
// commit sets, since an index file only gets newer. Reading all of them
// on every commit touched every entry of a large index.
func (s *Store) smudgeRacy(ix *indexFile, skip []workFile) {
	if !ix.racyKnown {
		ix.racy = ix.racy[:0]
		for _, e := range ix.entries {
			if e.racy(ix.mtimeSec) {
				ix.racy = append(ix.racy, e.name)
			}
		}
		ix.racyKnown = true
	}
	kept := ix.racy[:0]
	for _, name := range ix.racy {
		i, ok := ix.find(name)
		if !ok || !ix.entries[i].racy(ix.mtimeSec) {
			continue // gone, or no longer racy: it stays that way
		}
		kept = append(kept, name)
		e := ix.entries[i]
		if isSkipped(skip, name) || !s.changedSince(e) {
			continue
		}
		h := slices.Clone(e.head)
		binary.BigEndian.PutUint32(h[36:], 0)
		ix.entries[i] = indexEntry{name: e.name, head: h, off: -1}
	}
	ix.racy = kept
	// The files this commit sets are racy against the index it writes
	// until a later one is written in a later second.
	for _, f := range skip {
		if f.exists && !slices.Contains(ix.racy, f.rel) {
			ix.racy = append(ix.racy, f.rel)
		}
	}
}

// racy reports whether e is a stage-0 entry of a plain file or symlink
// whose mtime is not older than sec, the second its index was written,
// and whose size is not already zero (smudged, or an empty file). Entries
// with extended flags (skip-worktree, intent-to-add) are left to git.
func (e indexEntry) racy(sec uint32) bool {
	be := binary.BigEndian
	flags := be.Uint16(e.head[indexFlagsOffset:])
	if flags&indexFlagExt != 0 || e.stage() != 0 {
		return false
	}
	if m := e.mode(); m != modeFile && m != modeExec && m != modeSymlink {
		return false
	}
	return sec != 0 && be.Uint32(e.head[8:]) >= sec && be.Uint32(e.head[36:]) != 0
}

// changedSince reports whether the work-tree file of e, of the same size
// (a different size git sees for itself), holds other content than e's
// object. A file whose stat data still matches the entry to the
// nanosecond is taken as unchanged, as a git built with USE_NSEC takes
// it: only a rewrite within the same clock tick escapes that, and
// re-reading every racy file on every commit slowed a burst of writes,
// each racy against the last (docs/git.md, "Racily clean entries").
func (s *Store) changedSince(e indexEntry) bool {
	fi, err := os.Lstat(s.abs(e.name))
	if err != nil || uint32(fi.Size()) != binary.BigEndian.Uint32(e.head[36:]) || e.statMatches(statFields(fi)) {
		return false
	}
	wf, err := readWorkFile(s.abs(e.name), e.name, s.fileMode)
	if err != nil || !wf.exists {
		return false
	}
	return blobHash(wf.data) != e.hash()
}

func isSkipped(files []workFile, name string) bool {
	for _, f := range files {
		if f.rel == name {
			return true
		}
	}
	return false
}
