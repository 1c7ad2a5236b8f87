package gitstore

import (
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// DefaultIndexLockTimeout is how long Commit waits for another process's
// .git/index.lock when Store.IndexLockTimeout is zero.
const DefaultIndexLockTimeout = 5 * time.Second

// Cache sizes: decoded trees are bounded by their total number of entries,
// commits by count. A 2,500-entry folder tree costs 2,500.
const (
	treeCacheEntries = 1 << 18
	commitCacheSize  = 1 << 14
	lookupCacheSize  = 1 << 16
	objectCacheBytes = 16 * cache.MiByte
)

// Store is one git repository with a work tree. It is safe for concurrent
// use by multiple goroutines: calls are serialised internally because go-git
// is not goroutine-safe. Set the exported fields before first use.
type Store struct {
	// IndexLockTimeout bounds how long Commit waits, with backoff, for
	// .git/index.lock held by another process. Zero means
	// DefaultIndexLockTimeout.
	IndexLockTimeout time.Duration
	// Now returns the time recorded in new commits. Nil means time.Now.
	Now func() time.Time
	// NoSync turns off the fsync calls that make a commit durable across a
	// power loss. By default Commit syncs what the repository's core.fsync
	// names, or, when it is unset, new loose objects, the ref and the
	// index, each before the rename that publishes it, and the directories
	// after (see the package documentation). NoSync is for tests and
	// benchmarks that make thousands of commits in throwaway repositories.
	NoSync bool
	// NoHousekeeping keeps Commit from starting git gc --auto or git
	// repack -d when loose objects pass gc.auto or their bytes a bound
	// (housekeeping.go); for benchmarks that measure
	// the writes alone.
	NoHousekeeping bool
	// NoGitCLIReads keeps long history walks (WalkPathChanges past
	// minCLIWalk commits) in Go instead of reading `git log` (see
	// pathchanges_cli.go). The zero value uses git when it is installed.
	NoGitCLIReads bool

	root      string // absolute work-tree root, symlinks resolved
	gitDir    string // per-worktree git dir: HEAD, index, MERGE_HEAD, logs/HEAD
	commonDir string // shared git dir: objects, refs, packed-refs, config
	// gcAuto is gc.auto; looseBytes the loose bytes past which Commit
	// repacks (0: defaultLooseBytes; tests set it); gcRunning is set while
	// a housekeep started runs, gcDone holds the channel its end closes.
	gcAuto          int
	gcAutoPackLimit int
	looseBytes      int64
	gcRunning       atomic.Bool
	gcDone          atomic.Pointer[chan struct{}]
	// liveAt tells whether a live git or memvault process works in the
	// repository (orphanLock); nil means processAt, tests set their own.
	liveAt func(dirs []string) (live, ok bool)

	fileMode bool // core.fileMode: record the executable bit
	// looseLevel is core.looseCompression (else core.compression) as a
	// zlib level; looseLevelUnset when neither is set (see looseLevelFor).
	looseLevel int
	logRefs    bool           // core.logAllRefUpdates: write reflogs for branches
	fsync      fsyncComponent // core.fsync: which writes Commit syncs unless NoSync
	fsys       syncFS         // syncs and renames; a recorder in tests

	lockCh chan struct{} // in-process half of Lock
	owner  lockOwner     // this process, as its git locks' owner records name it

	mu            sync.Mutex // guards everything below
	storer        *filesystem.Storage
	repo          *git.Repository
	trees         *lru[plumbing.Hash, *tree]
	lookups       *lru[lookupKey, lookupResult] // single-name lookups in trees not decoded
	commits       *lru[plumbing.Hash, *object.Commit]
	index         *indexFile                             // last index read or written, reused while its checksum matches
	indexBuf      []byte                                 // encoding buffer for the index, reused between commits
	indexSpill    []byte                                 // layoutIndex's buffer for what is not a run of unchanged entries
	maxLooseIndex int                                    // maxLooseIndexEntries unless set (by tests)
	zw            [zlib.BestCompression + 2]*zlib.Writer // by level+1 (-1 is zlib's default), reused
	treeBuf       []byte                                 // editTree's encoding buffer, reused
	storedBuf     []byte                                 // writeObject's buffer for a stored (uncompressed) object, reused
	zr            io.ReadCloser
	packs         []*pack
	packed        *lru[packKey, packedObject] // inflated packed objects, for delta bases
	packsLoaded   bool
	dirtyDirs     []string        // object directories renamed into, not yet synced
	batch         syncBatch       // object and lock-file syncs in flight
	swept         map[string]bool // lock targets whose stale owner records were swept
	cleared       []StaleLock     // stale locks the current Commit removed
	closed        bool
	headSeen      *headStamp // Head's last answer and its files' stamps (headstamp.go)

	prefetch   sync.WaitGroup  // PrefetchIndex's read; Close waits for it
	releases   sync.WaitGroup  // closes of replaced index files (holdReplaced); Close waits for them
	prefetched chan *indexFile // its result (nil: unreadable), for the next loadIndex
}

// Open finds the work tree containing dir (dir itself or a parent) and opens
// its repository. A `.git` file (linked worktree, submodule) is followed. It
// returns ErrNotRepository if there is none and ErrUnsupported for
// repositories this package cannot write safely.
func Open(ctx context.Context, dir string) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root, gitDir, err := findRepository(abs)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	commonDir := commonDirOf(gitDir)
	s := &Store{
		root:      root,
		gitDir:    gitDir,
		commonDir: commonDir,
		lockCh:    make(chan struct{}, 1),
		owner:     currentOwner(),
		fsys:      osFS{},
		trees:     newLRU[plumbing.Hash, *tree](treeCacheEntries),
		commits:   newLRU[plumbing.Hash, *object.Commit](commitCacheSize),
		lookups:   newLRU[lookupKey, lookupResult](lookupCacheSize),
		packed:    newLRU[packKey, packedObject](packBaseCacheBytes),
	}
	if err := s.readRepoConfig(); err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	var dotFS billy.Filesystem = osfs.New(gitDir, osfs.WithBoundOS())
	if commonDir != gitDir {
		dotFS = dotgit.NewRepositoryFilesystem(dotFS, osfs.New(commonDir, osfs.WithBoundOS()))
	}
	s.storer = filesystem.NewStorageWithOptions(dotFS, cache.NewObjectLRU(objectCacheBytes),
		filesystem.Options{AlternatesFS: osfs.New("/", osfs.WithBoundOS())})
	s.repo, err = git.Open(s.storer, osfs.New(root, osfs.WithBoundOS()))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	return s, nil
}

// Init creates a repository with a work tree at dir, like `git init`, and
// opens it. The initial branch is init.defaultBranch from the user's git
// configuration, or "master" as in git. If dir already holds a repository it
// is opened unchanged.
func Init(ctx context.Context, dir string) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		return Open(ctx, dir)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("init %s: %w", dir, err)
	}
	branch := "master"
	if cfg, err := loadUserConfig(""); err == nil {
		if b := cfg.get("init", "", "defaultbranch"); b != "" {
			branch = b
		}
	}
	_, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(branch)},
	})
	if err != nil {
		return nil, fmt.Errorf("init %s: %w", dir, err)
	}
	return Open(ctx, dir)
}

// findRepository walks up from dir to the first directory with a `.git`
// directory or `gitdir:` file.
func findRepository(dir string) (root, gitDir string, err error) {
	for d := dir; ; {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		switch {
		case err == nil && fi.IsDir():
			if isGitDir(dotgit) {
				return d, dotgit, nil
			}
		case err == nil && fi.Mode().IsRegular():
			gd, err := readGitFile(dotgit)
			if err != nil {
				return "", "", err
			}
			if !isGitDir(gd) {
				return "", "", fmt.Errorf("%w: %s points to %s, which is not a git directory", ErrNotRepository, dotgit, gd)
			}
			return d, gd, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", "", fmt.Errorf("stat %s: %w", dotgit, err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", ErrNotRepository
		}
		d = parent
	}
}

// readGitFile follows a `.git` file ("gitdir: <path>").
func readGitFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", fmt.Errorf("%w: %s has no gitdir line", ErrNotRepository, path)
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	if real, err := filepath.EvalSymlinks(target); err == nil {
		target = real
	}
	return filepath.Clean(target), nil
}

func isGitDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	for _, p := range []string{"objects", "commondir"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			return true
		}
	}
	return false
}

// readRepoConfig reads the repository settings this package honours and
// refuses formats it cannot write.
func (s *Store) readRepoConfig() error {
	cfg, err := loadRepoConfig(s.commonDir, s.gitDir)
	if err != nil {
		return err
	}
	if f := cfg.get("extensions", "", "objectformat"); f != "" && !strings.EqualFold(f, "sha1") {
		return fmt.Errorf("%w: object format %s", ErrUnsupported, f)
	}
	if f := cfg.get("extensions", "", "refstorage"); f != "" && !strings.EqualFold(f, "files") {
		return fmt.Errorf("%w: ref storage %s", ErrUnsupported, f)
	}
	s.fileMode = cfg.getBool("core", "filemode", true)
	s.logRefs = cfg.getBool("core", "logallrefupdates", !cfg.getBool("core", "bare", false))
	// core.fsync is usually set globally; the repository's value wins. A
	// user config git itself would reject is not this setting's concern
	// (Identity reports it), so it is then read from the repository alone.
	all := cfg
	if user, err := loadUserConfig(s.gitDir); err == nil {
		all = &gitConfig{files: append(user.files, cfg.files...)}
	}
	s.fsync = fsyncConfig(all)
	s.looseLevel = looseCompression(all)
	s.gcAuto = gcAutoConfig(all)
	s.gcAutoPackLimit = gcInt(all, "autopacklimit", defaultGCAutoPackLimit)
	return nil
}

// looseLevelUnset marks core.looseCompression and core.compression unset.
const looseLevelUnset = -100

// largeObjectBytes is the size from which a loose object is stored
// without compression unless the configuration names a level: the tree
// of a memory folder of more than about 1,400 files. Deflating a large
// folder's tree took most of a commit's CPU to save a part of its size
// that git gc recovers when it packs (docs/git.md, "Server writes: the
// folder's tree object").
const largeObjectBytes = 64 << 10

// looseCompression reads core.looseCompression, else core.compression,
// as git does: -1 is zlib's default level, 0 to 9 the level;
// looseLevelUnset when neither is set or the value is not a level.
func looseCompression(cfg *gitConfig) int {
	for _, key := range []string{"loosecompression", "compression"} {
		if !cfg.has("core", key) {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(cfg.get("core", "", key)))
		switch {
		case err != nil || n < -1 || n > zlib.BestCompression:
			return looseLevelUnset
		case n == -1:
			return zlib.DefaultCompression
		}
		return n
	}
	return looseLevelUnset
}

// looseLevelFor is the zlib level of a loose object of size bytes: the
// configured one, else git's default (level 1) below largeObjectBytes
// and none from there.
func (s *Store) looseLevelFor(size int) int {
	switch {
	case s.looseLevel != looseLevelUnset:
		return s.looseLevel
	case size >= largeObjectBytes:
		return zlib.NoCompression
	}
	return zlib.BestSpeed
}

// Root returns the absolute path of the work tree's top directory.
func (s *Store) Root() string { return s.root }

// GitDir returns the repository's git directory for this work tree (for a
// linked worktree, its private directory under the main repository).
func (s *Store) GitDir() string { return s.gitDir }

// Close waits for the writes in flight, then releases the repository's
// open files. The Store must not be used afterwards.
func (s *Store) Close() error {
	s.prefetch.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	// After the lock: a Commit adds to releases only while holding it.
	s.releases.Wait()
	// Commit waits for the object writes it queues, and reports their
	// errors, before it lets go of the lock; waiting again keeps any
	// write from renaming a file into .git/objects after Close returns.
	s.batch.wait()
	if s.closed {
		return nil
	}
	s.closed = true
	s.prefetched = nil
	s.closePacks()
	s.trees, s.commits, s.index = nil, nil, nil
	if err := s.storer.Close(); err != nil {
		return fmt.Errorf("close %s: %w", s.root, err)
	}
	return nil
}

// PrefetchIndex starts reading and decoding the index in the background,
// so that a Commit soon after finds it decoded: a process that opens the
// repository to write can overlap the read with the work that prepares
// the write. The read holds no lock of the Store's; the next Commit takes
// its result, waiting for it if need be, and still checks under
// index.lock that the index file is the one decoded (its trailing
// checksum), reading it again if not. A read that fails is forgotten:
// Commit reads again and reports the error. Call it before Close.
func (s *Store) PrefetchIndex() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.index != nil || s.prefetched != nil {
		return
	}
	ch := make(chan *indexFile, 1)
	s.prefetched = ch
	path := filepath.Join(s.gitDir, "index")
	s.prefetch.Go(func() {
		ix, _ := readIndexFile(path)
		ch <- ix
	})
}

func (s *Store) begin(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.closed {
		return errors.New("gitstore: store is closed")
	}
	return nil
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// rel turns a path (absolute, or relative to the work-tree root) into a
// clean repository-relative slash path, refusing anything outside the work
// tree or inside .git. The root itself is "".
func (s *Store) rel(p string) (string, error) {
	if !filepath.IsAbs(p) {
		r := filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
		if r == "." {
			return "", nil
		}
		if r == ".." || strings.HasPrefix(r, "../") {
			return "", fmt.Errorf("%w: %s", ErrOutsideWorkTree, p)
		}
		if hasDotGit(r) {
			return "", fmt.Errorf("%w: %s is inside .git", ErrOutsideWorkTree, p)
		}
		return r, nil
	}
	r, ok := relUnder(s.root, filepath.Clean(p))
	if !ok {
		// The caller may name the tree through a symlink (/tmp -> /private/tmp):
		// resolve the longest existing prefix and try again.
		if real, err := evalExistingPrefix(p); err == nil {
			r, ok = relUnder(s.root, real)
		}
	}
	if !ok {
		return "", fmt.Errorf("%w: %s is not under %s", ErrOutsideWorkTree, p, s.root)
	}
	if hasDotGit(r) {
		return "", fmt.Errorf("%w: %s is inside .git", ErrOutsideWorkTree, p)
	}
	return r, nil
}

func relUnder(root, p string) (string, bool) {
	r, err := filepath.Rel(root, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	if r == "." {
		return "", true
	}
	return filepath.ToSlash(r), true
}

// evalExistingPrefix resolves symlinks in the longest existing prefix of p
// and appends the rest unchanged.
func evalExistingPrefix(p string) (string, error) {
	p = filepath.Clean(p)
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest), nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", fs.ErrNotExist
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

func (s *Store) abs(rel string) string { return filepath.Join(s.root, filepath.FromSlash(rel)) }

var emptyTreeHash = plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")

// writeObject stores an object as a loose object, the way git does: zlib at
// core.looseCompression's default level 1 (none for an object of
// largeObjectBytes or more unless a level is configured), written to a
// temporary file and renamed into place. go-git's SetEncodedObject would
// compress at level 6 and hash twice with collision-detecting SHA-1, which
// triples the cost of writing a large folder tree on every commit.
func (s *Store) writeObject(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	hdr := make([]byte, 0, 32)
	hdr = append(hdr, t.String()...)
	hdr = append(hdr, ' ')
	hdr = strconv.AppendInt(hdr, int64(len(data)), 10)
	hdr = append(hdr, 0)
	hs := sha1.New()
	hs.Write(hdr)
	hs.Write(data)
	var h plumbing.Hash
	copy(h[:], hs.Sum(nil))
	hx := hex.EncodeToString(h[:])
	dir := filepath.Join(s.commonDir, "objects", hx[:2])
	final := filepath.Join(dir, hx[2:])
	durable := s.syncs(fsyncLooseObject)
	if _, err := os.Stat(final); err == nil {
		if durable {
			// Another writer may have renamed it in without syncing the
			// directory yet; the ref about to name it must not overtake that.
			s.markDirDirty(dir, false)
		}
		return h, nil
	}
	f, created, err := createObjectTemp(dir)
	if err != nil {
		return h, fmt.Errorf("write %s: %w", t, err)
	}
	if level := s.looseLevelFor(len(data)); level == zlib.NoCompression {
		s.storedBuf = appendStoredZlib(s.storedBuf[:0], hdr, data)
		_, err = f.Write(s.storedBuf)
	} else {
		zw := s.zw[level+1]
		if zw == nil {
			zw, _ = zlib.NewWriterLevel(f, level)
			s.zw[level+1] = zw
		} else {
			zw.Reset(f)
		}
		_, err = zw.Write(hdr)
		if err == nil {
			_, err = zw.Write(data)
		}
		if err == nil {
			err = zw.Close()
		}
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return h, fmt.Errorf("write %s %s: %w", t, h, err)
	}
	if durable {
		// Sync, then rename: a visible object is always whole, as later
		// writes skip objects that exist. flushSyncs waits for this.
		s.markDirDirty(dir, created)
		large := len(data) >= largeObjectBytes
		s.batch.run(func() error { return s.publishObject(f, final, true, large) })
		return h, nil
	}
	return h, s.publishObject(f, final, false, false)
}

// publishObject closes a written temporary object file, after syncing it
// if sync is set, and renames it to its final name; on failure it removes
// it. A large synced object's pages leave the page cache (dropCache): a
// commit reads the next tree from the Store's cache, not from the file.
func (s *Store) publishObject(f *os.File, final string, sync, large bool) error {
	var err error
	if sync {
		err = s.fsys.syncFile(f)
		if err == nil && large {
			dropCache(f)
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = s.fsys.rename(f.Name(), final)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write object %s: %w", final, err)
	}
	return nil
}

// createObjectTemp creates a temporary object file in dir, creating dir if
// needed; created reports that it did. The file is read-only, like git's
// loose objects; the mode only applies once this descriptor is closed, so it
// can still be written, and no chmod is needed.
func createObjectTemp(dir string) (*os.File, bool, error) {
	created := false
	for attempt := 0; ; attempt++ {
		name := filepath.Join(dir, "tmp_obj_"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		switch {
		case err == nil:
			return f, created, nil
		case errors.Is(err, fs.ErrNotExist) && attempt == 0:
			if err := os.MkdirAll(dir, 0o777); err != nil {
				return nil, false, err
			}
			created = true
		case errors.Is(err, fs.ErrExist) && attempt < 10:
		default:
			return nil, false, err
		}
	}
}
