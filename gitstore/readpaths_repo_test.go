package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The read-path comparison (readpaths_test.go, readpaths_bench_test.go)
// runs gitstore, go-git's public API and the git CLI on one repository
// shaped like a vault that has been used for a while: 10,000 memories in
// four layer folders and 10,000 source files, then a few thousand
// single-memory commits (edits, new memories, deletions, moves between
// layers) with memvault's trailers. The older commits are written with
// `git fast-import` and packed by `git repack -f` and `git gc`, as a
// user's git would have done; the newest are written by Store.Commit and stay loose, as
// memvault leaves them. The plan is deterministic, so two builds are
// identical.

// readShape sizes the repository.
type readShape struct {
	memPerLayer        int // memories per layer folder in the import
	srcDirs, srcPerDir int // source files beside the vault
	packed             int // commits after the import, then packed
	loose              int // commits after that, left loose
}

// fullShape is the benchmark repository: 10k memories, 10k other files,
// 3,001 commits.
var fullShape = readShape{memPerLayer: 2500, srcDirs: 100, srcPerDir: 100, packed: 2800, loose: 200}

// smallShape has the same events at the same relative places, for the
// agreement test.
var smallShape = readShape{memPerLayer: 50, srcDirs: 4, srcPerDir: 10, packed: 280, loose: 20}

var readLayers = []string{"project", "short-term", "preferences", "meta"}

// memState is one memory as the plan tracks it.
type memState struct {
	id, layer, name string
	seq, rev        int
	rewritten       bool // content replaced by the dissimilar rewrite
}

func (m *memState) path() string { return ".memory/" + m.layer + "/" + m.name }

func (m *memState) text() string {
	if m.rewritten {
		return fmt.Sprintf(`---
id: %s
layer: %s
importance: 9
tags: [release]
---
# Releases are cut from tags only

Every release comes from an annotated tag on main; the changelog is
generated from the merged pull requests (rewrite %d).
发布只从 main 上的注释标签构建。
`, m.id, m.layer, m.rev)
	}
	// Each memory has its own words, so two memories share only a few
	// front-matter lines and are never taken for a rename of each other.
	rng := rand.New(rand.NewPCG(uint64(len(m.id)), uint64(m.seq)))
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = benchWords[rng.IntN(len(benchWords))]
		}
		return strings.Join(w, " ")
	}
	return fmt.Sprintf(`---
id: %s
layer: %s
importance: %d
tags: [%s, %s]
created_at: 2025-06-01T08:%02d:%02dZ
---
# %s

We decided to %s.
The reason: %s.
Revision %d: %s.
决定：%s 第 %d 条。
`, m.id, m.layer, 1+m.seq%10, words(1), words(1), m.seq/60%60, m.seq%60,
		words(5), words(12), words(12), m.rev, words(4), words(2), m.seq)
}

var benchWords = strings.Fields(`build test release deploy cache index query ranking token parser
	commit branch merge rebase review style lint format vet race flaky retry timeout
	checkout payment invoice order customer session login token secret key vault
	memory layer project preference meta transient decision rule policy owner team
	latency throughput budget queue worker pool batch stream file folder path tree
	blob object pack delta hash trailer author committer message subject body
	server client protocol request response error warning log metric trace span
	database schema migration table column row shard replica backup restore
	frontend backend mobile desktop browser window panel button label theme color
	always never usually rarely prefer avoid keep drop split join wrap unwrap`)

// planOp is one commit: files to write (path -> content) and to delete.
type planOp struct {
	msg     string
	when    time.Time
	writes  map[string]string
	deletes []string
}

// readPlan is the whole history and what the comparisons look up in it.
type readPlan struct {
	shape readShape
	ops   []planOp // ops[0] is the import
	// rPath is a memory edited every N/50 commits and moved to another
	// layer half-way (a similar rename): the plain history case.
	rPath string
	// tPath/tID is a memory moved at N/3, then rewritten beyond recognition
	// under a new name at 2N/3, and named by two later commits' trailers
	// without being changed: only the trailer follows it all the way.
	tPath, tID string
	// dID is a memory deleted at 0.85N: the newest commit naming it is
	// found by its trailer alone.
	dID string
	// editPath and deletePath are left alone by the history, then edited
	// and deleted in the work tree for the status scan.
	editPath, deletePath string
	// rCommits and tCommits count the commits after the import that change
	// R, and that change or name T.
	rCommits, tCommits int
}

func memoryMessage(verb string, m *memState, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory(%s): %s %q\n\nBenchmark history.\n\n", m.layer, verb, m.name)
	fmt.Fprintf(&b, "Memory-Id: %s\n", m.id)
	for _, id := range extra {
		fmt.Fprintf(&b, "Memory-Id: %s\n", id)
	}
	fmt.Fprintf(&b, "Memory-Layer: %s\nMemory-Client: bench\n", m.layer)
	return b.String()
}

// makeReadPlan lays out the history deterministically.
func makeReadPlan(sh readShape) *readPlan {
	rng := rand.New(rand.NewPCG(1, 2))
	p := &readPlan{shape: sh}
	var live []*memState
	byPath := map[string]*memState{}
	seq := 0
	newMem := func(layer, name string) *memState {
		seq++
		m := &memState{id: fmt.Sprintf("01JBENCH%018d", seq), layer: layer, name: name, seq: seq}
		live = append(live, m)
		byPath[m.path()] = m
		return m
	}
	imp := planOp{msg: "Import the project\n", when: benchEpoch, writes: map[string]string{}}
	for _, l := range readLayers {
		for i := 0; i < sh.memPerLayer; i++ {
			// Names are unique across layers, so a move keeps the name.
			m := newMem(l, fmt.Sprintf("decision-%s-%04d.md", l, i))
			imp.writes[m.path()] = m.text()
		}
	}
	for d := 0; d < sh.srcDirs; d++ {
		for i := 0; i < sh.srcPerDir; i++ {
			imp.writes[fmt.Sprintf("src/pkg%02d/file%03d.go", d, i)] = fmt.Sprintf("package pkg%02d\n\n// F%d is generated.\nfunc F%d() int { return %d }\n", d, i, i, i*d)
		}
	}
	imp.writes[".memory/.gitignore"] = "transient/\n*.tmp\n"
	p.ops = append(p.ops, imp)

	find := func(layer string, i int) *memState {
		return byPath[fmt.Sprintf(".memory/%s/decision-%s-%04d.md", layer, layer, i)]
	}
	r := find("project", sh.memPerLayer/5)
	t := find("project", sh.memPerLayer/2)
	d := find("short-term", sh.memPerLayer/3)
	edit, del := find("project", 3), find("meta", 4)
	p.tID, p.dID = t.id, d.id
	p.editPath, p.deletePath = edit.path(), del.path()
	special := map[*memState]bool{r: true, t: true, d: true, edit: true, del: true}

	n := sh.packed + sh.loose
	remove := func(m *memState) {
		delete(byPath, m.path())
		for i, x := range live {
			if x == m {
				live = append(live[:i], live[i+1:]...)
				break
			}
		}
	}
	move := func(m *memState, layer, name string) (from string) {
		from = m.path()
		delete(byPath, from)
		m.layer, m.name = layer, name
		byPath[m.path()] = m
		return from
	}
	pick := func() *memState {
		for {
			m := live[rng.IntN(len(live))]
			if !special[m] {
				return m
			}
		}
	}
	otherLayer := func(l string) string {
		for {
			if o := readLayers[rng.IntN(len(readLayers))]; o != l {
				return o
			}
		}
	}
	for c := 1; c <= n; c++ {
		op := planOp{when: benchEpoch.Add(time.Duration(c) * time.Minute), writes: map[string]string{}}
		write := func(m *memState) { op.writes[m.path()] = m.text() }
		switch {
		case c == n/2: // R moves to another layer with a small edit
			r.rev++
			op.deletes = append(op.deletes, move(r, "preferences", r.name))
			write(r)
			op.msg = memoryMessage("move", r)
		case c == n/3: // T moves to another layer
			t.rev++
			op.deletes = append(op.deletes, move(t, "preferences", t.name))
			write(t)
			op.msg = memoryMessage("move", t)
		case c == 2*n/3: // T is rewritten under a new name
			t.rev++
			t.rewritten = true
			op.deletes = append(op.deletes, move(t, "preferences", "releases-from-tags-only.md"))
			write(t)
			op.msg = memoryMessage("rewrite", t)
		case c == 3*n/4 || c == 4*n/5: // a batch naming T without changing it
			m := pick()
			m.rev++
			write(m)
			op.msg = memoryMessage("update", m, t.id)
		case c == 17*n/20: // D is deleted
			op.deletes = append(op.deletes, d.path())
			remove(d)
			op.msg = memoryMessage("delete", d)
		case c == 5*n/6: // a reorganisation: three moves with edits, three exact renames
			for i := 0; i < 6; i++ {
				m := pick()
				special[m] = true // not picked twice in one commit
				if i < 3 {
					m.rev++
					op.deletes = append(op.deletes, move(m, otherLayer(m.layer), m.name))
				} else {
					op.deletes = append(op.deletes, move(m, m.layer, "renamed-"+m.name))
				}
				write(m)
			}
			for m := range special {
				if m != r && m != t && m != d && m != edit && m != del {
					delete(special, m)
				}
			}
			op.msg = "Reorganise the vault\n"
		case c == 7*n/8: // a clean-up: three deletions, three new memories
			for i := 0; i < 3; i++ {
				m := pick() // removed from live, so not picked again
				op.deletes = append(op.deletes, m.path())
				remove(m)
				write(newMem("project", fmt.Sprintf("replacement-%05d-%d.md", c, i)))
			}
			op.msg = "Replace three memories\n"
		case c%(n/50) == 0:
			r.rev++
			write(r)
			op.msg = memoryMessage("update", r)
		case c%(n/40) == n/80:
			t.rev++
			write(t)
			op.msg = memoryMessage("update", t)
		default:
			switch x := rng.IntN(100); {
			case x < 5:
				m := newMem("short-term", fmt.Sprintf("note-%05d.md", c))
				write(m)
				op.msg = memoryMessage("create", m)
			case x < 9:
				m := pick()
				op.deletes = append(op.deletes, m.path())
				remove(m)
				op.msg = memoryMessage("delete", m)
			case x < 12:
				m := pick()
				m.rev++
				op.deletes = append(op.deletes, move(m, otherLayer(m.layer), m.name))
				write(m)
				op.msg = memoryMessage("move", m)
			default:
				m := pick()
				m.rev++
				write(m)
				op.msg = memoryMessage("update", m)
			}
		}
		if _, ok := op.writes[r.path()]; ok {
			p.rCommits++
		}
		if _, ok := op.writes[t.path()]; ok || strings.Contains(op.msg, t.id) {
			p.tCommits++
		}
		p.ops = append(p.ops, op)
	}
	p.rPath, p.tPath = r.path(), t.path()
	return p
}

// readRepo is a built comparison repository.
type readRepo struct {
	*readPlan
	dir string
	// Revisions the comparisons read at: HEAD, HEAD~1, HEAD~N/3, HEAD~N/2
	// (1000 and 1500 in the full repository).
	head, back1, backThird, backHalf string
	// atTime falls between the commit at backHalf and the one after it.
	atTime time.Time
}

var benchAuthorLine = "Bench <bench@example.com>"

// buildReadRepo builds the repository in dir: the import and the packed
// commits through git fast-import, git gc, a checkout, then the loose
// commits through Store.Commit, then a few uncommitted changes in the
// vault folder for the status scan.
func buildReadRepo(tb testing.TB, dir string, sh readShape) *readRepo {
	tb.Helper()
	start := time.Now()
	ctx := context.Background()
	plan := makeReadPlan(sh)
	git := func(stdin []byte, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git(nil, "init", "-q", "-b", "master")
	git(fastImportStream(plan.ops[:1+sh.packed]), "fast-import", "--quiet")
	// fast-import deltifies each version against the previous one, so its
	// chains end at the newest version; git gc would keep those deltas.
	// Recompute them as git does when it packs loose objects (memvault
	// writes only loose objects), then gc (commit-graph, packed refs).
	git(nil, "repack", "-q", "-a", "-d", "-f")
	git(nil, "gc", "-q")
	git(nil, "reset", "-q", "--hard")
	// Age every file, then refresh the index, so no entry is racily clean
	// and every implementation can trust the index's stat data.
	old := benchEpoch
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		tb.Fatal(err)
	}
	git(nil, "update-index", "-q", "--really-refresh")

	s, err := Open(ctx, dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	s.NoSync = true
	author := &Signature{Name: "Bench", Email: "bench@example.com"}
	for _, op := range plan.ops[1+sh.packed:] {
		var paths []string
		for p, text := range op.writes {
			writeFile(tb, filepath.Join(dir, p), text)
			paths = append(paths, p)
		}
		for _, p := range op.deletes {
			if err := os.Remove(filepath.Join(dir, p)); err != nil {
				tb.Fatal(err)
			}
			paths = append(paths, p)
		}
		when := op.when
		s.Now = func() time.Time { return when }
		if _, err := s.Commit(ctx, Change{Paths: paths, Message: op.msg, Author: author}); err != nil {
			tb.Fatal(err)
		}
	}

	// Uncommitted work in the vault folder: edits, a deletion, new files
	// (one in a new folder), and files the vault's .gitignore hides.
	mem := filepath.Join(dir, ".memory")
	for i, p := range []string{plan.rPath, plan.tPath} {
		writeFile(tb, filepath.Join(dir, p), fmt.Sprintf("edited by hand %d\n", i))
	}
	writeFile(tb, filepath.Join(dir, plan.editPath), "edited by hand\n")
	if err := os.Remove(filepath.Join(dir, plan.deletePath)); err != nil {
		tb.Fatal(err)
	}
	writeFile(tb, filepath.Join(mem, "project", "new-by-hand.md"), "new\n")
	writeFile(tb, filepath.Join(mem, "project", "sub", "deeper.md"), "deeper\n")
	writeFile(tb, filepath.Join(mem, "transient", "scratch.md"), "ignored folder\n")
	writeFile(tb, filepath.Join(mem, "project", "x.tmp"), "ignored pattern\n")

	tb.Logf("built the %d-commit comparison repository in %v", len(plan.ops), time.Since(start).Round(time.Millisecond))
	return readRepoAt(tb, s, plan)
}

// openReadRepo describes a repository buildReadRepo built earlier.
func openReadRepo(tb testing.TB, dir string, sh readShape) *readRepo {
	tb.Helper()
	s, err := Open(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	return readRepoAt(tb, s, makeReadPlan(sh))
}

func readRepoAt(tb testing.TB, s *Store, plan *readPlan) *readRepo {
	tb.Helper()
	rr := &readRepo{readPlan: plan, dir: s.Root()}
	n := plan.shape.packed + plan.shape.loose
	for _, x := range []struct {
		rev string
		out *string
	}{{"HEAD", &rr.head}, {"HEAD~1", &rr.back1}, {fmt.Sprintf("HEAD~%d", n/3), &rr.backThird}, {fmt.Sprintf("HEAD~%d", n/2), &rr.backHalf}} {
		h, err := s.Resolve(context.Background(), x.rev)
		if err != nil {
			tb.Fatal(err)
		}
		*x.out = h
	}
	rr.atTime = plan.ops[len(plan.ops)-1-n/2].when.Add(30 * time.Second)
	return rr
}

// fastImportStream renders ops as a git fast-import stream on master.
func fastImportStream(ops []planOp) []byte {
	var b bytes.Buffer
	for i, op := range ops {
		fmt.Fprintf(&b, "commit refs/heads/master\nmark :%d\n", i+1)
		fmt.Fprintf(&b, "author %s %d +0000\n", benchAuthorLine, op.when.Unix())
		fmt.Fprintf(&b, "committer memvault <bench@example.com> %d +0000\n", op.when.Unix())
		fmt.Fprintf(&b, "data %d\n%s\n", len(op.msg), op.msg)
		if i > 0 {
			fmt.Fprintf(&b, "from :%d\n", i)
		}
		for _, p := range op.deletes {
			fmt.Fprintf(&b, "D %s\n", p)
		}
		paths := make([]string, 0, len(op.writes))
		for p := range op.writes {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			fmt.Fprintf(&b, "M 100644 inline %s\ndata %d\n%s\n", p, len(op.writes[p]), op.writes[p])
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// sharedReadRepo builds the full-size repository once per test binary: the
// benchmarks run -count times and must not rebuild it each time. With
// GITSTORE_READPATHS_REPO set to a directory, the repository is kept there
// and reused by later runs (delete the directory to rebuild it).
var sharedReadRepo struct {
	sync.Mutex
	repo *readRepo
	dir  string // removed after the run; "" when kept
}

func fullReadRepo(b *testing.B) *readRepo {
	sharedReadRepo.Lock()
	defer sharedReadRepo.Unlock()
	if sharedReadRepo.repo != nil {
		return sharedReadRepo.repo
	}
	dir := os.Getenv("GITSTORE_READPATHS_REPO")
	if dir != "" {
		marker := filepath.Join(dir, ".git", "readpaths-built")
		if _, err := os.Stat(marker); err == nil {
			sharedReadRepo.repo = openReadRepo(b, dir, fullShape)
			return sharedReadRepo.repo
		}
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		sharedReadRepo.repo = buildReadRepo(b, dir, fullShape)
		writeFile(b, marker, "")
		return sharedReadRepo.repo
	}
	dir, err := os.MkdirTemp("", "gitstore-readpaths-")
	if err != nil {
		b.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	sharedReadRepo.dir = dir
	sharedReadRepo.repo = buildReadRepo(b, dir, fullShape)
	return sharedReadRepo.repo
}

// removeSharedReadRepo is called by TestMain after the run.
func removeSharedReadRepo() {
	if sharedReadRepo.dir != "" {
		os.RemoveAll(sharedReadRepo.dir)
	}
}
