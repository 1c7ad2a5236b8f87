package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

var _ vault.LastGoodReader = HeadFiles{}

// LastGood implements vault.LastGoodReader: it walks the file's history
// from HEAD, newest first (following renames), and returns the first
// version good accepts. The answer is kept in the git directory by path
// and HEAD (lastGoodFile): a damaged file is read at every load of the
// vault, its history need not be walked each time.
func (h HeadFiles) LastGood(ctx context.Context, rel string, good func([]byte) bool) ([]byte, string, error) {
	s := h.Store
	if s == nil {
		var err error
		if s, err = OpenStore(ctx, h.Dir); errors.Is(err, gitstore.ErrNotRepository) {
			return nil, "", fmt.Errorf("%s: not in a git repository: %w", rel, vault.ErrNotFound)
		} else if err != nil {
			return nil, "", err
		}
		defer s.Close()
	}
	abs := filepath.Join(h.Dir, filepath.FromSlash(rel))
	head, err := s.Resolve(ctx, "HEAD")
	if errors.Is(err, gitstore.ErrNotFound) {
		return nil, "", fmt.Errorf("%s: no commit yet: %w", rel, vault.ErrNotFound)
	}
	if err != nil {
		return nil, "", err
	}
	cache := lastGoodCache{path: filepath.Join(s.GitDir(), "memvault", lastGoodFile)}
	key := head + " " + filepath.ToSlash(abs)
	if entry, ok := cache.get(key); ok {
		if entry == noneCommit {
			return nil, "", fmt.Errorf("%s: no committed version parses: %w", rel, vault.ErrNotFound)
		}
		commit, path, ok := strings.Cut(entry, " ")
		if !ok {
			path = abs
		}
		if data, err := s.ReadFile(ctx, commit, path); err == nil {
			return data, commit, nil
		}
	}
	commits, err := s.History(ctx, abs, gitstore.HistoryOptions{})
	if err != nil {
		return nil, "", fmt.Errorf("history of %s: %w", rel, err)
	}
	for _, c := range commits {
		if c.Deleted {
			continue
		}
		data, err := s.ReadFile(ctx, c.Hash, c.Path)
		if err != nil {
			return nil, "", fmt.Errorf("read %s at %s: %w", c.Path, c.Hash, err)
		}
		if good(data) {
			cache.put(key, c.Hash+" "+c.Path)
			return data, c.Hash, nil
		}
	}
	cache.put(key, noneCommit)
	return nil, "", fmt.Errorf("%s: no committed version parses: %w", rel, vault.ErrNotFound)
}

// lastGoodFile is the cache of LastGood's answers in the git directory's
// memvault folder: one line per answer, "HEAD path<TAB>commit path" or
// "HEAD path<TAB>-", newest last.
const lastGoodFile = "last-good"

// noneCommit records that no version parses.
const noneCommit = "-"

// maxLastGood bounds the answers kept: a vault has a few damaged files
// at a time, each asked once per HEAD.
const maxLastGood = 64

// lastGoodCache reads and appends the cache file. It is only a cache: a
// file that cannot be read or written is a walk of the history.
type lastGoodCache struct{ path string }

func (c lastGoodCache) lines() []string {
	data, err := os.ReadFile(c.path)
	if err != nil {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if strings.Contains(sc.Text(), "\t") {
			out = append(out, sc.Text())
		}
	}
	return out
}

func (c lastGoodCache) get(key string) (string, bool) {
	lines := c.lines()
	for i := len(lines) - 1; i >= 0; i-- {
		if k, v, _ := strings.Cut(lines[i], "\t"); k == key {
			return v, true
		}
	}
	return "", false
}

func (c lastGoodCache) put(key, val string) {
	if strings.ContainsAny(key+val, "\t\n") {
		return
	}
	lines := append(c.lines(), key+"\t"+val)
	if len(lines) > maxLastGood {
		lines = lines[len(lines)-maxLastGood:]
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), "."+lastGoodFile+"-*")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(strings.Join(lines, "\n") + "\n")
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), c.path) != nil {
		os.Remove(tmp.Name())
	}
}
