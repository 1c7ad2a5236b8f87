package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/vault"
)

// mergeRepo is a real git repository whose .gitattributes sends memory
// files to the memvault merge driver (this package's binary), with one
// memory committed on main.
type mergeRepo struct {
	t    *testing.T
	root string
}

const mergeMemory = ".memory/project/money.md"

func newMergeRepo(t *testing.T, base string) *mergeRepo {
	t.Helper()
	bin := buildMemvault(t)
	r := &mergeRepo{t: t, root: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	r.git("config", "merge.memvault.driver", gitrepo.DriverCommand(bin))
	r.write(".gitattributes", ".memory/**/*.md merge=memvault\n")
	r.write(mergeMemory, base)
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "base")
	return r
}

func (r *mergeRepo) write(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// try runs git and returns its output and whether it succeeded.
func (r *mergeRepo) try(args ...string) (string, bool) {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.root}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func (r *mergeRepo) git(args ...string) string {
	r.t.Helper()
	out, ok := r.try(args...)
	if !ok {
		r.t.Fatalf("git %s:\n%s", strings.Join(args, " "), out)
	}
	return out
}

// commitOn commits content as the memory on branch (created from main
// when new).
func (r *mergeRepo) commitOn(branch, content string) {
	r.t.Helper()
	if _, ok := r.try("rev-parse", "--verify", "-q", branch); ok {
		r.git("checkout", "-q", branch)
	} else {
		r.git("checkout", "-q", "-b", branch, "main")
	}
	r.write(mergeMemory, content)
	r.git("commit", "-q", "-am", "edit on "+branch)
}

func (r *mergeRepo) memory() string { return readFile(r.t, filepath.Join(r.root, mergeMemory)) }

const mergeBase = `---
id: 01JDX3Q8W7AAAAAAAAAAAAAAAA
title: Money is int64 cents
importance: 5
tags: [money]
---
Money is int64 cents, never float64.
`

func TestMergeDriverMergesDifferentFields(t *testing.T) {
	t.Parallel()
	r := newMergeRepo(t, mergeBase)
	r.commitOn("theirs", strings.Replace(mergeBase, "importance: 5", "importance: 8 # ledger incident", 1))
	r.commitOn("main", strings.Replace(mergeBase, "tags: [money]", "tags: [money, 金额]", 1))
	if out, ok := r.try("merge", "--no-edit", "theirs"); !ok {
		t.Fatalf("git merge failed:\n%s", out)
	}
	want := strings.Replace(strings.Replace(mergeBase, "importance: 5", "importance: 8 # ledger incident", 1), "tags: [money]", "tags: [money, 金额]", 1)
	if got := r.memory(); got != want {
		t.Errorf("merged memory:\n%s\nwant:\n%s", got, want)
	}
	if st := r.git("status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean after the merge:\n%s", st)
	}
}

func TestMergeDriverConflictLeavesNoMarkers(t *testing.T) {
	t.Parallel()
	r := newMergeRepo(t, mergeBase)
	r.commitOn("theirs", strings.Replace(mergeBase, "title: Money is int64 cents", "title: 金额用 int64 分", 1))
	r.commitOn("main", strings.Replace(mergeBase, "title: Money is int64 cents", "title: Money is int64 minor units", 1))
	out, ok := r.try("merge", "--no-edit", "theirs")
	if ok {
		t.Fatalf("git merge succeeded; want it to stop on the conflict:\n%s", out)
	}
	if !strings.Contains(out, "both sides changed title") {
		t.Errorf("git merge output does not say what disagrees:\n%s", out)
	}
	got := r.memory()
	for _, marker := range []string{"<<<<<<<", "=======", ">>>>>>>"} {
		if strings.Contains(got, marker) {
			t.Fatalf("merged memory holds %q:\n%s", marker, got)
		}
	}
	v, err := vault.Open(t.Context(), filepath.Join(r.root, ".memory"), vault.Options{Now: func() time.Time { return gitTestNow }})
	if err != nil {
		t.Fatal(err)
	}
	m, err := v.Get("01JDX3Q8W7AAAAAAAAAAAAAAAA")
	if err != nil {
		t.Fatal(err)
	}
	if m.Title != "Money is int64 minor units" || !slices.Equal(m.Conflicted, []string{"title"}) {
		t.Errorf("loaded %q conflicted %v; want ours' title, conflicted [title]", m.Title, m.Conflicted)
	}
	if !strings.Contains(got, "theirs_title: 金额用 int64 分") {
		t.Errorf("their title is not readable in the file:\n%s", got)
	}
	if code, out := r.memvault("show", "01JDX3Q8W7AAAAAAAAAAAAAAAA"); code != 0 || !strings.Contains(out, "CONFLICTED: a git merge left title in disagreement") ||
		!strings.Contains(out, "theirs title: 金额用 int64 分") {
		t.Errorf("show: exit %d\n%s", code, out)
	}
}

func TestMergeDriverUnderRebase(t *testing.T) {
	t.Parallel()
	// Adjacent lines: git's own text merge would stop on them.
	topic := strings.Replace(mergeBase, "importance: 5", "importance: 7", 1)
	r := newMergeRepo(t, mergeBase)
	r.commitOn("topic", topic)
	r.commitOn("main", strings.Replace(mergeBase, "tags: [money]", "tags: [money, ledger]", 1))
	r.git("checkout", "-q", "topic")
	if out, ok := r.try("rebase", "main"); !ok {
		t.Fatalf("git rebase failed:\n%s", out)
	}
	want := strings.Replace(topic, "tags: [money]", "tags: [money, ledger]", 1)
	if got := r.memory(); got != want {
		t.Errorf("rebased memory:\n%s\nwant:\n%s", got, want)
	}
	if n := strings.TrimSpace(r.git("rev-list", "--count", "main..topic")); n != "1" {
		t.Errorf("topic has %s commits over main, want 1", n)
	}
}

func TestHookBlocksConflictMarkers(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	r := newHookRepo(t, buildMemvault(t))
	r.memvault("hook", "install")
	r.write(".memory/project/money.md", mergeBase)
	if out, ok := r.commit("base", ".memory/project/money.md"); !ok {
		t.Fatalf("clean commit blocked:\n%s", out)
	}
	before := r.head()
	r.write(".memory/project/money.md", mergeBase+"<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> topic\n")
	out, ok := r.commit("half a merge", ".memory/project/money.md")
	if ok {
		t.Fatalf("commit with conflict markers went through:\n%s", out)
	}
	if want := ".memory/project/money.md:8: git conflict marker"; !strings.Contains(out, want) {
		t.Errorf("hook output lacks %q:\n%s", want, out)
	}
	if got := r.head(); got != before {
		t.Errorf("HEAD moved from %s to %s", before, got)
	}
}

// memvault runs the built memvault in the repository and returns its exit
// status and combined output.
func (r *mergeRepo) memvault(args ...string) (int, string) {
	r.t.Helper()
	cmd := exec.Command(buildMemvault(r.t), args...)
	cmd.Dir = r.root
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	} else if err != nil {
		r.t.Fatal(err)
	}
	return 0, string(out)
}

// TestMarkersFromAMergeWithoutTheDriver: a clone without the driver
// registered merges with git's text merge and gets markers; memvault
// reports them, serves HEAD's version labelled, and the fix it names
// (register the driver, redo the merge of the file) works.
func TestMarkersFromAMergeWithoutTheDriver(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	r := newMergeRepo(t, mergeBase)
	r.git("config", "--unset", "merge.memvault.driver")
	r.commitOn("theirs", strings.Replace(mergeBase, "importance: 5", "importance: 8", 1))
	r.commitOn("main", strings.Replace(mergeBase, "tags: [money]", "tags: [money, ledger]", 1))
	if out, ok := r.try("merge", "--no-edit", "theirs"); ok {
		t.Fatalf("git's text merge of adjacent lines succeeded:\n%s", out)
	}
	if !strings.Contains(r.memory(), "<<<<<<< ") {
		t.Fatalf("no markers to test with:\n%s", r.memory())
	}

	code, out := r.memvault("lint")
	if code == 0 || !strings.Contains(out, "project/money.md:4: git conflict markers") {
		t.Errorf("lint exit %d, output:\n%s", code, out)
	}
	code, out = r.memvault("show", "01JDX3Q8W7AAAAAAAAAAAAAAAA")
	if code != 0 || !strings.Contains(out, "CONFLICTED: the file holds git conflict markers") || strings.Contains(out, "<<<<<<<") {
		t.Errorf("show exit %d, output:\n%s", code, out)
	}
	code, out = r.memvault("stats")
	if code != 0 || !strings.Contains(out, "conflict  project/money.md (markers)") || !strings.Contains(out, "git checkout -m -- ") {
		t.Errorf("stats exit %d, output:\n%s", code, out)
	}

	// The fix stats names: register the driver, redo the file's merge.
	r.git("config", "merge.memvault.driver", gitrepo.DriverCommand(buildMemvault(t)))
	r.git("checkout", "-m", "--", mergeMemory)
	want := strings.Replace(strings.Replace(mergeBase, "importance: 5", "importance: 8", 1), "tags: [money]", "tags: [money, ledger]", 1)
	if got := r.memory(); got != want {
		t.Errorf("after checkout -m with the driver:\n%s\nwant:\n%s", got, want)
	}
}

// TestInitAndDoctorSetUpTheMergeDriver: init writes the vault's
// .gitattributes and registers the driver, so a merge of two edits of one
// memory goes through it; a fresh clone lacks the registration, doctor
// says so and the command it names fixes it.
func TestInitAndDoctorSetUpTheMergeDriver(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	r := &mergeRepo{t: t, root: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	if code, out := r.memvault("init"); code != 0 || !strings.Contains(out, "registered the memvault merge driver") {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	if got := r.git("check-attr", "merge", "--", mergeMemory); !strings.HasSuffix(strings.TrimSpace(got), "merge: memvault") {
		t.Errorf("check-attr after init: %q", got)
	}
	if code, out := r.memvault("doctor"); code != 0 || !strings.Contains(out, "ok       merge") {
		t.Errorf("doctor after init: exit %d\n%s", code, out)
	}
	r.write(mergeMemory, mergeBase)
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "base")

	r.commitOn("theirs", strings.Replace(mergeBase, "importance: 5", "importance: 8", 1))
	r.commitOn("main", strings.Replace(mergeBase, "tags: [money]", "tags: [money, ledger]", 1))
	if out, ok := r.try("merge", "--no-edit", "theirs"); !ok {
		t.Fatalf("git merge through the driver init registered failed:\n%s", out)
	}

	clone := &mergeRepo{t: t, root: filepath.Join(t.TempDir(), "clone")}
	r.git("clone", "-q", r.root, clone.root)
	code, out := clone.memvault("doctor")
	if code != 1 || !strings.Contains(out, "problem  merge") || !strings.Contains(out, "does not register it") ||
		!strings.Contains(out, "`memvault doctor --fix`") {
		t.Errorf("doctor in a fresh clone: exit %d\n%s", code, out)
	}
	if code, out := clone.memvault("doctor", "--fix"); code != 0 || !strings.Contains(out, "fixed    merge     registered the merge driver") {
		t.Errorf("doctor --fix in the clone: exit %d\n%s", code, out)
	}
	if code, out := clone.memvault("doctor"); code != 0 || !strings.Contains(out, "ok       merge") {
		t.Errorf("doctor after the fix: exit %d\n%s", code, out)
	}
}

func TestMergeDriverUnderCherryPick(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("git runs the driver under a cherry-pick as under a rebase, which TestMergeDriverUnderRebase checks under -short; runs without -short, as CI does")
	}
	topic := strings.Replace(mergeBase, "importance: 5", "importance: 7", 1)
	r := newMergeRepo(t, mergeBase)
	r.commitOn("topic", topic)
	r.commitOn("main", strings.Replace(mergeBase, "tags: [money]", "tags: [money, ledger]", 1))
	if out, ok := r.try("cherry-pick", "topic"); !ok {
		t.Fatalf("git cherry-pick failed:\n%s", out)
	}
	if got, want := r.memory(), strings.Replace(topic, "tags: [money]", "tags: [money, ledger]", 1); got != want {
		t.Errorf("cherry-picked memory:\n%s\nwant:\n%s", got, want)
	}
}
