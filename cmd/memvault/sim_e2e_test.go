package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/merge"
)

var (
	simOps   = flag.Int("sim.ops", 200, "TestTeamSimulation: random operations in all, across the clones")
	simSeed  = flag.Uint64("sim.seed", 1, "TestTeamSimulation: seed of the random operations")
	simDebug = flag.Bool("sim.debug", false, "TestTeamSimulation: after every sync, check that the clone lost no memory and no status went back, and show what happened when one did")
)

// simChange is an acknowledged change of one field of one memory: the
// command that made it exited 0.
type simChange struct {
	seq   int
	value string
}

// simModel is what the clones were told and acknowledged, to check the
// converged vault against.
type simModel struct {
	ids        []string                        // every memory added (add and supersede)
	tags       map[string][]string             // tags added to a memory (none is ever removed)
	last       map[string]map[string]simChange // id → field (title, body, layer) → the latest change
	archived   map[string]bool                 // forgotten (archived)
	superseded map[string]string               // superseded id → its successor
	layers     map[string][]string             // id → every layer folder it was acknowledged in
	// changers is id → field (as conflict records name it) → who changed
	// it (a clone's index; simHand for the teammate without memvault): a
	// conflict record is for a person only where two people did.
	changers map[string]map[string]map[int]bool
	// reasons is id → the reasons memvault writes gave for it, each of
	// which its history must name (a squash keeps one per memory: the
	// newest of its commits).
	reasons map[string][]string
	// code is id → the source file the memory refers to (--refs), written
	// by its owner just before each write of the memory; mayBeStale marks
	// one whose write after a code change was refused.
	code       map[string]string
	codeOwner  map[string]int
	mayBeStale map[string]bool
}

// simHand is the teammate without memvault, in simModel.changers.
const simHand = 3

// simPR is a branch a clone writes on until its next sync merges it into
// main in one of the ways a forge does.
type simPR struct {
	n   int
	ops []simOp // memvault writes on the branch, oldest first
}

type simOp struct{ id, reason string }

// simFigures are what one run reports.
type simFigures struct {
	ops, refused, syncs, breaks, fixes int
	prs                                map[string]int // merge style → PRs merged so
}

// TestTeamSimulation runs random operations (add, add a tag, change the
// title, edit the body, supersede, forget, move to another layer, change
// a source file and the memory about it) on three clones of one origin,
// with random `memvault sync --merge` and `--rebase` between them; some
// clones' writes go to a branch merged into main as a forge does (a
// squash with git's message or GitHub's, a rebase-merge, cherry-picks
// with and without -x); a teammate without memvault breaks a memory's
// YAML by hand and later fixes it. Then it syncs until every clone holds
// the same tree, and checks: every id once, every acknowledged change
// present (the latest of its field), superseded by a later change of the
// same field, or surfaced as a conflict (the memory's conflict record
// names the field) where two people changed that field; each memory's
// history names every reason its writes gave; a memory written after
// its code is not possibly stale; no conflict marker; lint without
// errors. Operations run the CLI's code in this process (a process start
// each made the test twice as long on a loaded machine); every sync runs
// the real binary, which git runs again as the merge driver. -sim.ops
// and -sim.seed run it longer or otherwise; MEMVAULT_SIM_SEEDS=n runs
// seeds 1..n in parallel.
func TestTeamSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	t.Parallel()
	seeds := []uint64{*simSeed}
	if s := os.Getenv("MEMVAULT_SIM_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("MEMVAULT_SIM_SEEDS=%q: want a count of seeds", s)
		}
		seeds = nil
		for i := 1; i <= n; i++ {
			seeds = append(seeds, uint64(i))
		}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			t.Parallel()
			simulate(t, seed)
		})
	}
}

// simTeam is one run: three clones with memvault, a teammate without.
type simTeam struct {
	t      *testing.T
	rng    *rand.Rand
	clones []*mergeRepo
	hand   *mergeRepo
	md     *simModel
	fig    simFigures
	seq    int
	dirty  []map[string]bool // per clone: ids written since its last sync (not at origin yet)
	pr     []*simPR          // per clone: its open branch, or nil
	broken map[string]string // id → the title the teammate broke, until fixed
	prs    int
}

func simulate(t *testing.T, seed uint64) {
	tm := newTeam(t)
	s := &simTeam{t: t, rng: rand.New(rand.NewPCG(seed, 0x5eed)), broken: map[string]string{}}
	s.clones = []*mergeRepo{tm.clone(), tm.clone(), tm.clone()}
	s.dirty = make([]map[string]bool, len(s.clones))
	s.pr = make([]*simPR, len(s.clones))
	s.fig.prs = map[string]int{}
	for i := range s.dirty {
		s.dirty[i] = map[string]bool{}
	}
	s.md = &simModel{layers: map[string][]string{}, tags: map[string][]string{}, last: map[string]map[string]simChange{}, archived: map[string]bool{}, superseded: map[string]string{},
		changers: map[string]map[string]map[int]bool{}, reasons: map[string][]string{}, code: map[string]string{}, codeOwner: map[string]int{}, mayBeStale: map[string]bool{}}
	md := s.md

	s.clones[0].add("Seed memory", "The first memory.")
	for i := range s.clones {
		s.sync(i)
	}
	s.hand = tm.clone()
	s.hand.git("config", "user.name", "Hand Teammate")
	s.hand.git("config", "user.email", "hand@example.com")
	md.ids = nil // the seed memory is not checked: added before the model
	start := time.Now()
	for s.fig.ops < *simOps {
		ci := s.rng.IntN(len(s.clones))
		switch r := s.rng.IntN(60); {
		case r < 12:
			s.sync(ci)
			continue
		case r < 14:
			s.fig.ops++
			s.handBreak()
			continue
		case r < 17 && len(s.broken) > 0:
			s.fig.ops++
			s.handFix()
			continue
		case r < 20 && s.pr[ci] == nil:
			// A branch starts from an up-to-date main: a commit of its
			// base rebased away under it would meet itself as another's.
			s.sync(ci)
			s.prs++
			s.pr[ci] = &simPR{n: s.prs}
			s.clones[ci].git("checkout", "-q", "-b", "pr")
			continue
		}
		s.fig.ops++
		s.write(ci)
	}
	for len(s.broken) > 0 {
		s.handFix()
	}
	// Converge: sync every clone in turn until a whole round changes
	// nothing and all hold one tree.
	rounds := 0
	for ; ; rounds++ {
		if rounds > 5 {
			t.Fatalf("no convergence after %d rounds", rounds)
		}
		for i := range s.clones {
			s.sync(i)
		}
		if simConverged(s.clones) {
			break
		}
	}
	t.Logf("seed %d: %d operations (%d refused, %d YAML broken by hand and fixed), %d syncs (%d rounds to converge), PRs merged %v, in %s",
		seed, s.fig.ops, s.fig.refused, s.fig.breaks, s.fig.syncs, rounds+1, s.fig.prs, time.Since(start).Round(time.Millisecond))
	for _, c := range s.clones {
		if st := c.git("status", "--porcelain"); st != "" {
			t.Errorf("%s: work tree not clean:\n%s", c.root, st)
		}
	}
	simCheck(t, s.clones[0], md)
}

// sync runs `memvault sync` (merge or rebase) in clone ci; an open branch
// is merged into main first.
func (s *simTeam) sync(ci int) {
	t := s.t
	t.Helper()
	if s.pr[ci] != nil {
		s.mergePR(ci)
	}
	s.syncMain(ci)
	clear(s.dirty[ci])
}

func (s *simTeam) syncMain(ci int) {
	t, c := s.t, s.clones[ci]
	t.Helper()
	args := []string{"sync", "--merge"}
	if s.rng.IntN(2) == 0 {
		args = []string{"sync", "--rebase"}
	}
	s.fig.syncs++
	var before []*vault.Memory
	if *simDebug {
		before = simAll(t, c)
	}
	code, out := c.memvault(args...)
	if code != 0 {
		t.Fatalf("sync %d (%s) in %s: exit %d\n%s", s.fig.syncs, args[1], c.root, code, out)
	}
	if before != nil {
		after := map[string]*vault.Memory{}
		for _, m := range simAll(t, c) {
			after[m.ID] = m
		}
		for _, m := range before {
			if a := after[m.ID]; a != nil && (m.Status == vault.StatusSuperseded && a.Status != m.Status || m.Status == vault.StatusArchived && a.Status == vault.StatusActive) {
				t.Fatalf("sync %d (%s): %s (%s) went from %s to %s (%s):\n%s\nits log:\n%s", s.fig.syncs, args[1], m.ID, m.Path, m.Status, a.Status, a.Path, out,
					c.git("log", "--all", "--format=%h %p %an %cn %s", "--name-status", "-S"+m.ID))
			}
			if after[m.ID] == nil {
				t.Fatalf("sync %d (%s) lost %s (%s):\n%s\nreflog:\n%s\nlog:\n%s\nits log:\n%s", s.fig.syncs, args[1], m.ID, m.Path, out, c.git("reflog", "-12"), c.git("log", "--format=%h %p %an %cn %s", "--name-status", "-4"), c.git("log", "--all", "--format=%h %p %an %cn %s", "--name-status", "-S"+m.ID))
			}
		}
	}
}

// mergePR merges clone ci's branch into main as a forge would, by one of
// the ways teams choose, settling what the driver leaves for a person
// with `memvault resolve`, as a person would.
func (s *simTeam) mergePR(ci int) {
	t, c, pr := s.t, s.clones[ci], s.pr[ci]
	t.Helper()
	s.pr[ci] = nil
	c.git("checkout", "-q", "main")
	s.syncMain(ci)
	driver := []string{"-c", "merge.memvault.driver=" + gitrepo.DriverCommand(buildMemvault(t)), "-c", "merge.directoryRenames=false", "-c", "core.editor=true"}
	g := func(args ...string) bool {
		_, ok := c.try(append(slices.Clone(driver), args...)...)
		return ok
	}
	settle := func(what string) {
		if code, out := c.memvault("resolve"); code != 0 {
			t.Fatalf("PR %d (%s): memvault resolve: exit %d\n%s\n%s", pr.n, what, code, out, c.git("status"))
		}
	}
	staged := func() bool { _, same := c.try("diff", "--cached", "--quiet"); return !same }
	style := []string{"squash-git", "squash-github", "rebase", "pick", "pick-x"}[s.rng.IntN(5)]
	switch style {
	case "squash-git", "squash-github":
		items := c.git("log", "--reverse", "--format=* %B", "main..pr")
		if !g("merge", "-q", "--squash", "pr") {
			settle(style)
		}
		if !staged() {
			break
		}
		if style == "squash-git" {
			c.git(append(slices.Clone(driver), "commit", "-q")...) // git's own message (SQUASH_MSG)
			if msg := c.git("log", "-1", "--format=%B"); !strings.HasPrefix(msg, "Squashed commit of the following:") {
				t.Fatalf("git's squash message:\n%s", msg)
			}
			break
		}
		msg := filepath.Join(t.TempDir(), "msg")
		if err := os.WriteFile(msg, fmt.Appendf(nil, "Sim PR (#%d)\n\n%s", pr.n, items), 0o644); err != nil {
			t.Fatal(err)
		}
		c.git("commit", "-q", "-F", msg)
	case "rebase":
		// A commit that becomes empty (its change outranked on main) is
		// kept with its message, as sync --rebase keeps it: its reason
		// is part of the memory's story.
		for ok := g("rebase", "-q", "--empty=keep", "main", "pr"); !ok; ok = g("rebase", "--continue") {
			settle(style)
			if !staged() {
				c.git("commit", "-q", "--allow-empty", "--no-verify", "-C", "REBASE_HEAD")
			}
		}
		c.git("checkout", "-q", "main")
		c.git("merge", "-q", "--ff-only", "pr")
	case "pick", "pick-x":
		commits := strings.Fields(c.git("rev-list", "--reverse", "main..pr"))
		for _, sha := range commits {
			args := []string{"cherry-pick", "--keep-redundant-commits", sha}
			if style == "pick-x" {
				args = []string{"cherry-pick", "--keep-redundant-commits", "-x", sha}
			}
			if g(args...) {
				continue
			}
			settle(style)
			if staged() {
				if !g("cherry-pick", "--continue") {
					t.Fatalf("PR %d: cherry-pick --continue:\n%s", pr.n, c.git("status"))
				}
			} else {
				// Empty once settled: kept, as a rebase keeps it.
				c.git("commit", "-q", "--allow-empty", "--no-verify", "-C", sha)
			}
		}
	}
	c.git("branch", "-q", "-D", "pr")
	s.fig.prs[style]++
	// A squash keeps each memory's newest reason of the branch; the
	// other ways keep every commit.
	squash := strings.HasPrefix(style, "squash")
	for i, op := range pr.ops {
		if squash && slices.ContainsFunc(pr.ops[i+1:], func(o simOp) bool { return o.id == op.id }) {
			continue
		}
		s.md.reasons[op.id] = append(s.md.reasons[op.id], op.reason)
	}
}

// changed records an acknowledged change of field by who.
func (s *simTeam) changed(id, field, value string, who int) {
	md := s.md
	if md.last[id] == nil {
		md.last[id] = map[string]simChange{}
	}
	md.last[id][field] = simChange{s.seq, value}
	if field == "layer" {
		md.layers[id] = append(md.layers[id], value)
	}
	s.touched(id, field, who)
}

// touched records that who changed field of id (the conflict record's
// name of it).
func (s *simTeam) touched(id, field string, who int) {
	md := s.md
	if md.changers[id] == nil {
		md.changers[id] = map[string]map[int]bool{}
	}
	if md.changers[id][field] == nil {
		md.changers[id][field] = map[int]bool{}
	}
	md.changers[id][field][who] = true
	if who != simHand {
		s.dirty[who][id] = true
	}
}

// acknowledge records the reason a memvault write gave for id: in the
// model now, or when its branch merges.
func (s *simTeam) acknowledge(ci int, id, reason string) {
	if pr := s.pr[ci]; pr != nil {
		pr.ops = append(pr.ops, simOp{id, reason})
		return
	}
	s.md.reasons[id] = append(s.md.reasons[id], reason)
}

// write runs one random memvault write in clone ci.
func (s *simTeam) write(ci int) {
	t, c, md, rng := s.t, s.clones[ci], s.md, s.rng
	t.Helper()
	s.seq++
	seq := s.seq
	reason := fmt.Sprintf("why %d.", seq)
	mems := slices.DeleteFunc(simActive(t, c), func(m *vault.Memory) bool { return m.Damaged != "" || s.broken[m.ID] != "" })
	kind := rng.IntN(8)
	if len(mems) == 0 {
		kind = 0
	}
	var target *vault.Memory
	if kind != 0 {
		target = mems[rng.IntN(len(mems))]
	}
	titles := []string{"Use pnpm", "Redis is a cache", "Money is int64 cents", "API errors use HTTP codes", "日志用结构化 JSON", "Deploy on Fridays never"}
	var args []string
	switch kind {
	case 0:
		title := titles[rng.IntN(len(titles))]
		if rng.IntN(3) > 0 {
			title = fmt.Sprintf("%s %d", title, seq)
		}
		args = []string{"add", title, "--content", fmt.Sprintf("Body %d.", seq), "--reason", reason}
	case 1:
		args = []string{"update", target.ID, "--tags", strings.Join(append(slices.Clone(target.Tags), fmt.Sprintf("t%d", seq)), ","), "--reason", reason}
	case 2:
		args = []string{"update", target.ID, "--title", fmt.Sprintf("Title %d", seq), "--reason", reason}
	case 3:
		args = []string{"update", target.ID, "--content", fmt.Sprintf("Body %d.", seq), "--reason", reason}
	case 4:
		args = []string{"add", fmt.Sprintf("Successor %d", seq), "--content", fmt.Sprintf("Body %d.", seq), "--supersedes", target.ID, "--reason", reason}
	case 5:
		args = []string{"forget", target.ID, "--reason", reason}
	case 6:
		others := slices.DeleteFunc([]string{"project", "meta", "short-term"}, func(l string) bool { return l == target.Layer.Dir() })
		args = []string{"update", target.ID, "--layer", others[rng.IntN(len(others))], "--reason", reason}
	case 7:
		// The code a memory is about changes, and its owner updates the
		// memory (or a new file comes with a new memory about it).
		owned := slices.DeleteFunc(slices.Clone(mems), func(m *vault.Memory) bool { return md.code[m.ID] == "" || md.codeOwner[m.ID] != ci })
		src := fmt.Sprintf("src/c%d.go", seq)
		if len(owned) > 0 && rng.IntN(2) == 0 {
			target = owned[rng.IntN(len(owned))]
			src = md.code[target.ID]
			args = []string{"update", target.ID, "--content", fmt.Sprintf("Body %d.", seq), "--reason", reason}
		} else {
			target = nil
			args = []string{"add", fmt.Sprintf("Code %d", seq), "--content", fmt.Sprintf("Body %d.", seq), "--refs", src, "--reason", reason}
		}
		p := filepath.Join(c.root, filepath.FromSlash(src))
		old, _ := os.ReadFile(p)
		c.write(src, fmt.Sprintf("%spackage src // change %d\n", old, seq))
		c.git("add", src)
		c.git("commit", "-q", "-m", fmt.Sprintf("src: change %d", seq))
	}
	code, out := simRun(t, c, args...)
	switch {
	case code == 1:
		s.fig.refused++ // a refusal the command explains (a duplicate title, nothing to change)
		t.Logf("refused: memvault %s: %s", strings.Join(args[:2], " "), strings.TrimSpace(out))
		if kind == 7 && target != nil {
			md.mayBeStale[target.ID] = true
		}
		return
	case code != 0:
		t.Fatalf("memvault %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	out = strings.TrimSpace(out)
	if *simDebug {
		if st := c.git("show", "--name-status", "--format=", "HEAD"); strings.Count(st, "\n") > 2 {
			t.Fatalf("op %d memvault %s touched:\n%s\nparent tree:\n%s\nreflog:\n%s", seq, strings.Join(args, " "), st, c.git("ls-tree", "-r", "--name-only", "HEAD~1"), c.git("reflog", "-8"))
		}
	}
	switch {
	case kind == 0 || kind == 4 || kind == 7 && target == nil:
		id := out[strings.LastIndexByte(out, '\n')+1:]
		md.ids = append(md.ids, id)
		s.changed(id, "title", args[1], ci)
		s.changed(id, "body", args[3], ci)
		s.changed(id, "layer", vault.Project.Dir(), ci)
		s.acknowledge(ci, id, reason)
		switch kind {
		case 4:
			md.superseded[target.ID] = id
			s.touched(target.ID, "status", ci)
		case 7:
			md.code[id], md.codeOwner[id] = args[5], ci
		}
		return
	case kind == 1:
		md.tags[target.ID] = append(md.tags[target.ID], fmt.Sprintf("t%d", seq))
		s.touched(target.ID, "tags", ci)
	case kind == 2:
		s.changed(target.ID, "title", args[3], ci)
	case kind == 3 || kind == 7:
		s.changed(target.ID, "body", args[3], ci)
	case kind == 5:
		md.archived[target.ID] = true
		s.touched(target.ID, "status", ci)
	case kind == 6:
		s.changed(target.ID, "layer", args[3], ci)
	}
	s.acknowledge(ci, target.ID, reason)
}

// handBreak: the teammate without memvault changes a memory's title by
// hand to one with an unquoted colon (YAML that does not parse) and
// pushes. The memory is one nobody has an unpushed write of (a write
// beside it is a conflict of the whole file, by design: finding 3), and
// nobody writes it until the fix.
func (s *simTeam) handBreak() {
	t, h := s.t, s.hand
	t.Helper()
	s.seq++
	h.git("fetch", "-q", "origin")
	h.git("reset", "-q", "--hard", "origin/main")
	mems := slices.DeleteFunc(simActive(t, h), func(m *vault.Memory) bool {
		return m.Damaged != "" || s.broken[m.ID] != "" || len(m.Conflicted) > 0 || slices.ContainsFunc(s.dirty, func(d map[string]bool) bool { return d[m.ID] })
	})
	if len(mems) == 0 {
		return
	}
	m := mems[s.rng.IntN(len(mems))]
	title := fmt.Sprintf("Hand: %d", s.seq)
	s.setTitle(m.ID, "title: "+title)
	h.git("commit", "-q", "-am", "Retitle a memory by hand")
	h.git("push", "-q", "origin", "main")
	s.broken[m.ID] = title
	s.fig.breaks++
}

// handFix: the teammate quotes the title it broke and pushes.
func (s *simTeam) handFix() {
	t, h := s.t, s.hand
	t.Helper()
	ids := slices.Sorted(maps.Keys(s.broken))
	id := ids[s.rng.IntN(len(ids))]
	h.git("fetch", "-q", "origin")
	h.git("reset", "-q", "--hard", "origin/main")
	title := s.broken[id]
	s.seq++
	s.setTitle(id, fmt.Sprintf("title: %q", title))
	h.git("commit", "-q", "-am", "Quote the title")
	h.git("push", "-q", "origin", "main")
	delete(s.broken, id)
	s.changed(id, "title", title, simHand)
	s.fig.fixes++
}

// setTitle replaces the title line of memory id's file in the teammate's
// clone.
func (s *simTeam) setTitle(id, line string) {
	t := s.t
	t.Helper()
	files, err := filepath.Glob(filepath.Join(s.hand.root, ".memory", "*", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte("\nid: "+id+"\n")) {
			continue
		}
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "title:") {
				lines[i] = line
				break
			}
		}
		if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("the teammate's clone holds no file of %s", id)
}

// simRun runs a memvault command in this process (the CLI's own code,
// as the binary would, without a process start per operation: the syncs
// start the binary).
func simRun(t *testing.T, c *mergeRepo, args ...string) (int, string) {
	var out bytes.Buffer
	m := NewMain(strings.NewReader(""), &out, &out)
	code := m.Run(t.Context(), append([]string{"--vault", filepath.Join(c.root, ".memory")}, args...))
	return code, out.String()
}

// simActive lists the clone's active memories, as its vault loads them.
func simActive(t *testing.T, c *mergeRepo) []*vault.Memory {
	t.Helper()
	v, err := vault.Open(t.Context(), filepath.Join(c.root, ".memory"), vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*vault.Memory
	for _, m := range v.All() {
		if m.Status == vault.StatusActive && m.Layer != vault.Transient {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b *vault.Memory) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func simAll(t *testing.T, c *mergeRepo) []*vault.Memory {
	t.Helper()
	v, err := vault.Open(t.Context(), filepath.Join(c.root, ".memory"), vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v.All()
}

func simConverged(clones []*mergeRepo) bool {
	head := clones[0].git("rev-parse", "HEAD")
	for _, c := range clones[1:] {
		if c.git("rev-parse", "HEAD") != head {
			return false
		}
	}
	return true
}

// simCheck checks the converged vault against what was acknowledged.
func simCheck(t *testing.T, c *mergeRepo, md *simModel) {
	t.Helper()
	dir := filepath.Join(c.root, ".memory")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if line := merge.MarkerLine(data); line > 0 {
			t.Errorf("%s:%d: conflict marker", f, line)
		}
	}
	v, err := vault.Open(t.Context(), dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string][]*vault.Memory{}
	for _, m := range v.All() {
		byID[m.ID] = append(byID[m.ID], m)
	}
	conflicts := 0
	for _, m := range v.All() {
		if len(m.Conflicted) > 0 {
			conflicts++
		}
		// Every write of a short-term memory renews its expiry: two edits
		// of other fields move it on both sides, and the later renewal
		// holds. An expiry is for a person only beside two layer moves.
		if slices.Contains(m.Conflicted, "expires_at") && !slices.Contains(m.Conflicted, "layer") {
			t.Errorf("%s (%s): a renewal of its expiry was left for a person: conflicted %v", m.ID, m.Path, m.Conflicted)
		}
	}
	var failed []string
	for _, id := range md.ids {
		before := t.Failed()
		ms := byID[id]
		if len(ms) != 1 {
			t.Errorf("%s: %d memories, want 1", id, len(ms))
			failed = append(failed, id)
			continue
		}
		m := ms[0]
		surfaced := func(field string) bool { return slices.Contains(m.Conflicted, field) }
		for field, ch := range md.last[id] {
			got := map[string]string{"title": m.Title, "body": strings.TrimSpace(m.Body), "layer": m.Layer.Dir()}[field]
			want := ch.value
			// A memory moved and moved back on one clone while another
			// moved it once shows no change of the first against the
			// merge base (ABA): a three-way merge takes the second. The
			// layer must then be one acknowledged for it, and match the
			// file's folder.
			if field == "layer" && got != want && slices.Contains(md.layers[id], m.Layer.Dir()) {
				continue
			}
			if got != want && !surfaced(field) {
				t.Errorf("%s (%s): %s is %q, want the latest acknowledged %q (change %d) or a conflict record naming it", id, m.Path, field, got, want, ch.seq)
			}
		}
		for _, tag := range md.tags[id] {
			if !slices.ContainsFunc(m.Tags, func(s string) bool { return strings.EqualFold(s, tag) }) {
				t.Errorf("%s (%s): tag %s lost; tags %v", id, m.Path, tag, m.Tags)
			}
		}
		switch succ, sup := md.superseded[id]; {
		case sup && m.Status != vault.StatusSuperseded:
			t.Errorf("%s (%s): status %s, want superseded (by %s)", id, m.Path, m.Status, succ)
		case md.archived[id] && m.Status == vault.StatusActive:
			t.Errorf("%s (%s): status active, want archived", id, m.Path)
		}
		if succ, ok := md.superseded[id]; ok && len(byID[succ]) == 1 && !slices.Contains(byID[succ][0].Supersedes, id) {
			t.Errorf("%s: its successor %s does not list it in supersedes %v", id, succ, byID[succ][0].Supersedes)
		}
		if t.Failed() && !before {
			failed = append(failed, id)
		}
	}
	// Reasons: each memory's history names every reason its writes gave.
	lostReasons, falseStale, forPerson := 0, 0, 0
	for _, id := range md.ids {
		if len(md.reasons[id]) == 0 || len(byID[id]) != 1 {
			continue
		}
		code, out := simRun(t, c, "history", id, "--json")
		var h view.History
		if err := json.Unmarshal([]byte(out), &h); code != 0 || err != nil {
			t.Fatalf("history %s: exit %d, %v\n%s", id, code, err, out)
		}
		var told []string
		for _, r := range h.Revisions {
			told = append(told, r.Reason)
		}
		all := strings.Join(told, "\n")
		for _, r := range md.reasons[id] {
			if !strings.Contains(all, r) {
				lostReasons++
				t.Errorf("%s (%s): its history does not name the reason %q; it names %q\nthe commits naming it:\n%s", id, byID[id][0].Path, r, told,
					c.git("log", "--all", "--format=%h %p %an %s%n%b%n--", "--name-status", "--grep="+id))
			}
		}
	}
	// Staleness: a memory written after (or with) the code it refers to
	// is fresh, whichever way its commits reached main.
	for id, src := range md.code {
		if len(byID[id]) != 1 || byID[id][0].Status != vault.StatusActive || md.mayBeStale[id] {
			continue
		}
		code, out := simRun(t, c, "show", id, "--json")
		var m view.Memory
		if err := json.Unmarshal([]byte(out), &m); code != 0 || err != nil {
			t.Fatalf("show %s: exit %d, %v\n%s", id, code, err, out)
		}
		if m.Staleness != nil && m.Staleness.State != "fresh" {
			falseStale++
			t.Errorf("%s (%s, about %s): %s: %s; want fresh (written after its code)", id, m.Path, src, m.Staleness.State, m.Staleness.Reason)
		}
	}
	// Conflicts for a person: only where two people changed the field.
	// (Two moves of one memory to two layers once left every field one
	// side changed too; and resolve put a memory both moved in the
	// folder of the layer it did not keep.)
	for _, m := range v.All() {
		if folder, _, _ := strings.Cut(m.Path, "/"); folder != m.Layer.Dir() {
			t.Errorf("%s: layer %s in folder %s", m.ID, m.Layer.Dir(), m.Path)
		}
		for _, f := range m.Conflicted {
			forPerson++
			if f == "expires_at" || f == "updated_at" {
				continue // checked above; a layer move renews it
			}
			if len(md.changers[m.ID][f]) < 2 {
				t.Errorf("%s (%s): conflict record names %s, which %d person(s) changed: %v", m.ID, m.Path, f, len(md.changers[m.ID][f]), slices.Sorted(maps.Keys(md.changers[m.ID][f])))
			}
		}
	}
	t.Logf("lost fields in %d memories, %d lost reasons, %d possibly stale of %d memories about code, %d field(s) left for a person", len(failed), lostReasons, falseStale, len(md.code), forPerson)
	for _, id := range failed[:min(len(failed), 3)] {
		t.Logf("history of %s:\n%s", id, c.git("log", "--format=%h %p %an %cn %s", "--name-status", "-S"+id))
	}
	code, out := c.memvault("lint")
	if code != 0 {
		t.Errorf("lint: exit %d\n%s", code, out)
	}
	joins := strings.Count(c.git("log", "--format=%s", "--grep=^memory: join "), "\n")
	t.Logf("%d memories, %d carry a conflict record, %d join commit(s); lint: %s", len(v.All()), conflicts, joins, lastLine(out))
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}
