package gitstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Housekeeping. git packs loose objects with `gc --auto` after its own
// commands only, and memvault writes its objects itself: thousands of
// writes between the user's own git commands left thousands of loose
// objects (issue 24 finding 8; docs/git.md, "Housekeeping: packing the
// loose objects (2026-12-06)"). So after a commit that leaves more loose
// objects than git's
// own threshold (gc.auto, estimated as git does), Commit starts `git gc
// --auto` in the background, off the write's path, one at a time.
//
// A count is not enough: each write of a memory in a large folder leaves
// a new tree of that folder (tens of KB at 1,000 memories), so 3,775
// loose objects, under gc.auto's 6,700, weighed 219 MiB. When the loose
// objects' bytes (estimated the same way) pass defaultLooseBytes, Commit
// starts an incremental `git repack -d` instead: it packs the loose
// objects into one new pack (consecutive trees delta well) and removes
// them, leaving the packs that exist alone; git gc --auto merges packs
// once they pass gc.autoPackLimit.

// defaultGCAuto is git's default gc.auto.
const defaultGCAuto = 6700

// defaultLooseBytes bounds the loose objects' size before Commit packs
// them: about 500 writes at 1,000 memories in one folder.
const defaultLooseBytes = 32 << 20

// defaultGCAutoPackLimit is git's default gc.autoPackLimit.
const defaultGCAutoPackLimit = 50

// gcAutoConfig reads gc.auto as git does: 0 or less turns automatic
// housekeeping off.
func gcAutoConfig(cfg *gitConfig) int { return gcInt(cfg, "auto", defaultGCAuto) }

// gcInt reads gc.<key> as a number, def when unset or not one.
func gcInt(cfg *gitConfig, key string, def int) int {
	if !cfg.has("gc", key) {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(cfg.get("gc", "", key)))
	if err != nil {
		return def
	}
	return n
}

// gcAutoArgs run git gc --auto in the foreground of its process, without
// its pack-refs and reflog expiry: both take the branch's lock
// (refs/heads/main.lock), and a write that met it failed ("held by
// another process"; write 2,044 of 5,000 through one serve). memvault's
// housekeeping is about objects; the refs are left to the user's own gc.
var gcAutoArgs = []string{"-c", "gc.autoDetach=false", "-c", "gc.packRefs=false", "-c", "gc.reflogExpire=never", "-c", "gc.reflogExpireUnreachable=never", "gc", "--auto", "--quiet"}

// housekeeping returns the git command that packs what the commits left,
// or nil: git gc --auto past gc.auto loose objects, else git repack -d
// past looseBytes. The count is estimated as git estimates it
// (too_many_loose_objects): what objects/17 holds, times 256. The bytes
// are estimated from the 16 folders objects/10 to objects/1f, times 16:
// a few large trees make most of them, and one folder's share of those
// varied too much (4,560 loose objects, 193 MiB, before one estimate
// passed 32 MiB). Repacks add a pack each: once the packs pass
// gc.autoPackLimit, git gc --auto (which then merges them) runs instead.
// gc.auto 0 or less turns all off.
func (s *Store) housekeeping() []string {
	if s.gcAuto <= 0 {
		return nil
	}
	n, size := 0, int64(0)
	for dir := 0x10; dir <= 0x1f; dir++ {
		ents, err := os.ReadDir(filepath.Join(s.commonDir, "objects", fmt.Sprintf("%02x", dir)))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if len(e.Name()) != 38 || !isHex(e.Name()) {
				continue
			}
			if dir == 0x17 {
				n++
			}
			if fi, err := e.Info(); err == nil {
				size += fi.Size()
			}
		}
	}
	limit := s.looseBytes
	if limit == 0 {
		limit = defaultLooseBytes
	}
	switch {
	case n > (s.gcAuto+255)/256:
		return gcAutoArgs
	case size*16 > limit:
		if s.gcAutoPackLimit > 0 && s.countPacks() > s.gcAutoPackLimit {
			return gcAutoArgs
		}
		return []string{"repack", "-d", "-q"}
	}
	return nil
}

// countPacks counts the packs in objects/pack.
func (s *Store) countPacks() int {
	packs, _ := filepath.Glob(filepath.Join(s.commonDir, "objects", "pack", "*.pack"))
	return len(packs)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// housekeep starts what housekeeping names, unless one started by this
// store still runs (16 ReadDirs otherwise); it returns at once. git runs in the foreground of its
// own process (gc.autoDetach=false), which this store waits for in a
// goroutine, so that two never run at once from here (and git's gc.pid
// keeps another process's gc away). A CLI that exits leaves it running to
// its end.
func (s *Store) housekeep() {
	if s.NoHousekeeping || s.gcRunning.Load() {
		return
	}
	args := s.housekeeping()
	if args == nil || !s.gcRunning.CompareAndSwap(false, true) {
		return
	}
	git, err := exec.LookPath("git")
	if err != nil {
		s.gcRunning.Store(false)
		return
	}
	cmd := exec.Command(git, args...)
	cmd.Dir = s.root
	if err := cmd.Start(); err != nil {
		s.gcRunning.Store(false)
		return
	}
	done := make(chan struct{})
	s.gcDone.Store(&done)
	go func() {
		cmd.Wait() // a failed gc or repack is git's to report when run by hand
		s.gcRunning.Store(false)
		close(done)
	}()
}

// WaitHousekeeping waits for the gc or repack housekeep started, if one
// runs. Close does not wait (a CLI leaves it running to its end), so a
// test that removes the repository afterwards waits here first: a repack
// still writing into .git/objects made TempDir's cleanup fail
// ("directory not empty") in BenchmarkWriteCommit.
func (s *Store) WaitHousekeeping(ctx context.Context) error {
	p := s.gcDone.Load()
	if p == nil {
		return nil
	}
	select {
	case <-*p:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Objects is the size of a repository's object store.
type Objects struct {
	// Loose counts the loose objects; LooseBytes is their size on disk.
	Loose      int
	LooseBytes int64
	// Packs counts the packs; PackBytes is their size (.pack files).
	Packs     int
	PackBytes int64
	// GCAuto is gc.auto, the loose objects past which git gc --auto packs
	// (0: never).
	GCAuto int
}

// ObjectStats counts the loose objects and packs (a read of the 256
// object folders).
func (s *Store) ObjectStats() (Objects, error) {
	o := Objects{GCAuto: max(s.gcAuto, 0)}
	objects := filepath.Join(s.commonDir, "objects")
	for i := range 256 {
		dir := filepath.Join(objects, fmt.Sprintf("%02x", i))
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if len(e.Name()) != 38 || !isHex(e.Name()) {
				continue
			}
			o.Loose++
			if fi, err := e.Info(); err == nil {
				o.LooseBytes += fi.Size()
			}
		}
	}
	packs, err := filepath.Glob(filepath.Join(objects, "pack", "*.pack"))
	if err != nil {
		return o, err
	}
	for _, p := range packs {
		if fi, err := os.Stat(p); err == nil {
			o.Packs++
			o.PackBytes += fi.Size()
		}
	}
	return o, nil
}
