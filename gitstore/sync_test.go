package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// syncOp is one step recordingFS saw: "file" (fsync of an open file),
// "dir" (fsync of a directory) or "rename" (path -> to).
type syncOp struct {
	op, path, to string
}

// recordingFS records every sync and rename in order and performs it for
// real, so the commit it watches is a real, synced commit. failFile and
// failDir make the syncs of matching paths fail.
type recordingFS struct {
	mu       sync.Mutex // syncs run concurrently
	ops      []syncOp
	failFile func(path string) bool
	failDir  func(path string) bool
}

var errInjected = errors.New("injected sync failure")

func (r *recordingFS) record(o syncOp) {
	r.mu.Lock()
	r.ops = append(r.ops, o)
	r.mu.Unlock()
}

// Each op is recorded once it has completed, so "synced before renamed"
// in the record means the flush had returned before the rename began.
func (r *recordingFS) syncFile(f *os.File) error {
	err := osFS{}.syncFile(f)
	if r.failFile != nil && r.failFile(f.Name()) {
		err = errInjected
	}
	r.record(syncOp{op: "file", path: f.Name()})
	return err
}

func (r *recordingFS) syncDir(dir string) error {
	err := osFS{}.syncDir(dir)
	if r.failDir != nil && r.failDir(dir) {
		err = errInjected
	}
	r.record(syncOp{op: "dir", path: dir})
	return err
}

func (r *recordingFS) rename(oldpath, newpath string) error {
	err := osFS{}.rename(oldpath, newpath)
	r.record(syncOp{op: "rename", path: oldpath, to: newpath})
	return err
}

// index returns the position of the first op matching, or -1.
func (r *recordingFS) index(op, path string) int {
	return slices.IndexFunc(r.ops, func(o syncOp) bool { return o.op == op && o.path == path })
}

// reopen closes s and opens its repository again, so config written since
// is read, and installs a recorder.
func reopen(t *testing.T, s *Store) (*Store, *recordingFS) {
	t.Helper()
	root := s.Root()
	s.Close()
	s, err := Open(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	rec := &recordingFS{}
	s.fsys = rec
	return s, rec
}

func TestCommitSyncOrder(t *testing.T) {
	type want struct{ objects, refs, index bool }
	all := want{true, true, true}
	tests := []struct {
		name   string
		global string                   // the global config file (GIT_CONFIG_GLOBAL)
		config string                   // appended to .git/config
		setup  func(*testing.T, *Store) // runs before the recorded commit
		noSync bool
		path   string // committed file, repository-relative
		want   want
	}{
		{name: "initial commit", path: "mem/a.md", want: all},
		{name: "second commit in new folders", path: "mem/deep/new/b.md", want: all,
			setup: func(t *testing.T, s *Store) { commitFiles(t, s, "first", map[string]string{"mem/a.md": "a\n"}) }},
		{name: "detached HEAD", path: "mem/c.md", want: all,
			setup: func(t *testing.T, s *Store) {
				res := commitFiles(t, s, "first", map[string]string{"mem/a.md": "a\n"})
				writeFile(t, filepath.Join(s.gitDir, "HEAD"), res.Hash+"\n")
			}},
		{name: "branch in a new ref folder", path: "mem/d.md", want: all,
			setup: func(t *testing.T, s *Store) {
				writeFile(t, filepath.Join(s.gitDir, "HEAD"), "ref: refs/heads/team/alice/notes\n")
			}},
		{name: "core.fsync=committed", config: "[core]\n\tfsync = committed\n", path: "mem/a.md",
			want: want{objects: true, refs: true}},
		{name: "core.fsync=reference plus fsyncObjectFiles", config: "[core]\n\tfsync = reference\n\tfsyncObjectFiles = true\n",
			path: "mem/a.md", want: want{objects: true, refs: true}},
		{name: "core.fsync=reference,index", config: "[core]\n\tfsync = reference,index\n", path: "mem/a.md",
			want: want{refs: true, index: true}},
		{name: "core.fsync=none", config: "[core]\n\tfsync = none\n", path: "mem/a.md"},
		{name: "global core.fsync=none", global: "[core]\n\tfsync = none\n", path: "mem/a.md"},
		{name: "repository core.fsync over global", global: "[core]\n\tfsync = none\n",
			config: "[core]\n\tfsync = committed\n", path: "mem/a.md", want: want{objects: true, refs: true}},
		{name: "NoSync", noSync: true, path: "mem/a.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, s := newRepo(t)
			if tt.setup != nil {
				tt.setup(t, s)
			}
			if tt.global != "" {
				global := filepath.Join(t.TempDir(), "gitconfig")
				writeFile(t, global, tt.global)
				t.Setenv("GIT_CONFIG_GLOBAL", global)
			}
			appendFile(t, filepath.Join(s.gitDir, "config"), tt.config)
			s, rec := reopen(t, s)
			s.NoSync = tt.noSync
			h, err := s.readHead()
			if err != nil {
				t.Fatal(err)
			}
			res := commitFiles(t, s, "recorded", map[string]string{tt.path: "recorded\n"})
			refName := h.ref
			if h.detached {
				refName = "HEAD"
			}
			checkSyncOrder(t, s, rec, res, s.refPath(refName), tt.want.objects, tt.want.refs, tt.want.index)
		})
	}
}

// checkSyncOrder asserts the durability order of one recorded commit.
func checkSyncOrder(t *testing.T, s *Store, rec *recordingFS, res CommitResult, ref string, objects, refs, index bool) {
	t.Helper()
	refRename := rec.index("rename", ref+".lock")
	if refRename < 0 {
		t.Fatalf("ref %s was never renamed into place", ref)
	}
	defer func() {
		if t.Failed() {
			for i, o := range rec.ops {
				t.Logf("%2d %-6s %s %s", i, o.op, o.path, o.to)
			}
		}
	}()
	if got := rec.ops[refRename].to; got != ref {
		t.Errorf("ref lock renamed to %s, want %s", got, ref)
	}
	objDir := filepath.Join(s.commonDir, "objects")
	var renamed []string
	for i, o := range rec.ops {
		if o.op != "rename" || !strings.HasPrefix(o.to, objDir+string(filepath.Separator)) {
			continue
		}
		renamed = append(renamed, o.to)
		synced := rec.index("file", o.path)
		if objects && (synced < 0 || synced > i) {
			t.Errorf("object %s: file synced at %d, renamed at %d; want synced before the rename", o.to, synced, i)
		}
		if !objects && synced >= 0 {
			t.Errorf("object %s synced, want no sync", o.to)
		}
		if i > refRename {
			t.Errorf("object %s renamed at %d, after the ref at %d", o.to, i, refRename)
		}
		dirSync := slices.IndexFunc(rec.ops[i+1:], func(d syncOp) bool { return d.op == "dir" && d.path == filepath.Dir(o.to) })
		switch {
		case objects && (dirSync < 0 || i+1+dirSync > refRename):
			t.Errorf("object dir %s: want synced after its rename (%d) and before the ref's (%d)", filepath.Dir(o.to), i, refRename)
		case !objects && dirSync >= 0:
			t.Errorf("object dir %s synced, want no sync", filepath.Dir(o.to))
		}
	}
	// Blob, at least one tree, commit: the ref's target among them.
	if len(renamed) < 3 {
		t.Errorf("%d objects renamed in, want at least blob, tree and commit: %v", len(renamed), renamed)
	}
	commitObj := filepath.Join(objDir, res.Hash[:2], res.Hash[2:])
	if !slices.Contains(renamed, commitObj) {
		t.Errorf("commit object %s not renamed in before the ref; renamed: %v", commitObj, renamed)
	}

	lockSync := rec.index("file", ref+".lock")
	refDirSync := slices.IndexFunc(rec.ops[refRename:], func(d syncOp) bool { return d.op == "dir" && d.path == filepath.Dir(ref) })
	if refs && (lockSync < 0 || lockSync > refRename || refDirSync < 0) {
		t.Errorf("ref: lock synced at %d, renamed at %d, dir synced at +%d; want sync, rename, dir sync", lockSync, refRename, refDirSync)
	}
	if !refs && (lockSync >= 0 || refDirSync >= 0) {
		t.Errorf("ref synced (file %d, dir %d), want no sync", lockSync, refDirSync)
	}

	indexLock := filepath.Join(s.gitDir, "index.lock")
	indexRename := rec.index("rename", indexLock)
	if indexRename < refRename {
		t.Fatalf("index renamed at %d, want after the ref at %d", indexRename, refRename)
	}
	// A staged index is synced under its owner record's name, the same
	// file the lock's name is linked to.
	indexSync := slices.IndexFunc(rec.ops, func(o syncOp) bool { return o.op == "file" && isIndexLockFile(s.gitDir, o.path) })
	gitDirSync := slices.IndexFunc(rec.ops[indexRename:], func(d syncOp) bool { return d.op == "dir" && d.path == s.gitDir })
	if index && (indexSync < 0 || indexSync > indexRename || gitDirSync < 0) {
		t.Errorf("index: synced at %d, renamed at %d, dir synced at +%d; want sync, rename, dir sync", indexSync, indexRename, gitDirSync)
	}
	if !index && (indexSync >= 0 || gitDirSync >= 0) {
		t.Errorf("index synced (file %d, dir %d), want no sync", indexSync, gitDirSync)
	}
}

func TestCommitSyncFailure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		failFile  func(string) bool
		failDir   func(string) bool
		wantMoved bool   // the branch moved despite the error
		wantErr   string // in the error text
	}{
		{name: "object file", failFile: func(p string) bool { return strings.Contains(p, "tmp_obj_") },
			wantErr: "injected"},
		{name: "object directory", failDir: func(p string) bool { return strings.Contains(p, string(filepath.Separator)+"objects") },
			wantErr: "injected"},
		{name: "ref lock file", failFile: func(p string) bool { return strings.HasSuffix(p, "master.lock") },
			wantErr: "injected"},
		{name: "index lock file", failFile: func(p string) bool { return isIndexLockFile(filepath.Dir(p), p) },
			wantErr: "injected"},
		{name: "ref directory", failDir: func(p string) bool { return strings.HasSuffix(p, filepath.Join("refs", "heads")) },
			wantMoved: true, wantErr: "made, but it may not survive a power loss"},
		{name: "git directory after the index", failDir: func(p string) bool { return strings.HasSuffix(p, ".git") },
			wantMoved: true, wantErr: "index update may not survive a power loss"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, s := newRepo(t)
			first := commitFiles(t, s, "first", map[string]string{"mem/a.md": "a\n"})
			s, rec := reopen(t, s)
			rec.failFile, rec.failDir = tt.failFile, tt.failDir
			p := filepath.Join(s.Root(), "mem", "b.md")
			writeFile(t, p, "b\n")
			res, err := s.Commit(context.Background(), Change{Paths: []string{p}, Message: "second", Author: testAuthor})
			if err == nil || !errors.Is(err, errInjected) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Commit error = %v, want %q wrapping the injected failure", err, tt.wantErr)
			}
			h, herr := s.readHead()
			if herr != nil {
				t.Fatal(herr)
			}
			if moved := h.hash.String() != first.Hash; moved != tt.wantMoved {
				t.Errorf("branch moved = %v, want %v (HEAD %s, first %s)", moved, tt.wantMoved, h.hash, first.Hash)
			}
			if tt.wantMoved && h.hash.String() != res.Hash {
				t.Errorf("HEAD = %s, want the reported commit %s", h.hash, res.Hash)
			}
			if _, err := os.Lstat(s.refPath("refs/heads/master") + ".lock"); err == nil {
				t.Error("ref lock file left behind")
			}
			if _, err := os.Lstat(filepath.Join(s.gitDir, "index.lock")); err == nil {
				t.Error("index.lock left behind")
			}
			if tt.wantMoved && gitPath() != "" {
				// The index followed the branch: nothing staged or deleted.
				if out, _ := gitOutput(s.Root(), nil, "status", "--porcelain"); out != "" {
					t.Errorf("git status after the commit = %q, want clean", out)
				}
			}
		})
	}
}

func TestParseFsync(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want fsyncComponent
	}{
		{"", 0},
		{"none", 0},
		{"committed", fsyncLooseObject | fsyncReference},
		{"added", fsyncAdded},
		{"all", fsyncAdded},
		{"loose-object", fsyncLooseObject},
		{"objects,index", fsyncLooseObject | fsyncIndex},
		{"all,-index", fsyncAdded}, // git: "-" removes from the default only
		{"-loose-object,index", fsyncIndex},
		{" Reference , pack ", fsyncReference},
		{"pack,pack-metadata,commit-graph", 0},
		{"added,none", fsyncAdded}, // git: none clears the default, names still add
		{"unknown-name,index", fsyncIndex},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := parseFsync(tt.in); got != tt.want {
				t.Errorf("parseFsync(%q) = %03b, want %03b", tt.in, got, tt.want)
			}
		})
	}
}

// isIndexLockFile reports whether path is gitDir's index.lock or an owner
// record of it (a staged index is written and synced under that name).
func isIndexLockFile(gitDir, path string) bool {
	base, ok := strings.CutPrefix(path, gitDir+string(filepath.Separator))
	return ok && (base == "index.lock" || strings.HasPrefix(base, "index"+recordTag) && strings.HasSuffix(base, ".lock"))
}
