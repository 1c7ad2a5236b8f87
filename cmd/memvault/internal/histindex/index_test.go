package histindex_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/histindex"
	"github.com/memvault/memvault/gitstore"
)

// randomRepo builds a repository with a random history: memory files
// written, edited, renamed (within the vault folder, into it and out of
// it), deleted, on several branches merged in every way (a side kept, a
// clean merge, a merge with its own edit), commits amended and branches
// reset (rewritten history), committer times that tie or go backwards.
// Commits carry Memory-Id trailers. It calls step after each operation
// with the ids of every commit made so far.
type randomRepo struct {
	t    *testing.T
	dir  string
	rnd  *rand.Rand
	when time.Time
	ids  []string // every Memory-Id used
	n    int      // files made
}

func newRandomRepo(t *testing.T, seed uint64) *randomRepo {
	r := &randomRepo{t: t, dir: t.TempDir(), rnd: rand.New(rand.NewPCG(seed, 1)), when: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		ids: []string{"seed"}}
	r.git("init", "-q", "-b", "main")
	r.write(".memory/project/seed.md", r.content("seed", 0))
	r.commit("seed", "Memory-Id: seed")
	return r
}

// command is git in the repository, dated at the repository's clock.
func (r *randomRepo) command(args ...string) *exec.Cmd {
	c := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	date := fmt.Sprintf("%d +0000", r.when.Unix())
	c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=C", "GIT_COMMITTER_EMAIL=c@example.com",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	return c
}

func (r *randomRepo) git(args ...string) string {
	r.t.Helper()
	out, err := r.command(args...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// tryGit is git for commands that may fail (a merge with conflicts).
func (r *randomRepo) tryGit(args ...string) error { return r.command(args...).Run() }

// content is a memory-like file: its lines mostly survive edits, so git
// and gitstore see renames.
func (r *randomRepo) content(id string, edit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nid: %s\ntitle: memory %s\n---\n", id, id)
	for i := range 8 {
		fmt.Fprintf(&b, "line %d of %s\n", i, id)
	}
	fmt.Fprintf(&b, "edit %d\n", edit)
	return b.String()
}

func (r *randomRepo) write(rel, data string) {
	p := filepath.Join(r.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// tick moves the clock: mostly forward, sometimes not at all (a tie),
// sometimes back (a skewed clock).
func (r *randomRepo) tick() {
	switch r.rnd.IntN(10) {
	case 0:
	case 1:
		r.when = r.when.Add(-time.Duration(r.rnd.IntN(3)+1) * time.Minute)
	default:
		r.when = r.when.Add(time.Duration(r.rnd.IntN(90)+1) * time.Second)
	}
}

func (r *randomRepo) commit(subject string, trailers ...string) {
	r.tick()
	msg := subject + "\n\nbecause\n"
	if len(trailers) > 0 {
		msg += "\n" + strings.Join(trailers, "\n") + "\n"
	}
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
}

// files lists the files of the work tree, repository-relative.
func (r *randomRepo) files() []string {
	var out []string
	filepath.WalkDir(r.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(r.dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// idOf is the Memory-Id the file p carries.
func (r *randomRepo) idOf(p string) string {
	data, _ := os.ReadFile(filepath.Join(r.dir, p))
	first, _, _ := strings.Cut(strings.TrimPrefix(string(data), "---\nid: "), "\n")
	return first
}

var folders = []string{".memory/project", ".memory/preferences", ".memory/project/deep", "notes"}

// step makes one random change and commits it (or checks out, merges,
// rewrites).
func (r *randomRepo) step() {
	files := r.files()
	pick := func() string { return files[r.rnd.IntN(len(files))] }
	id := r.idOf
	branches := strings.Fields(r.git("branch", "--format=%(refname:short)"))
	switch k := r.rnd.IntN(20); {
	case k < 12:
		r.change(k)
	case k < 14: // a branch, or another branch checked out
		if r.rnd.IntN(2) == 0 || len(branches) < 2 {
			r.git("checkout", "-q", "-b", fmt.Sprintf("b%d", r.rnd.IntN(1000000)))
		} else {
			r.git("checkout", "-q", branches[r.rnd.IntN(len(branches))])
		}
	case k < 18: // a merge of another branch
		cur := r.git("branch", "--show-current")
		other := branches[r.rnd.IntN(len(branches))]
		if other == cur || r.rnd.IntN(2) == 0 {
			// A side branch from a recent commit, with changes of its own.
			other = fmt.Sprintf("side%d", r.rnd.IntN(1000000))
			from := "HEAD"
			if n := r.rnd.IntN(3); n > 0 && r.tryGit("rev-parse", "-q", "--verify", fmt.Sprintf("HEAD~%d", n)) == nil {
				from = fmt.Sprintf("HEAD~%d", n)
			}
			r.git("checkout", "-q", "-b", other, from)
			for range r.rnd.IntN(3) + 1 {
				r.change(r.rnd.IntN(12))
			}
			r.git("checkout", "-q", cur)
		}
		r.tick()
		var strategy []string
		switch r.rnd.IntN(3) {
		case 0:
			strategy = []string{"-s", "ours"}
		case 1:
			strategy = []string{"-X", "theirs"}
		}
		if r.tryGit(append(append([]string{"merge", "-q", "--no-ff", "--no-commit"}, strategy...), other)...) != nil {
			// Conflicts: each conflicted file gets a version of its own.
			for _, p := range strings.Fields(r.git("diff", "--name-only", "--diff-filter=U")) {
				r.write(p, r.content(id(p)+"x", r.rnd.IntN(1000)))
			}
		} else if r.rnd.IntN(3) == 0 {
			if fs := r.files(); len(fs) > 0 {
				p := fs[r.rnd.IntN(len(fs))]
				r.write(p, r.content(id(p), r.rnd.IntN(1000)))
			}
		}
		r.git("add", "-A")
		if err := r.tryGit("commit", "-q", "--no-edit"); err != nil {
			// Nothing to merge (an ancestor): leave no staged change.
			r.tryGit("merge", "--abort")
			r.git("reset", "-q", "--hard")
		}
	case k < 19: // amend: the old tip is no longer an ancestor
		p := pick()
		r.write(p, r.content(id(p), r.rnd.IntN(1000)))
		r.git("add", "-A")
		r.tick()
		r.git("commit", "-q", "--amend", "--allow-empty", "-m", "amended\n\nMemory-Id: "+id(p))
	default: // reset back a few commits
		if n := r.rnd.IntN(3) + 1; r.tryGit("rev-parse", "-q", "--verify", fmt.Sprintf("HEAD~%d", n)) == nil {
			r.git("reset", "-q", "--hard", fmt.Sprintf("HEAD~%d", n))
		}
	}
}

// change makes change k (0 to 11) to the files and commits it.
func (r *randomRepo) change(k int) {
	files := r.files()
	pick := func() string { return files[r.rnd.IntN(len(files))] }
	id := r.idOf
	switch {
	case k < 4 || len(files) == 0: // a new memory
		r.n++
		nid := fmt.Sprintf("m%d", r.n)
		r.ids = append(r.ids, nid)
		r.write(folders[r.rnd.IntN(len(folders))]+"/"+nid+".md", r.content(nid, 0))
		r.commit("add "+nid, "Memory-Id: "+nid)
	case k < 8: // an edit
		p := pick()
		r.write(p, r.content(id(p), r.rnd.IntN(1000)))
		trailers := []string{"Memory-Id: " + id(p)}
		if r.rnd.IntN(4) == 0 { // a batch naming another memory too, or a squash
			trailers = append(trailers, "Memory-Id:  "+r.ids[r.rnd.IntN(len(r.ids))]+" ")
		}
		r.commit("edit "+p, trailers...)
	case k < 10: // a move between folders (and maybe an edit)
		p := pick()
		to := folders[r.rnd.IntN(len(folders))] + "/" + filepath.Base(p)
		if slices.Contains(files, to) {
			return
		}
		os.MkdirAll(filepath.Join(r.dir, filepath.Dir(to)), 0o755)
		r.git("mv", p, to)
		if r.rnd.IntN(2) == 0 {
			r.write(to, r.content(id(to), r.rnd.IntN(1000)))
		}
		r.commit("move "+p, "Memory-Id: "+id(to))
	case k < 11: // a deletion
		p := pick()
		nid := id(p)
		r.git("rm", "-q", p)
		r.commit("delete "+p, "memory-id: "+nid)
	case k < 12: // a commit naming a memory without its file
		r.write("notes/other.txt", fmt.Sprint(r.rnd.IntN(1000)))
		r.commit("mention", "Memory-Id: "+r.ids[r.rnd.IntN(len(r.ids))])
	}
}

// allCommits lists every commit of every branch.
func (r *randomRepo) allCommits() []string {
	return strings.Fields(r.git("log", "--all", "--format=%H"))
}

// everPaths lists every path (files and their folders) any commit of any
// branch had, with a few that never existed.
func (r *randomRepo) everPaths() []string {
	seen := map[string]bool{".memvault-none/x": true, ".memory/nothing.md": true, "": true}
	for _, line := range strings.Split(r.git("log", "--all", "--format=", "--name-only", "-m", "--first-parent", "--root"), "\n") {
		for p := strings.TrimSpace(line); p != "" && p != "."; p = filepath.ToSlash(filepath.Dir(p)) {
			seen[p] = true
		}
	}
	for _, f := range r.files() {
		seen[f] = true
	}
	return slices.Sorted(func(yield func(string) bool) {
		for p := range seen {
			if p != "." && !yield(p) {
				return
			}
		}
	})
}

// compare checks that History with the index answers as the full walk for
// every path, option and starting commit.
func compare(t *testing.T, ctx context.Context, s *gitstore.Store, r *randomRepo, idx gitstore.HistoryIndex) int {
	t.Helper()
	revs := []string{""}
	all := r.allCommits()
	for range 3 {
		revs = append(revs, all[r.rnd.IntN(len(all))])
	}
	follows := []string{"", "Memory-Id: seed", "Other: x"}
	for range 2 {
		if len(r.ids) > 0 {
			follows = append(follows, "Memory-Id: "+r.ids[r.rnd.IntN(len(r.ids))])
		}
	}
	opts := []gitstore.HistoryOptions{{}, {FullHistory: true}, {NoRenames: true}, {Limit: 1}, {Limit: 3, FullHistory: true}}
	n := 0
	for _, p := range r.everPaths() {
		for _, rev := range revs {
			for _, follow := range follows {
				// Every path from HEAD with the memory's own trailer and
				// every option; the rest sampled.
				for _, o := range opts {
					if (rev != "" || follow != follows[len(follows)-1]) && r.rnd.IntN(4) != 0 {
						continue
					}
					o.Rev, o.Follow = rev, follow
					want, werr := s.History(ctx, p, o)
					o.Index = idx
					got, gerr := s.History(ctx, p, o)
					if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
						t.Fatalf("History(%q, rev %.7s, follow %q, full %v, norenames %v, limit %d):\nwith the index %d commits, %v\nwithout %d commits, %v\n%s",
							p, rev, follow, o.FullHistory, o.NoRenames, o.Limit, len(got), gerr, len(want), werr, diffCommits(got, want))
					}
					n++
				}
			}
		}
	}
	return n
}

func diffCommits(got, want []gitstore.CommitInfo) string {
	var b strings.Builder
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = fmt.Sprintf("%.7s %s<-%s del=%v", got[i].Hash, got[i].Path, got[i].OldPath, got[i].Deleted)
		}
		if i < len(want) {
			w = fmt.Sprintf("%.7s %s<-%s del=%v", want[i].Hash, want[i].Path, want[i].OldPath, want[i].Deleted)
		}
		fmt.Fprintf(&b, "  %-50s | %s\n", g, w)
	}
	return b.String()
}

// TestIndexedHistoryIsTheFullWalk compares History with the index and
// without it on random histories, after each batch of changes brings the
// index forward (or past a rewrite), and after a save and load. By
// default two histories, seed 0 (a vault in .memory) and seed 3 (a vault
// at the repository's root): each costs about 12 s of CPU under -race.
// MEMVAULT_HISTINDEX_SEEDS=n runs seeds 0..n-1 (4 was the default).
func TestIndexedHistoryIsTheFullWalk(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	seeds, steps := []int{0, 3}, 80
	if testing.Short() {
		seeds, steps = []int{0}, 30
	}
	if s := os.Getenv("MEMVAULT_HISTINDEX_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("MEMVAULT_HISTINDEX_SEEDS=%q: want a count of seeds", s)
		}
		seeds = nil
		for i := range n {
			seeds = append(seeds, i)
		}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			r := newRandomRepo(t, uint64(seed))
			prefix := ".memory"
			if seed%4 == 3 {
				prefix = "" // a vault at the root of its repository
			}
			x := histindex.New(prefix, "Memory-Id")
			file := filepath.Join(t.TempDir(), "history.idx")
			checked := 0
			for batch := 0; batch*10 < steps; batch++ {
				for range 10 {
					r.step()
				}
				s, err := gitstore.Open(ctx, r.dir)
				if err != nil {
					t.Fatal(err)
				}
				head, err := s.Resolve(ctx, "")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := x.Update(ctx, s, head); err != nil {
					t.Fatal(err)
				}
				snap := x.Snapshot()
				// The index holds exactly what HEAD reaches, as one built
				// afresh does.
				reach := strings.Fields(r.git("rev-list", "HEAD"))
				if snap.Len() != len(reach) {
					t.Fatalf("batch %d: the index holds %d commits, HEAD reaches %d", batch, snap.Len(), len(reach))
				}
				for _, h := range reach {
					if _, ok := snap.Lookup(h); !ok {
						t.Fatalf("batch %d: the index misses %s", batch, h)
					}
				}
				checked += compare(t, ctx, s, r, snap)
				// Saved and loaded, it answers the same.
				if err := snap.Save(file); err != nil {
					t.Fatal(err)
				}
				y := histindex.New(prefix, "Memory-Id")
				if err := y.Load(file); err != nil {
					t.Fatal(err)
				}
				if y.Snapshot().Tip() != head || !reflect.DeepEqual(y.Snapshot().Encode(), snap.Encode()) {
					t.Fatalf("batch %d: the loaded index differs from the saved one", batch)
				}
				x = y
				s.Close()
			}
			t.Logf("%d commits (%d merges), %d walks compared", len(r.allCommits()), len(strings.Fields(r.git("log", "--all", "--merges", "--format=%H"))), checked)
		})
	}
}
