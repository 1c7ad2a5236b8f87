package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Dirty lists the files under dir (absolute, or relative to the work-tree
// root) whose work-tree content differs from HEAD: modified, deleted, or
// untracked and not ignored. Ignore rules come from .gitignore files from
// the root down to and inside dir, .git/info/exclude and core.excludesFile.
// Only dir is scanned; files whose index entry matches both HEAD and the
// file's stat data are not read. The result is sorted absolute paths, fit
// for Change.Paths.
func (s *Store) Dirty(ctx context.Context, dir string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	rel, err := s.rel(dir)
	if err != nil {
		return nil, err
	}
	tracked := make(map[string]fileRef)
	h, err := s.readHead()
	if err != nil {
		return nil, err
	}
	if !h.unborn {
		c, err := s.getCommit(h.hash)
		if err != nil {
			return nil, err
		}
		e, ok, err := s.lookupPath(c.TreeHash, rel)
		if err != nil {
			return nil, err
		}
		switch {
		case ok && e.mode == modeDir:
			files, err := s.listFiles(ctx, e.hash, rel, nil)
			if err != nil {
				return nil, err
			}
			for _, f := range files {
				tracked[f.path] = f
			}
		case ok:
			tracked[rel] = fileRef{rel, e.hash, e.mode}
		}
	}
	ix, err := s.loadIndex(filepath.Join(s.gitDir, "index"))
	if err != nil {
		return nil, err
	}
	var indexTime statData
	if fi, err := os.Stat(filepath.Join(s.gitDir, "index")); err == nil {
		indexTime = statFromInfo(fi)
	}
	ign, err := s.ignoreMatcher(rel)
	if err != nil {
		return nil, err
	}
	dirty := make(map[string]bool)
	seen := make(map[string]bool, len(tracked))
	check := func(p string) error {
		seen[p] = true
		t, isTracked := tracked[p]
		if !isTracked {
			if !ign.ignored(p, false) {
				dirty[p] = true
			}
			return nil
		}
		if e, ok := ix.lookup(p); ok && e.hash() == t.hash && e.mode() == t.mode {
			if fi, err := os.Lstat(s.abs(p)); err == nil {
				st := statFields(fi)
				racy := st.mtimeSec > indexTime.mtimeSec ||
					(st.mtimeSec == indexTime.mtimeSec && st.mtimeNsec >= indexTime.mtimeNsec)
				if !racy && e.statMatches(st) {
					return nil
				}
			}
		}
		wf, err := readWorkFile(s.abs(p), p, s.fileMode)
		if err != nil {
			return err
		}
		mode := wf.mode
		if !s.fileMode && mode != modeSymlink && (t.mode == modeFile || t.mode == modeExec) {
			mode = t.mode
		}
		if !wf.exists || mode != t.mode || blobHash(wf.data) != t.hash {
			dirty[p] = true
		}
		return nil
	}
	if err := s.scanDir(ctx, rel, tracked, ign, check); err != nil {
		return nil, err
	}
	for p := range tracked {
		if !seen[p] {
			dirty[p] = true // deleted from the work tree
		}
	}
	out := make([]string, 0, len(dirty))
	for p := range dirty {
		out = append(out, s.abs(p))
	}
	sort.Strings(out)
	return out, nil
}

// scanDir walks the work tree under rel, calling check for files that are
// tracked or not ignored. Ignored directories are skipped unless they hold
// tracked files; nested repositories are skipped as git does.
func (s *Store) scanDir(ctx context.Context, rel string, tracked map[string]fileRef, ign *ignorer, check func(string) error) error {
	root := s.abs(rel)
	fi, err := os.Lstat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("dirty %s: %w", rel, err)
	}
	if !fi.IsDir() {
		return check(rel)
	}
	trackedDirs := make(map[string]bool)
	for p := range tracked {
		for d := p; ; {
			i := strings.LastIndexByte(d, '/')
			if i < 0 {
				break
			}
			d = d[:i]
			if trackedDirs[d] {
				break
			}
			trackedDirs[d] = true
		}
	}
	return filepath.WalkDir(root, func(abs string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("dirty %s: %w", rel, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r, _ := relUnder(s.root, abs)
		if d.IsDir() {
			if abs == root {
				return nil
			}
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil && !trackedDirs[r] {
				return filepath.SkipDir // a nested repository or submodule
			}
			if err := ign.enter(r); err != nil {
				return err
			}
			if ign.ignored(r, true) && !trackedDirs[r] {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == ".git" {
			return nil
		}
		if _, isTracked := tracked[r]; !isTracked && ign.ignored(r, false) {
			return nil
		}
		return check(r)
	})
}

// ignorer applies gitignore rules, loading each directory's .gitignore as
// the walk enters it.
type ignorer struct {
	root     string
	patterns []gitignore.Pattern
	loaded   map[string]bool
}

func (s *Store) ignoreMatcher(rel string) (*ignorer, error) {
	ig := &ignorer{root: s.root, loaded: make(map[string]bool)}
	// Lowest precedence first: core.excludesFile, info/exclude, then the
	// .gitignore files from the root down.
	excludes := ""
	if cfg, err := loadUserConfig(s.gitDir); err == nil {
		excludes = cfg.get("core", "", "excludesfile")
	}
	if repo, err := loadRepoConfig(s.commonDir, s.gitDir); err == nil {
		if v := repo.get("core", "", "excludesfile"); v != "" {
			excludes = v
		}
	}
	if excludes == "" {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if home, err := os.UserHomeDir(); xdg == "" && err == nil {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			excludes = filepath.Join(xdg, "git", "ignore")
		}
	}
	if excludes != "" {
		if err := ig.readFile(expandHome(excludes), nil); err != nil {
			return nil, err
		}
	}
	if err := ig.readFile(filepath.Join(s.commonDir, "info", "exclude"), nil); err != nil {
		return nil, err
	}
	if err := ig.enter(""); err != nil {
		return nil, err
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		if rel == "" {
			break
		}
		if err := ig.enter(strings.Join(parts[:i+1], "/")); err != nil {
			return nil, err
		}
	}
	return ig, nil
}

// enter loads dir's .gitignore once.
func (ig *ignorer) enter(dir string) error {
	if ig.loaded[dir] {
		return nil
	}
	ig.loaded[dir] = true
	var domain []string
	if dir != "" {
		domain = strings.Split(dir, "/")
	}
	return ig.readFile(filepath.Join(ig.root, filepath.FromSlash(dir), ".gitignore"), domain)
}

func (ig *ignorer) readFile(path string, domain []string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return nil
	}
	if err != nil {
		// A directory named .gitignore, or similar: git ignores it too.
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ig.patterns = append(ig.patterns, gitignore.ParsePattern(line, domain))
	}
	return nil
}

// ignored reports whether a path, or any directory above it, is ignored.
func (ig *ignorer) ignored(rel string, isDir bool) bool {
	if rel == "" {
		return false
	}
	parts := strings.Split(rel, "/")
	m := gitignore.NewMatcher(ig.patterns)
	for i := 1; i < len(parts); i++ {
		if m.Match(parts[:i], true) {
			return true
		}
	}
	return m.Match(parts, isDir)
}
