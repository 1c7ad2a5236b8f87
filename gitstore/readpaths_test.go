package gitstore

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/google/go-cmp/cmp"
)

// readImpl is one implementation of a read path: exactly one of store,
// repo and cli is set.
type readImpl struct {
	name string
	// coldOnly skips the warm benchmark: minutes a call, and no cache
	// that would change that.
	coldOnly bool
	store    func(context.Context, *Store) ([]rec, error)
	repo     func(context.Context, *git.Repository) ([]rec, error)
	cli      func(context.Context, string) ([]rec, error)
}

// readCase is one read path and its implementations; impls[0] is
// gitstore's, the reference.
type readCase struct {
	name  string
	setup func(tb testing.TB, rr *readRepo) // nil: none
	impls []readImpl
	// differs names implementations known to answer differently, and
	// why; the test checks that they still do, so an upgrade that fixes
	// them is noticed.
	differs map[string]string
	// check asserts the reference answer has the shape the scenario
	// built, so agreement is not agreement on nothing.
	check func(tb testing.TB, rr *readRepo, got []string)
}

func readCases(rr *readRepo) []readCase {
	const mem = ".memory"
	follow := "Memory-Id: " + rr.tID
	dTrailer := "Memory-Id: " + rr.dID
	return []readCase{
		{
			// The floor: what opening the repository (or starting git)
			// costs before any real work.
			name: "resolve-head",
			impls: []readImpl{
				{name: "gitstore", store: func(ctx context.Context, s *Store) ([]rec, error) {
					h, err := s.Resolve(ctx, "")
					return []rec{{key: h}}, err
				}},
				{name: "gogit", repo: func(_ context.Context, r *git.Repository) ([]rec, error) {
					ref, err := r.Head()
					if err != nil {
						return nil, err
					}
					return []rec{{key: ref.Hash().String()}}, nil
				}},
				{name: "cli", cli: func(ctx context.Context, dir string) ([]rec, error) {
					out, err := cliGit(ctx, dir, nil, "rev-parse", "HEAD")
					return []rec{{key: strings.TrimSpace(string(out))}}, err
				}},
			},
			check: func(tb testing.TB, rr *readRepo, got []string) {
				if len(got) != 1 || got[0] != rr.head {
					tb.Errorf("HEAD = %v, want %s", got, rr.head)
				}
			},
		},
		{
			name: "history",
			impls: []readImpl{
				{name: "gitstore", store: func(ctx context.Context, s *Store) ([]rec, error) {
					return storeHistory(ctx, s, rr.rPath, HistoryOptions{})
				}},
				{name: "gogit-log", coldOnly: true, repo: func(ctx context.Context, r *git.Repository) ([]rec, error) {
					return gogitHistoryLog(ctx, r, rr.rPath)
				}},
				{name: "gogit-walk", repo: func(ctx context.Context, r *git.Repository) ([]rec, error) {
					return gogitHistoryWalk(ctx, r, rr.rPath, "", 0, false)
				}},
				{name: "cli", cli: func(ctx context.Context, dir string) ([]rec, error) {
					return cliHistory(ctx, dir, rr.rPath)
				}},
			},
			check: func(tb testing.TB, rr *readRepo, got []string) {
				// The import, then edits and one move.
				if len(got) != rr.rCommits+1 || countContaining(got, " <- ") != 1 {
					tb.Errorf("history of %s: %d commits, %d renames; want %d and 1:\n%s", rr.rPath, len(got), countContaining(got, " <- "), rr.rCommits+1, strings.Join(got, "\n"))
				}
			},
		},
		{
			name: "history-follow",
			impls: []readImpl{
				{name: "gitstore", store: func(ctx context.Context, s *Store) ([]rec, error) {
					return storeHistory(ctx, s, rr.tPath, HistoryOptions{Follow: follow})
				}},
				{name: "gogit-walk", repo: func(ctx context.Context, r *git.Repository) ([]rec, error) {
					return gogitHistoryWalk(ctx, r, rr.tPath, follow, 0, false)
				}},
				{name: "cli", cli: func(ctx context.Context, dir string) ([]rec, error) {
					return cliHistoryFollow(ctx, dir, rr.tPath, follow)
				}},
			},
			check: func(tb testing.TB, rr *readRepo, got []string) {
				// The import, edits, a move, the rewrite and two
				// trailer-only batches.
				if len(got) != rr.tCommits+1 || countContaining(got, " <- ") != 2 {
					tb.Errorf("history of %s following %s: %d commits, %d renames; want %d and 2:\n%s", rr.tPath, follow, len(got), countContaining(got, " <- "), rr.tCommits+1, strings.Join(got, "\n"))
				}
			},
		},
		{
			name: "trailer-search",
			impls: []readImpl{
				{name: "gitstore", store: func(ctx context.Context, s *Store) ([]rec, error) {
					cs, err := s.History(ctx, ".memvault-none/"+rr.dID, HistoryOptions{Follow: dTrailer, Limit: 1, NoRenames: true})
					var out []rec
					for _, c := range cs {
						out = append(out, rec{key: c.Hash})
					}
					return out, err
				}},
				{name: "gogit", repo: func(ctx context.Context, r *git.Repository) ([]rec, error) {
					return gogitTrailerSearch(ctx, r, dTrailer)
				}},
				{name: "cli", cli: func(ctx context.Context, dir string) ([]rec, error) {
					return cliTrailerSearch(ctx, dir, dTrailer)
				}},
			},
			check: func(tb testing.TB, rr *readRepo, got []string) {
				if len(got) != 1 || len(got[0]) != 40 {
					tb.Errorf("trailer search for %s = %q, want one commit", rr.dID, got)
				}
			},
		},
		diffCase("diff-1", rr.back1, rr.head, mem),
		diffCase("diff-third", rr.backThird, rr.head, mem),
		{
			name: "status",
			impls: []readImpl{
				{name: "gitstore", store: func(ctx context.Context, s *Store) ([]rec, error) { return storeDirty(ctx, s, mem) }},
				{name: "gogit", repo: func(ctx context.Context, r *git.Repository) ([]rec, error) { return gogitDirty(ctx, r, mem) }},
				{name: "cli", cli: func(ctx context.Context, dir string) ([]rec, error) { return cliDirty(ctx, dir, mem) }},
			},
			check: func(tb testing.TB, rr *readRepo, got []string) {
				want := []string{rr.deletePath, rr.editPath, rr.rPath, rr.tPath, ".memory/project/new-by-hand.md", ".memory/project/sub/deeper.md"}
				if diff := cmp.Diff(slices.Sorted(slices.Values(want)), got); diff != "" {
					tb.Errorf("Dirty (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:  "config",
			setup: setupConfig,
			impls: []readImpl{
				{name: "gitstore", store: storeConfig},
				{name: "gogit", repo: gogitConfig},
				{name: "cli", cli: cliConfig},
			},
			differs: map[string]string{
				"gogit": "go-git reads neither include.path nor includeIf, nor GIT_CONFIG_GLOBAL, and only the first global file it finds",
			},
			check: func(tb testing.TB, rr *readRepo, got []string) {
				want := []string{"user Config Bench <work@example.com>", "core.fsync committed", "core.excludesfile ~/global-ignore"}
				if diff := cmp.Diff(want, got); diff != "" {
					tb.Errorf("config (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "readfile",
			impls: []readImpl{
				{name: "gitstore", store: func(ctx context.Context, s *Store) ([]rec, error) {
					return storeReadFile(ctx, s, rr.backThird, rr.rPath)
				}},
				{name: "gogit", repo: func(ctx context.Context, r *git.Repository) ([]rec, error) {
					return gogitReadFile(ctx, r, rr.backThird, rr.rPath)
				}},
				{name: "cli", cli: func(ctx context.Context, dir string) ([]rec, error) {
					return cliReadFile(ctx, dir, rr.backThird, rr.rPath)
				}},
			},
		},
		{
			name: "walktree",
			impls: []readImpl{
				{name: "gitstore", store: func(ctx context.Context, s *Store) ([]rec, error) {
					return storeWalkTree(ctx, s, rr.backThird, mem)
				}},
				{name: "gogit", repo: func(ctx context.Context, r *git.Repository) ([]rec, error) {
					return gogitWalkTree(ctx, r, rr.backThird, mem)
				}},
				{name: "cli", cli: func(ctx context.Context, dir string) ([]rec, error) {
					return cliWalkTree(ctx, dir, rr.backThird, mem)
				}},
			},
			check: func(tb testing.TB, rr *readRepo, got []string) {
				if n := 4 * rr.shape.memPerLayer; len(got) < n*9/10 {
					tb.Errorf("WalkTree: %d files, want about %d", len(got), n)
				}
			},
		},
		{
			name: "walkstaged",
			impls: []readImpl{
				{name: "gitstore", store: func(ctx context.Context, s *Store) ([]rec, error) { return storeWalkStaged(ctx, s, mem) }},
				{name: "gogit", repo: func(ctx context.Context, r *git.Repository) ([]rec, error) { return gogitWalkStaged(ctx, r, mem) }},
				{name: "cli", cli: func(ctx context.Context, dir string) ([]rec, error) { return cliWalkStaged(ctx, dir, mem) }},
			},
		},
		{
			name: "resolvetime",
			impls: []readImpl{
				{name: "gitstore", store: func(ctx context.Context, s *Store) ([]rec, error) {
					return storeResolveTime(ctx, s, rr.atTime)
				}},
				{name: "gogit", repo: func(ctx context.Context, r *git.Repository) ([]rec, error) {
					return gogitResolveTime(ctx, r, rr.atTime)
				}},
				{name: "cli", cli: func(ctx context.Context, dir string) ([]rec, error) {
					return cliResolveTime(ctx, dir, rr.atTime)
				}},
			},
			check: func(tb testing.TB, rr *readRepo, got []string) {
				if len(got) != 1 || got[0] != rr.backHalf {
					tb.Errorf("ResolveTime = %v, want %s", got, rr.backHalf)
				}
			},
		},
	}
}

func diffCase(name, base, head, dir string) readCase {
	return readCase{
		name: name,
		impls: []readImpl{
			{name: "gitstore", store: func(ctx context.Context, s *Store) ([]rec, error) { return storeDiff(ctx, s, base, head, dir) }},
			{name: "gogit", repo: func(ctx context.Context, r *git.Repository) ([]rec, error) {
				return gogitDiff(ctx, r, base, head, dir)
			}},
			{name: "cli", cli: func(ctx context.Context, d string) ([]rec, error) { return cliDiff(ctx, d, base, head, dir) }},
		},
		check: func(tb testing.TB, rr *readRepo, got []string) {
			if name == "diff-third" && (countContaining(got, "renamed ") < 3 || countContaining(got, "added ") < 3 || countContaining(got, "deleted ") < 3) {
				tb.Errorf("%s has too few renames, additions or deletions to test pairing:\n%s", name, strings.Join(got, "\n"))
			}
			if len(got) == 0 {
				tb.Errorf("%s: no changes", name)
			}
		},
	}
}

// setupConfig writes a global configuration whose identity comes from an
// include and an includeIf on the repository's git directory.
func setupConfig(tb testing.TB, rr *readRepo) {
	home := filepath.Join(tb.TempDir(), "home")
	global := filepath.Join(home, ".gitconfig")
	writeFile(tb, global, "[user]\n\tname = Config Bench\n[include]\n\tpath = identity.inc\n"+
		"[includeIf \"gitdir:"+rr.dir+"/\"]\n\tpath = work.inc\n"+
		"[core]\n\tfsync = committed\n\texcludesFile = ~/global-ignore\n")
	writeFile(tb, filepath.Join(home, "identity.inc"), "[user]\n\temail = home@example.com\n")
	writeFile(tb, filepath.Join(home, "work.inc"), "[user]\n\temail = work@example.com\n")
	tb.Setenv("HOME", home)
	tb.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	tb.Setenv("GIT_CONFIG_GLOBAL", global)
}

func countContaining(ss []string, sub string) int {
	n := 0
	for _, s := range ss {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// runImpl runs one implementation with freshly opened handles.
func runImpl(ctx context.Context, dir string, im readImpl) ([]rec, error) {
	switch {
	case im.store != nil:
		s, err := Open(ctx, dir)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		return im.store(ctx, s)
	case im.repo != nil:
		r, err := git.PlainOpen(dir)
		if err != nil {
			return nil, err
		}
		defer closeRepo(r)
		return im.repo(ctx, r)
	default:
		return im.cli(ctx, dir)
	}
}

// closeRepo closes go-git's storage, which keeps pack files open.
func closeRepo(r *git.Repository) {
	if c, ok := r.Storer.(io.Closer); ok {
		c.Close()
	}
}

// TestReadPathsAgree checks, on a small repository built like the
// benchmark's, that gitstore, go-git and the git CLI give the same
// answer for every read path the benchmark compares (or, where listed,
// still differ for the stated reason).
func TestReadPathsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git, 0.3 s or more alone: runs without -short, as CI does")
	}
	requireGit(t)
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	rr := buildReadRepo(t, dir, smallShape)
	for _, rc := range readCases(rr) {
		t.Run(rc.name, func(t *testing.T) {
			if rc.setup != nil {
				rc.setup(t, rr)
			}
			ref, err := runImpl(t.Context(), dir, rc.impls[0])
			if err != nil {
				t.Fatalf("%s: %v", rc.impls[0].name, err)
			}
			want := lines(ref)
			if rc.check != nil {
				rc.check(t, rr, want)
			}
			for _, im := range rc.impls[1:] {
				got, err := runImpl(t.Context(), dir, im)
				if err != nil {
					t.Errorf("%s: %v", im.name, err)
					continue
				}
				diff := cmp.Diff(want, lines(got))
				switch why, known := rc.differs[im.name]; {
				case known && diff == "":
					t.Errorf("%s now agrees with gitstore (it differed: %s): measure it again", im.name, why)
				case known:
					t.Logf("%s differs as expected (%s):\n%s", im.name, why, diff)
				case diff != "":
					t.Errorf("%s differs from gitstore (-gitstore +%s):\n%s", im.name, im.name, diff)
				}
			}
		})
	}
	// The comparison must not have changed the repository.
	if out := runGit(t, dir, "status", "--porcelain", "--", "src"); out != "" {
		t.Errorf("src is dirty after the comparison: %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "index.lock")); err == nil {
		t.Error("index.lock left behind")
	}
}
