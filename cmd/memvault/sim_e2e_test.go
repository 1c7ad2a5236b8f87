package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
}

// TestTeamSimulation runs random operations (add, add a tag, change the
// title, edit the body, supersede, forget, move to another layer) on
// three clones of one origin, with random `memvault sync --merge` and
// `--rebase` between them, then syncs until every clone holds the same
// tree, and checks: every id once, every acknowledged change present (the
// latest of its field), superseded by a later change of the same field,
// or surfaced as a conflict (the memory's conflict record names the
// field); no conflict marker; lint without errors. Operations run the
// CLI's code in this process (a process start each made the test twice
// as long on a loaded machine); every sync runs the real binary, which
// git runs again as the merge driver. -sim.ops and -sim.seed run it
// longer or otherwise.
func TestTeamSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	t.Parallel()
	rng := rand.New(rand.NewPCG(*simSeed, 0x5eed))
	tm := newTeam(t)
	clones := []*mergeRepo{tm.clone(), tm.clone(), tm.clone()}
	md := &simModel{layers: map[string][]string{}, tags: map[string][]string{}, last: map[string]map[string]simChange{}, archived: map[string]bool{}, superseded: map[string]string{}}
	var ops, syncs, refused, seq int
	sync := func(c *mergeRepo) {
		t.Helper()
		args := []string{"sync", "--merge"}
		if rng.IntN(2) == 0 {
			args = []string{"sync", "--rebase"}
		}
		syncs++
		var before []*vault.Memory
		if *simDebug {
			before = simAll(t, c)
		}
		code, out := c.memvault(args...)
		if code != 0 {
			t.Fatalf("sync %d (%s) in %s: exit %d\n%s", syncs, args[1], c.root, code, out)
		}
		if before != nil {
			after := map[string]*vault.Memory{}
			for _, m := range simAll(t, c) {
				after[m.ID] = m
			}
			for _, m := range before {
				if a := after[m.ID]; a != nil && (m.Status == vault.StatusSuperseded && a.Status != m.Status || m.Status == vault.StatusArchived && a.Status == vault.StatusActive) {
					wt := filepath.Join(t.TempDir(), "redo")
					p2 := strings.TrimSpace(c.git("rev-parse", "HEAD^2"))
					c.git("worktree", "add", "-q", "--detach", wt, "HEAD^1")
					redo, _ := runIn(wt, "git", "-c", "merge.directoryRenames=false", "merge", "-X", "find-renames=100%", p2)
					if strings.Contains(out, "rebased") {
						redo = "(a rebase)"
					}
					t.Fatalf("sync %d (%s): %s (%s) went from %s to %s (%s):\n%s\nits log:\n%s\nredo:\n%s\n%s", syncs, args[1], m.ID, m.Path, m.Status, a.Status, a.Path, out,
						c.git("log", "--all", "--format=%h %p %an %cn %s", "--name-status", "-S"+m.ID), redo, c.git("-C", wt, "ls-files", "-u"))
				}
				if after[m.ID] == nil {
					t.Fatalf("sync %d (%s) lost %s (%s):\n%s\nreflog:\n%s\nlog:\n%s\nits log:\n%s", syncs, args[1], m.ID, m.Path, out, c.git("reflog", "-12"), c.git("log", "--format=%h %p %an %cn %s", "--name-status", "-4"), c.git("log", "--all", "--format=%h %p %an %cn %s", "--name-status", "-S"+m.ID))
				}
			}
		}
	}
	change := func(id, field, value string) {
		if md.last[id] == nil {
			md.last[id] = map[string]simChange{}
		}
		md.last[id][field] = simChange{seq, value}
		if field == "layer" {
			md.layers[id] = append(md.layers[id], value)
		}
	}
	titles := []string{"Use pnpm", "Redis is a cache", "Money is int64 cents", "API errors use HTTP codes", "日志用结构化 JSON", "Deploy on Fridays never"}

	clones[0].add("Seed memory", "The first memory.")
	for _, c := range clones {
		sync(c)
	}
	md.ids = nil // the seed memory is not checked: added before the model
	start := time.Now()
	for ops < *simOps {
		c := clones[rng.IntN(len(clones))]
		if rng.IntN(5) == 0 {
			sync(c)
			continue
		}
		seq++
		ops++
		mems := simActive(t, c)
		kind := rng.IntN(7)
		if len(mems) == 0 {
			kind = 0
		}
		var target *vault.Memory
		if kind != 0 {
			target = mems[rng.IntN(len(mems))]
		}
		var args []string
		switch kind {
		case 0:
			title := titles[rng.IntN(len(titles))]
			if rng.IntN(3) > 0 {
				title = fmt.Sprintf("%s %d", title, seq)
			}
			args = []string{"add", title, "--content", fmt.Sprintf("Body %d.", seq), "--reason", "sim"}
		case 1:
			args = []string{"update", target.ID, "--tags", strings.Join(append(slices.Clone(target.Tags), fmt.Sprintf("t%d", seq)), ","), "--reason", "sim"}
		case 2:
			args = []string{"update", target.ID, "--title", fmt.Sprintf("Title %d", seq), "--reason", "sim"}
		case 3:
			args = []string{"update", target.ID, "--content", fmt.Sprintf("Body %d.", seq), "--reason", "sim"}
		case 4:
			args = []string{"add", fmt.Sprintf("Successor %d", seq), "--content", fmt.Sprintf("Body %d.", seq), "--supersedes", target.ID, "--reason", "sim"}
		case 5:
			args = []string{"forget", target.ID, "--reason", "sim"}
		case 6:
			others := slices.DeleteFunc([]string{"project", "meta", "short-term"}, func(l string) bool { return l == target.Layer.Dir() })
			args = []string{"update", target.ID, "--layer", others[rng.IntN(len(others))], "--reason", "sim"}
		}
		code, out := simRun(t, c, args...)
		switch {
		case code == 1:
			refused++ // a refusal the command explains (a duplicate title, nothing to change)
			t.Logf("refused: memvault %s: %s", strings.Join(args[:2], " "), strings.TrimSpace(out))
			continue
		case code != 0:
			t.Fatalf("memvault %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		out = strings.TrimSpace(out)
		if *simDebug {
			if st := c.git("show", "--name-status", "--format=", "HEAD"); strings.Count(st, "\n") > 2 {
				t.Fatalf("op %d memvault %s touched:\n%s\nparent tree:\n%s\nreflog:\n%s", seq, strings.Join(args, " "), st, c.git("ls-tree", "-r", "--name-only", "HEAD~1"), c.git("reflog", "-8"))
			}
		}
		switch kind {
		case 0, 4:
			id := out[strings.LastIndexByte(out, '\n')+1:]
			md.ids = append(md.ids, id)
			change(id, "title", args[1])
			change(id, "body", args[3])
			change(id, "layer", vault.Project.Dir())
			if kind == 4 {
				md.superseded[target.ID] = id
			}
		case 1:
			md.tags[target.ID] = append(md.tags[target.ID], fmt.Sprintf("t%d", seq))
		case 2:
			change(target.ID, "title", args[3])
		case 3:
			change(target.ID, "body", args[3])
		case 5:
			md.archived[target.ID] = true
		case 6:
			change(target.ID, "layer", args[3])
		}
	}
	// Converge: sync every clone in turn until a whole round changes
	// nothing and all hold one tree.
	rounds := 0
	for ; ; rounds++ {
		if rounds > 5 {
			t.Fatalf("no convergence after %d rounds", rounds)
		}
		for _, c := range clones {
			sync(c)
		}
		if simConverged(clones) {
			break
		}
	}
	t.Logf("seed %d: %d operations (%d refused), %d syncs (%d rounds to converge) in %s", *simSeed, ops, refused, syncs, rounds+1, time.Since(start).Round(time.Millisecond))
	for _, c := range clones {
		if st := c.git("status", "--porcelain"); st != "" {
			t.Errorf("%s: work tree not clean:\n%s", c.root, st)
		}
	}
	simCheck(t, clones[0], md)
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
		if folder, _, _ := strings.Cut(m.Path, "/"); folder != m.Layer.Dir() {
			t.Errorf("%s: layer %s in folder %s", id, m.Layer.Dir(), m.Path)
		}
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
