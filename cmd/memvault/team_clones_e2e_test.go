package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/merge"
)

// teamClone is one clone of a team's repository: the git CLI and the
// real binary (init, doctor, lint, history, serve, and the merge driver
// git runs), and memvault's writes in-process at a clock the test moves,
// so two clones' edits never share a second by accident.
type teamClone struct {
	name string
	git  *mergeRepo // git and the binary, in the clone
	cli  *cliRepo   // writes, in-process
}

func newTeamClone(t *testing.T, origin, name string) *teamClone {
	t.Helper()
	root := filepath.Join(t.TempDir(), name)
	m := &mergeRepo{t: t, root: filepath.Dir(root)}
	m.git("clone", "-q", origin, root)
	m.root = root
	return &teamClone{name: name, git: m, cli: &cliRepo{t: t, root: root, dir: filepath.Join(root, ".memory"), now: gitTestNow, home: t.TempDir()}}
}

// write runs a memvault write in-process, an hour after the clone's last.
func (c *teamClone) write(args ...string) string {
	c.cli.t.Helper()
	c.cli.tick(time.Hour)
	return c.cli.ok(args...)
}

// add writes a memory and returns its id.
func (c *teamClone) add(title, content string, extra ...string) string {
	c.cli.t.Helper()
	c.cli.tick(time.Hour)
	return c.cli.addMemory(title, content, extra...)
}

// memvault runs the binary in the clone and fails unless it exits 0.
func (c *teamClone) memvault(args ...string) string {
	c.git.t.Helper()
	code, out := c.git.memvault(args...)
	if code != 0 {
		c.git.t.Fatalf("%s: memvault %s: exit %d\n%s", c.name, strings.Join(args, " "), code, out)
	}
	return out
}

// get loads the clone's vault as the server and the CLI would and returns
// memory id.
func (c *teamClone) get(id string) *vault.Memory {
	c.git.t.Helper()
	v, err := vault.Open(context.Background(), c.cli.dir, vault.Options{Now: func() time.Time { return c.cli.now }})
	if err != nil {
		c.git.t.Fatal(err)
	}
	m, err := v.Get(id)
	if err != nil {
		c.git.t.Fatalf("%s: %v", c.name, err)
	}
	return m
}

// history returns memory id's revisions as `memvault history --json`
// prints them (the real binary).
func (c *teamClone) history(id string) []view.Revision {
	c.git.t.Helper()
	var h view.History
	if err := json.Unmarshal([]byte(c.memvault("history", id, "--json")), &h); err != nil {
		c.git.t.Fatal(err)
	}
	return h.Revisions
}

// checkInvariants holds the clone to what a merge must never do: a
// conflict marker in a memory file, a memory the test never wrote (a
// ghost), a lint error; lint's warnings must be clean or, when want is
// set, name the conflict the test expects.
func (c *teamClone) checkInvariants(known map[string]bool, want string) {
	t := c.git.t
	t.Helper()
	err := filepath.WalkDir(c.cli.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if line := merge.MarkerLine(data); line > 0 {
			t.Errorf("%s: %s:%d holds a conflict marker", c.name, p, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(context.Background(), c.cli.dir, vault.Options{Now: func() time.Time { return c.cli.now }})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range v.All() {
		if !known[m.ID] {
			t.Errorf("%s: a ghost memory %s (%q, %s)", c.name, m.ID, m.Title, m.Path)
		}
	}
	code, out := c.git.memvault("lint")
	switch {
	case code != 0:
		t.Errorf("%s: lint exit %d:\n%s", c.name, code, out)
	case want == "" && !strings.Contains(out, " 0 errors, 0 warnings"):
		t.Errorf("%s: lint is not clean:\n%s", c.name, out)
	case want != "" && !regexp.MustCompile(want).MatchString(out):
		t.Errorf("%s: lint does not name the conflict (%s):\n%s", c.name, want, out)
	}
}

// TestTeamThroughGit plays a team on a bare origin and two clones, each
// writing memories, pulling with merge and with rebase through the
// memvault merge driver (registered by init in one clone, by doctor --fix
// in the other): supersede vs update, supersede vs forget, layer move vs
// edit, different fields edited in one second (and the stale update
// prepared before the pull), body vs body settled by resolve --theirs,
// and a same-field conflict while a server runs in the clone. After
// each: no marker, no ghost, lint clean or naming the conflict, every
// change present or told by history, history naming both sides of a
// merge and keeping a rebased commit's story.
func TestTeamThroughGit(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary, runs git and a server")
	}
	origin := filepath.Join(t.TempDir(), "origin.git")
	(&mergeRepo{t: t, root: filepath.Dir(origin)}).git("init", "-q", "--bare", "--initial-branch=main", origin)

	a := newTeamClone(t, origin, "a")
	a.git.git("checkout", "-q", "-b", "main")
	a.memvault("init")
	known := map[string]bool{}
	remember := func(id string) string { known[id] = true; return id }
	old1 := remember(a.add("Orders have three states", "unpaid, paid, cancelled.\n", "--reason", "order model v1"))
	old2 := remember(a.add("Refunds are manual", "Support refunds by hand in the admin.\n", "--reason", "no refund API yet"))
	mov := remember(a.add("The admin list is slow above 10k rows", "Seen while testing.\n", "--layer", "short-term", "--reason", "observed"))
	conf := remember(a.add("Money is int64 cents", "Never float64.\n", "--reason", "ledger"))
	if st := a.git.git("status", "--porcelain"); st != "" {
		a.git.git("add", "-A")
		a.git.git("commit", "-q", "-m", "memvault init")
	}
	a.git.git("push", "-q", "-u", "origin", "main")
	if attr := a.git.git("check-attr", "merge", ".memory/project/x.md"); !strings.Contains(attr, "merge: memvault") {
		t.Fatalf("the vault's .gitattributes is not in effect: %s", attr)
	}

	// A fresh clone has the attribute, not the driver: doctor says so,
	// doctor --fix registers it.
	b := newTeamClone(t, origin, "b")
	if code, out := b.git.memvault("doctor"); code == 0 || !strings.Contains(out, "memvault doctor --fix") {
		t.Errorf("doctor in a fresh clone: exit %d\n%s", code, out)
	}
	b.memvault("doctor", "--fix")
	if _, ok := b.git.try("config", "merge.memvault.driver"); !ok {
		t.Fatal("doctor --fix did not register the driver")
	}
	b.cli.now = a.cli.now // B's writes come after A's of each round: B ticks once more
	sync := func(from, to *teamClone, args ...string) {
		t.Helper()
		from.git.git("push", "-q", "origin", "main")
		to.git.git(append([]string{"pull", "-q"}, args...)...)
	}

	t.Run("supersede vs update, merged", func(t *testing.T) {
		new1 := remember(a.add("Orders have four states", "unpaid, paid, cancelled, refunded.\n", "--supersedes", old1, "--reason", "refunds launched"))
		a.git.git("push", "-q", "origin", "main")
		b.cli.tick(time.Hour)
		b.write("update", old1, "--importance", "9", "--content", "unpaid, paid, cancelled. Finance reports count on it.\n", "--reason", "finance relies on it")
		b.git.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
		m := b.get(old1)
		if m.Status != vault.StatusSuperseded || m.Importance != 9 || !strings.Contains(m.Body, "Finance reports") || m.Version != 3 || len(m.Conflicted) != 0 {
			t.Errorf("merged %s: status %s importance %d version %d conflicted %v body %q; want superseded, 9, version 3, B's body",
				old1, m.Status, m.Importance, m.Version, m.Conflicted, m.Body)
		}
		if n := b.get(new1); !slices.Contains(n.Supersedes, old1) {
			t.Errorf("the successor lost its supersedes: %v", n.Supersedes)
		}
		b.checkInvariants(known, "")
		revs := b.history(old1)
		if len(revs) < 3 || revs[0].Kind != "merged" || len(revs[0].Merged) != 2 ||
			!strings.Contains(revs[0].Reason, "finance relies on it") || !strings.Contains(revs[0].Reason, "refunds launched") {
			t.Errorf("history of %s does not tell the merge by both sides: %+v", old1, revs)
		}
		sync(b, a, "--no-rebase", "--no-edit", "origin", "main")
	})

	t.Run("supersede vs forget, rebased", func(t *testing.T) {
		a.cli.now = b.cli.now
		new2 := remember(a.add("Refunds go through the provider API", "POST /refunds.\n", "--supersedes", old2, "--reason", "refund API shipped"))
		a.git.git("push", "-q", "origin", "main")
		b.cli.now = a.cli.now
		b.write("forget", old2, "--reason", "nobody refunds by hand any more")
		b.git.git("pull", "-q", "--rebase", "origin", "main")
		m := b.get(old2)
		if m.Status != vault.StatusSuperseded || len(m.Conflicted) != 0 {
			t.Errorf("after the rebase %s is %s (conflicted %v); want superseded (it outranks archived)", old2, m.Status, m.Conflicted)
		}
		if n := b.get(new2); !slices.Contains(n.Supersedes, old2) {
			t.Errorf("the successor lost its supersedes: %v", n.Supersedes)
		}
		b.checkInvariants(known, "")
		// The rebased forget keeps its reason and client; the supersession
		// that won is next in the story.
		revs := b.history(old2)
		if len(revs) < 3 || revs[0].Reason != "nobody refunds by hand any more" || revs[0].Client != "cli" ||
			!strings.Contains(revs[0].Subject, "archive") || revs[1].Reason != "refund API shipped" {
			t.Errorf("history of %s after the rebase: %+v", old2, revs)
		}
		sync(b, a, "--no-rebase", "--no-edit", "origin", "main")
	})

	t.Run("layer move vs edit, merged", func(t *testing.T) {
		a.cli.now = b.cli.now
		a.write("update", mov, "--layer", "project", "--reason", "it is a lasting rule")
		a.git.git("push", "-q", "origin", "main")
		b.cli.now = a.cli.now
		b.write("update", mov, "--tags", "admin,performance", "--reason", "tagged for search")
		b.git.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
		m := b.get(mov)
		if m.Layer != vault.Project || !strings.HasPrefix(m.Path, "project/") || !slices.Equal(m.Tags, []string{"admin", "performance"}) || len(m.Conflicted) != 0 {
			t.Errorf("merged %s: layer %s path %s tags %v conflicted %v; want project, project/, the tags", mov, m.Layer, m.Path, m.Tags, m.Conflicted)
		}
		if _, err := os.Stat(filepath.Join(b.cli.dir, "short-term")); err == nil {
			if left, _ := filepath.Glob(filepath.Join(b.cli.dir, "short-term", "*.md")); len(left) > 0 {
				t.Errorf("a copy stayed in short-term/: %v", left)
			}
		}
		b.checkInvariants(known, "")
		revs := b.history(mov)
		var reasons []string
		for _, r := range revs {
			reasons = append(reasons, r.Reason)
		}
		for _, want := range []string{"it is a lasting rule", "tagged for search", "observed"} {
			if !slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(r, want) }) {
				t.Errorf("history of %s lacks %q: %q", mov, want, reasons)
			}
		}
		sync(b, a, "--no-rebase", "--no-edit", "origin", "main")
	})

	t.Run("different fields in the same second, merged", func(t *testing.T) {
		same := remember(a.add("Feature flags are named team.area.flag", "Remove them after launch.\n", "--reason", "flag hygiene"))
		sync(a, b, "--no-rebase", "--no-edit", "origin", "main")
		at := b.cli.now
		a.cli.now, b.cli.now = at, at // both write in one second: both files say version 2
		a.write("update", same, "--importance", "9", "--reason", "flags broke checkout twice")
		a.git.git("push", "-q", "origin", "main")
		b.write("update", same, "--tags", "flags,hygiene", "--reason", "tagged for search")
		before := b.get(same)
		b.git.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
		m := b.get(same)
		if m.Importance != 9 || !slices.Equal(m.Tags, []string{"flags", "hygiene"}) || m.Version != 3 || len(m.Conflicted) != 0 {
			t.Errorf("merged %s: importance %d tags %v version %d conflicted %v; want 9, both tags, version 3 (max+1), clean",
				same, m.Importance, m.Tags, m.Version, m.Conflicted)
		}
		// An update prepared before the pull, on B's version 2, is stale.
		code, _ := b.cli.run("", "update", same, "--expected-version", before.ETag(), "--importance", "4", "--reason", "prepared before the pull")
		if out := b.cli.lastStderr; code == 0 || !strings.Contains(out, m.ETag()) {
			t.Errorf("update --expected-version with the pre-pull etag: exit %d (want refused naming %s)\n%s", code, m.ETag(), out)
		}
		if b.get(same).Importance != 9 {
			t.Error("the stale update was applied")
		}
		b.checkInvariants(known, "")
		sync(b, a, "--no-rebase", "--no-edit", "origin", "main")
	})

	t.Run("body vs body, merged", func(t *testing.T) {
		body := remember(a.add("Deploys go through ops/release.sh", "Run it from main.\nIt tags the release.\n", "--reason", "release script"))
		sync(a, b, "--no-rebase", "--no-edit", "origin", "main")
		a.cli.now = b.cli.now
		a.write("update", body, "--content", "Run it from main after CI is green.\nIt tags the release.\n", "--reason", "CI first")
		a.git.git("push", "-q", "origin", "main")
		b.cli.now = a.cli.now
		b.write("update", body, "--content", "Run it from a release branch.\nIt tags the release.\n", "--reason", "release branches now")
		if out, ok := b.git.try("pull", "--no-rebase", "--no-edit", "origin", "main"); ok || !strings.Contains(out, "body") {
			t.Fatalf("the pull did not stop on the body conflict:\n%s", out)
		}
		m := b.get(body)
		if !slices.Contains(m.Conflicted, "body") || !strings.Contains(m.Body, "release branch") {
			t.Errorf("during the merge %s: conflicted %v body %q; want ours served, body named", body, m.Conflicted, m.Body)
		}
		data, err := os.ReadFile(filepath.Join(b.cli.dir, filepath.FromSlash(m.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "after CI is green") {
			t.Errorf("their body is not readable in the file:\n%s", data)
		}
		b.checkInvariants(known, `conflict: unresolved merge conflict: both sides changed body`)
		// The person takes their body: resolve --theirs, then commit.
		b.memvault("resolve", "--theirs", body)
		b.git.git("commit", "-q", "--no-edit")
		if m := b.get(body); !strings.Contains(m.Body, "after CI is green") || len(m.Conflicted) != 0 {
			t.Errorf("after resolve --theirs: body %q conflicted %v", m.Body, m.Conflicted)
		}
		b.checkInvariants(known, "")
		sync(b, a, "--no-rebase", "--no-edit", "origin", "main")
	})

	t.Run("a server through a same-field conflict", func(t *testing.T) {
		s, log := startLoggedServe(t, b.git.root)
		get := func() view.Memory {
			var m view.Memory
			s.ok("get_memory", map[string]any{"id": conf}, &m)
			return m
		}
		get() // the server has loaded the vault

		a.cli.now = b.cli.now
		a.write("update", conf, "--title", "Money is int64 minor units", "--reason", "yen has no cents")
		a.git.git("push", "-q", "origin", "main")
		b.cli.now = a.cli.now
		b.write("update", conf, "--title", "金额用 int64 分", "--reason", "中文标题")
		mark := log.Len()
		if out, ok := b.git.try("pull", "--no-rebase", "--no-edit", "origin", "main"); ok || !strings.Contains(out, "both sides changed title") {
			t.Fatalf("the pull did not stop on the title conflict:\n%s", out)
		}
		var during view.Memory
		liveAwaitLog(t, log, mark, "applied file changes", func() bool {
			during = get()
			return slices.Contains(during.Conflicted, "title")
		})
		if during.Title != "金额用 int64 分" || during.ConflictTheirs["title"] != "Money is int64 minor units" {
			t.Errorf("during the merge: title %q, theirs %v; want ours served and theirs readable", during.Title, during.ConflictTheirs)
		}
		b.checkInvariants(known, `conflict: unresolved merge conflict: both sides changed title`)
		msg := s.fails("remember", map[string]any{"title": "Prices are in cents", "content": "x", "reason": "during the merge"})
		if !strings.Contains(msg, "git merge --continue") {
			t.Errorf("remember during the merge: %s", msg)
		}

		// The person decides: both titles, one line; the entry goes.
		path := filepath.Join(b.cli.dir, filepath.FromSlash(during.Path))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, line := range strings.Split(string(data), "\n") {
			switch {
			case strings.HasPrefix(line, "conflict:"):
			case strings.HasPrefix(line, "title:"):
				kept = append(kept, "title: Money is int64 minor units (金额用 int64 分)")
			default:
				kept = append(kept, line)
			}
		}
		if err := os.WriteFile(path, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		b.git.git("add", "-A", ".memory")
		mark = log.Len()
		b.git.git("commit", "-q", "--no-edit")
		var after view.Memory
		liveAwaitLog(t, log, mark, "HEAD", func() bool {
			after = get()
			return len(after.Conflicted) == 0 && strings.HasPrefix(after.Title, "Money is int64 minor units (")
		})
		var w view.Write
		s.ok("remember", map[string]any{"title": "Prices are in cents", "content": "Like money.", "reason": "after the merge"}, &w)
		remember(w.ID)
		b.checkInvariants(known, "")
		revs := b.history(conf)
		if len(revs) == 0 || revs[0].Kind != "merged" || !strings.Contains(revs[0].Reason, "yen has no cents") || !strings.Contains(revs[0].Reason, "中文标题") {
			t.Errorf("history of the hand-resolved merge: %+v", revs)
		}
		var hist view.History
		s.ok("memory_history", map[string]any{"id": conf}, &hist)
		if len(hist.Revisions) == 0 || hist.Revisions[0].Kind != "merged" || len(hist.Revisions[0].Merged) != 2 {
			t.Errorf("memory_history of the hand-resolved merge: %+v", hist.Revisions)
		}
		sync(b, a, "--no-rebase", "--no-edit", "origin", "main")
	})

	// Both clones end on one tree, which holds every memory once.
	if ha, hb := a.git.git("rev-parse", "HEAD^{tree}"), b.git.git("rev-parse", "HEAD^{tree}"); ha != hb {
		t.Errorf("the clones differ: %s vs %s", ha, hb)
	}
	a.checkInvariants(known, "")
}
