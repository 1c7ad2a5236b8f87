package samplehistory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
)

// Step is one entry of sample-vault/history.json at a point in the
// sample project's life: a write of one memory file (Path), or a commit
// to the project's code (Code), which the memories' refs point at.
type Step struct {
	Path   string    `json:"path"` // vault-relative; "" for a code step
	When   time.Time `json:"when"`
	Client string    `json:"client"`
	Reason string    `json:"reason"`
	// Text is the file's content at this step; nil means the final file
	// in the sample folder.
	Text *string `json:"text"`
	// Delete removes the memory file (memvault forget --remove); Text is
	// then the memory being removed, which the commit message names.
	Delete bool `json:"delete,omitempty"`
	// Code, when set, makes the step a commit to the code outside the
	// vault instead of a memory write.
	Code *CodeChange `json:"code,omitempty"`
}

// CodeChange is one commit of the sample project's code: its message and
// the files it writes, by repository-relative path, with their whole new
// content; null deletes the file. A rename is a deletion and an addition
// of similar content, which git's rename detection pairs, as it would in
// a real repository.
type CodeChange struct {
	Message string             `json:"message"`
	Files   map[string]*string `json:"files"`
}

// The replayed commits are signed by the sample team, so the sample
// history (and its commit ids) is the same on every machine whatever the
// user's git identity.
const (
	authorName  = "ShopFlow team"
	authorEmail = "team@shopflow.example"
)

// VaultDir is where Replay puts the vault inside the repository.
const VaultDir = ".memory"

// ReadSteps reads and checks sampleDir/history.json, in time order.
func ReadSteps(sampleDir string) ([]Step, error) {
	data, err := os.ReadFile(filepath.Join(sampleDir, "history.json"))
	if err != nil {
		return nil, fmt.Errorf("sample history: %w", err)
	}
	var steps []Step
	if err := json.Unmarshal(data, &steps); err != nil {
		return nil, fmt.Errorf("sample history %s: %w", filepath.Join(sampleDir, "history.json"), err)
	}
	for i, s := range steps {
		if s.Code != nil {
			if err := checkCode(s); err != nil {
				return nil, fmt.Errorf("sample history step %d: %w", i+1, err)
			}
			continue
		}
		if !vault.IsMemoryPath(s.Path) || !filepath.IsLocal(filepath.FromSlash(s.Path)) {
			return nil, fmt.Errorf("sample history step %d: %q is not a memory path", i+1, s.Path)
		}
		if s.When.IsZero() {
			return nil, fmt.Errorf("sample history step %d (%s): no time", i+1, s.Path)
		}
		if s.Delete && s.Text == nil {
			return nil, fmt.Errorf("sample history step %d (%s): a deletion needs the removed memory's text", i+1, s.Path)
		}
	}
	// Commits must be made in time order for as-of reads to make sense.
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].When.Before(steps[j].When) })
	return steps, nil
}

// checkCode checks a code step: a message, at least one file, and paths
// inside the repository but outside the vault.
func checkCode(s Step) error {
	if s.Path != "" || s.Text != nil {
		return fmt.Errorf("a code step has no path or text")
	}
	if s.When.IsZero() || strings.TrimSpace(s.Code.Message) == "" || len(s.Code.Files) == 0 {
		return fmt.Errorf("a code step needs a time, a message and files")
	}
	for p := range s.Code.Files {
		if !filepath.IsLocal(filepath.FromSlash(p)) || p != filepath.ToSlash(filepath.Clean(p)) ||
			p == VaultDir || strings.HasPrefix(p, VaultDir+"/") || p == ".git" || strings.HasPrefix(p, ".git/") {
			return fmt.Errorf("code path %q is not a repository path outside %s", p, VaultDir)
		}
	}
	return nil
}

// replayCode writes (or deletes) a code step's files under repoDir and
// returns their paths, sorted, for the commit.
func replayCode(repoDir string, c *CodeChange) ([]string, error) {
	var paths []string
	for _, rel := range slices.Sorted(maps.Keys(c.Files)) {
		p := filepath.Join(repoDir, filepath.FromSlash(rel))
		if text := c.Files[rel]; text != nil {
			if err := writeFile(p, []byte(*text)); err != nil {
				return nil, err
			}
		} else if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// replaySample creates a git repository at repoDir whose history is the
// sample vault's: the sample's README.md and .gitignore first, then one
// commit per step of sampleDir/history.json, each writing the step's file
// into repoDir/.memory with a memvault-style message and author and commit
// time set to the step's time. repoDir must not hold commits yet.
func Replay(ctx context.Context, sampleDir, repoDir string) error {
	steps, err := ReadSteps(sampleDir)
	if err != nil {
		return err
	}
	if len(steps) == 0 {
		return fmt.Errorf("sample history in %s has no steps", sampleDir)
	}
	// gitstore reads a relative path as relative to the repository's
	// root, not to the working directory: a relative repoDir would name
	// files that do not exist, and every commit would be empty.
	if repoDir, err = filepath.Abs(repoDir); err != nil {
		return err
	}
	store, err := gitstore.Init(ctx, repoDir)
	if err != nil {
		return err
	}
	defer store.Close()
	st, err := store.State(ctx)
	if err != nil {
		return err
	}
	if !st.Unborn {
		return fmt.Errorf("%s already has commits: replay the sample into a new folder", repoDir)
	}
	vaultDir := filepath.Join(repoDir, VaultDir)
	author := gitstore.Signature{Name: authorName, Email: authorEmail}
	commit := func(when time.Time, paths []string, msg string) error {
		store.Now = func() time.Time { return when }
		_, err := store.Commit(ctx, gitstore.Change{Paths: paths, Message: msg, Author: &author})
		if errors.Is(err, gitstore.ErrNoChange) {
			return nil
		}
		return err
	}

	var scaffold []string
	for _, name := range []string{"README.md", vault.GitignoreName} {
		data, err := os.ReadFile(filepath.Join(sampleDir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		p := filepath.Join(vaultDir, name)
		if err := writeFile(p, data); err != nil {
			return err
		}
		scaffold = append(scaffold, p)
	}
	if len(scaffold) > 0 {
		msg := commitmsg.Message{Subject: "memory: start the project vault",
			Body:     "The README explains the format to people; .gitignore keeps session scratch out.",
			Trailers: []commitmsg.Trailer{{Key: commitmsg.KeyClient, Value: "human"}}}.String()
		if err := commit(steps[0].When.Add(-time.Minute), scaffold, msg); err != nil {
			return fmt.Errorf("commit the vault scaffolding: %w", err)
		}
	}

	prev := map[string]*vault.Memory{} // by path: the last committed version
	for i, s := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.Code != nil {
			paths, err := replayCode(repoDir, s.Code)
			if err != nil {
				return fmt.Errorf("sample history step %d: %w", i+1, err)
			}
			if err := commit(s.When, paths, s.Code.Message); err != nil {
				return fmt.Errorf("sample history step %d (code): %w", i+1, err)
			}
			continue
		}
		var data []byte
		if s.Text != nil {
			data = []byte(*s.Text)
		} else if data, err = os.ReadFile(filepath.Join(sampleDir, filepath.FromSlash(s.Path))); err != nil {
			return fmt.Errorf("sample history step %d: %w", i+1, err)
		}
		mem, _ := vault.ParseMemory(s.Path, data, s.When)
		if mem == nil {
			return fmt.Errorf("sample history step %d: %s is not a memory file", i+1, s.Path)
		}
		p := filepath.Join(vaultDir, filepath.FromSlash(s.Path))
		v, superseded := stepVerb(prev[s.Path], mem)
		if s.Delete {
			err, v, superseded = os.Remove(p), "delete", nil
		} else {
			err = writeFile(p, data)
		}
		if err != nil {
			return fmt.Errorf("sample history step %d: %w", i+1, err)
		}
		msg := commitMessage(v, mem.Layer, mem.Title, mem.ID, s.Reason, s.Client, superseded)
		if err := commit(s.When, []string{p}, msg); err != nil {
			return fmt.Errorf("sample history step %d (%s): %w", i+1, s.Path, err)
		}
		prev[s.Path] = mem
	}
	return nil
}

// stepVerb names a step the way the vault's write path would.
func stepVerb(before, after *vault.Memory) (string, []string) {
	var added []string
	for _, id := range after.Supersedes {
		if before == nil || !slices.Contains(before.Supersedes, id) {
			added = append(added, id)
		}
	}
	switch {
	case len(added) > 0:
		return "supersede", added
	case before == nil:
		return "add", nil
	case after.Status == vault.StatusArchived && before.Status != vault.StatusArchived:
		return "archive", nil
	}
	return "update", nil
}

// commitMessage is the message memvault's write path writes: the
// subject names layer, verb and title, the body is the reason, and the
// trailers are what history and why read back.
func commitMessage(verb string, l vault.Layer, title, id, reason, client string, superseded []string) string {
	return commitmsg.Write{Verb: verb, Layer: l.String(), Title: title, ID: id, Reason: reason, Client: client,
		Supersedes: superseded}.Message().String()
}

func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}
