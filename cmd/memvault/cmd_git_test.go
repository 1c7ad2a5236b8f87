package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
)

// gitTestNow is the fixed clock of the git command tests: the sample
// vault's "today".
var gitTestNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// testGitConfig is the global git config of the tests: an identity, main
// as the first branch, and no automatic maintenance. After a commit,
// merge, fetch or push git starts `git maintenance run --auto`, a process
// that finds nothing to do in a test's small repository (gc.auto is 6,700
// loose objects) and was about one git process in eight the tests start.
// memvault's own housekeeping reads gc.auto, not maintenance.auto, so it
// is unchanged.
const testGitConfig = "[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n[maintenance]\n\tauto = false\n"

// gitEnvToClear are the variables that would steer git, or memvault's
// author, elsewhere.
var gitEnvToClear = []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME",
	"GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "EMAIL", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "MEMVAULT_AUTHOR"}

// isolateGit gives a benchmark a private HOME and global git config with
// an identity, and clears the variables that would steer git elsewhere.
// Tests do not call it: it changes the process's environment, so a test
// calling it could not run in parallel. The whole process has such a HOME
// already (withIsolatedGit), which no test writes to; a test that needs a
// HOME of its own gives it to the memvault it runs: spawnOptions.env or
// exec.Cmd.Env for a process, Main.Getenv in process.
func isolateGit(t testing.TB) {
	t.Helper()
	home := t.TempDir()
	cfg := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(cfg, []byte(testGitConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", cfg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	for _, k := range gitEnvToClear {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// cliRepo is a git repository with a vault, driven through the CLI
// in-process at a clock the test moves.
type cliRepo struct {
	t          testing.TB
	root, dir  string // repository root and vault folder
	now        time.Time
	lastStderr string
	// home is the HOME memvault sees (where the user vault is): the
	// test's own, so tests with a user vault can run in parallel. git
	// reads the process's (withIsolatedGit).
	home string
}

// newCLIRepo creates an empty repository with gitstore.Init. It changes
// nothing of the process: tests using it may run in parallel.
func newCLIRepo(t testing.TB) *cliRepo {
	t.Helper()
	root := newRepo(t)
	return &cliRepo{t: t, root: root, dir: filepath.Join(root, ".memory"), now: gitTestNow, home: t.TempDir()}
}

// run runs memvault with args against the vault and returns the exit
// status and standard output.
func (r *cliRepo) run(stdin string, args ...string) (int, string) {
	r.t.Helper()
	var out, errb bytes.Buffer
	m := NewMain(strings.NewReader(stdin), &out, &errb)
	now := r.now
	m.Now = func() time.Time { return now }
	if r.home != "" {
		m.Getenv = func(k string) string {
			if k == "HOME" {
				return r.home
			}
			return os.Getenv(k)
		}
	}
	code := m.Run(context.Background(), append([]string{"--vault", r.dir}, args...))
	r.lastStderr = errb.String()
	return code, out.String()
}

// ok runs memvault and fails the test unless it exits 0.
func (r *cliRepo) ok(args ...string) string {
	r.t.Helper()
	code, out := r.run("", args...)
	if code != 0 {
		r.t.Fatalf("memvault %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, r.lastStderr)
	}
	return out
}

// tick moves the clock forward.
func (r *cliRepo) tick(d time.Duration) { r.now = r.now.Add(d) }

func (r *cliRepo) store() *gitstore.Store {
	r.t.Helper()
	s, err := gitstore.Open(context.Background(), r.root)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { s.Close() })
	return s
}

// head returns HEAD's commit id and message.
func (r *cliRepo) head() (string, string) {
	r.t.Helper()
	s := r.store()
	h, err := s.Resolve(context.Background(), "HEAD")
	if err != nil {
		r.t.Fatal(err)
	}
	cs, err := s.History(context.Background(), r.root, gitstore.HistoryOptions{Limit: 1})
	if err != nil || len(cs) != 1 {
		r.t.Fatalf("history of HEAD: %v %v", cs, err)
	}
	return h, cs[0].Message
}

// changedPaths lists the repository paths HEAD changed.
func (r *cliRepo) changedPaths() []string {
	r.t.Helper()
	s := r.store()
	base := "HEAD~1"
	if _, err := s.Resolve(context.Background(), base); err != nil {
		base = ""
	}
	fcs, err := s.DiffTrees(context.Background(), base, "HEAD", r.root)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []string
	for _, fc := range fcs {
		out = append(out, fc.Path)
	}
	return out
}

// addMemory adds a memory through the CLI and returns its id.
func (r *cliRepo) addMemory(title, content string, extra ...string) string {
	r.t.Helper()
	out := r.ok(append([]string{"add", title, "--content", content, "--json"}, extra...)...)
	var res struct{ ID string }
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		r.t.Fatalf("add --json: %v\n%s", err, out)
	}
	return res.ID
}

// memory reads a memory from the work tree.
func (r *cliRepo) memory(id string) *vault.Memory {
	r.t.Helper()
	v, err := vault.Open(context.Background(), r.dir, vault.Options{Now: func() time.Time { return r.now }})
	if err != nil {
		r.t.Fatal(err)
	}
	m, err := v.Get(id)
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// gitCLI runs the git command in dir, or reports false when git is not
// installed so the caller skips only that check.
func gitCLI(t testing.TB, dir string, args ...string) (string, bool) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return "", false
	}
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), true
}

// init declares -update unless another test file of the package already
// has (package variables are initialised before init functions run).
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/")
	}
}

// updateGolden reports whether -update was given.
func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// golden compares got with testdata/git/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", "git", name)
	if updateGolden() {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -run %s -update rewrites it)\ngot:\n%s\nwant:\n%s", p, t.Name(), got, want)
	}
}

func TestAddMakesOneCommitOfTheMemory(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	first := r.addMemory("Deploys go through ops/deploy.sh", "Blue-green, never by hand.", "--reason", "ops asked")
	if got := r.changedPaths(); len(got) != 3 || !strings.HasSuffix(got[0], ".gitattributes") || !strings.HasSuffix(got[1], ".gitignore") {
		t.Errorf("first add changed %v, want the vault's .gitattributes, .gitignore and the memory", got)
	}
	r.tick(time.Minute)
	id := r.addMemory("Money is int64 cents", "Never float64.", "--layer", "project", "--reason", "rounding bug in 2025")
	_, msg := r.head()
	wantPath := ".memory/project/money-is-int64-cents.md"
	if got := r.changedPaths(); len(got) != 1 || got[0] != wantPath {
		t.Errorf("second add changed %v, want only %s", got, wantPath)
	}
	cm := commitmsg.Parse(msg)
	subject, reason := cm.Subject, cm.Body
	if want := `memory(project): add "Money is int64 cents"`; subject != want {
		t.Errorf("subject = %q, want %q", subject, want)
	}
	if reason != "rounding bug in 2025" {
		t.Errorf("reason = %q, want %q", reason, "rounding bug in 2025")
	}
	for key, want := range map[string]string{"memory-id": id, "memory-layer": "project", "memory-client": "cli"} {
		if got := cm.Get(key); got != want {
			t.Errorf("trailer %s = %q, want %q", key, got, want)
		}
	}
	if id == first {
		t.Errorf("two adds returned the same id %s", id)
	}
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	id := r.addMemory("Refunds are synchronous", "The admin waits for the provider.", "--tags", "refunds")
	tests := []struct {
		name    string
		stdin   string
		args    []string
		check   func(m *vault.Memory) string
		subject string
	}{
		{"importance and tags", "", []string{"--importance", "9", "--tags", "refunds,payments", "--reason", "bit us twice"},
			func(m *vault.Memory) string {
				if m.Importance != 9 || strings.Join(m.Tags, ",") != "refunds,payments" {
					return "importance/tags not applied"
				}
				return ""
			}, `memory(project): update "Refunds are synchronous"`},
		{"title and content from stdin", "Requests are queued on RefundRequested.\n", []string{"--title", "Refunds run asynchronously", "--content", "-", "--reason", "gateway timeouts"},
			func(m *vault.Memory) string {
				if m.Title != "Refunds run asynchronously" || !strings.Contains(m.Body, "RefundRequested") {
					return "title/content not applied"
				}
				return ""
			}, `memory(project): update "Refunds run asynchronously"`},
		{"effective date", "", []string{"--effective-at", "2027-01-04", "--reason", "after the freeze"},
			func(m *vault.Memory) string {
				if !m.EffectiveAt.Equal(time.Date(2027, 1, 4, 0, 0, 0, 0, time.UTC)) {
					return "effective_at not applied"
				}
				return ""
			}, `memory(project): update "Refunds run asynchronously"`},
		{"empty effective date removes it", "", []string{"--effective-at", "", "--reason", "in force now"},
			func(m *vault.Memory) string {
				if !m.EffectiveAt.IsZero() {
					return "effective_at not removed"
				}
				return ""
			}, `memory(project): update "Refunds run asynchronously"`},
	}
	version := 1
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r.tick(time.Hour)
			args := append([]string{"update", id, "--expected-version", strconv.Itoa(version)}, tt.args...)
			if code, out := r.run(tt.stdin, args...); code != 0 {
				t.Fatalf("exit %d: %s %s", code, out, r.lastStderr)
			}
			version++
			m := r.memory(id)
			if m.Version != version {
				t.Errorf("version = %d, want %d", m.Version, version)
			}
			if !m.UpdatedAt.Equal(r.now) {
				t.Errorf("updated_at = %s, want the clock %s", m.UpdatedAt, r.now)
			}
			if msg := tt.check(m); msg != "" {
				t.Error(msg)
			}
			if _, msg := r.head(); !strings.HasPrefix(msg, tt.subject+"\n") {
				t.Errorf("commit message %q, want subject %q", msg, tt.subject)
			}
		})
	}

	t.Run("stale expected version", func(t *testing.T) {
		before := readFile(t, filepath.Join(r.dir, r.memory(id).Path))
		headBefore, _ := r.head()
		code, _ := r.run("", "update", id, "--importance", "3", "--expected-version", "1", "--reason", "stale")
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		if want := "is at version " + strconv.Itoa(version); !strings.Contains(r.lastStderr, want) {
			t.Errorf("stderr %q does not name the current version (%q)", r.lastStderr, want)
		}
		if after := readFile(t, filepath.Join(r.dir, r.memory(id).Path)); after != before {
			t.Errorf("file changed by a refused update:\n%s", after)
		}
		if h, _ := r.head(); h != headBefore {
			t.Errorf("HEAD moved from %s to %s", headBefore, h)
		}
	})

	t.Run("nothing to change", func(t *testing.T) {
		if code, _ := r.run("", "update", id, "--reason", "x"); code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
	})
}

func TestForget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantFile   bool
		wantStatus vault.Status
		verb       string
	}{
		{"archive", nil, true, vault.StatusArchived, "archive"},
		{"delete", []string{"--delete"}, false, "", "delete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newCLIRepo(t)
			id := r.addMemory("Staging refresh on Mondays", "Restore from the Sunday dump.")
			rel := r.memory(id).Path
			r.tick(time.Hour)
			r.ok(append([]string{"forget", id, "--reason", "the refresh job was retired"}, tt.args...)...)
			_, err := os.Stat(filepath.Join(r.dir, rel))
			if gotFile := err == nil; gotFile != tt.wantFile {
				t.Errorf("file exists = %v, want %v", gotFile, tt.wantFile)
			}
			if tt.wantFile {
				if m := r.memory(id); m.Status != tt.wantStatus {
					t.Errorf("status = %s, want %s", m.Status, tt.wantStatus)
				}
			}
			_, msg := r.head()
			cm := commitmsg.Parse(msg)
			subject, reason := cm.Subject, cm.Body
			if !strings.Contains(subject, "): "+tt.verb+" ") || reason != "the refresh job was retired" {
				t.Errorf("commit %q / %q, want verb %s and the reason", subject, reason, tt.verb)
			}
			if got := r.changedPaths(); len(got) != 1 || got[0] != ".memory/"+rel {
				t.Errorf("commit changed %v, want only .memory/%s", got, rel)
			}
		})
	}
	t.Run("reason required", func(t *testing.T) {
		r := newCLIRepo(t)
		id := r.addMemory("Something", "body")
		if code, _ := r.run("", "forget", id); code != 1 {
			t.Errorf("forget without --reason: exit %d, want 1", code)
		}
	})
}

func TestRestore(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	id := r.addMemory("Checkout uses the strategy pattern", "One strategy per promotion type.", "--importance", "7")
	first, _ := r.head()
	original := r.memory(id)
	r.tick(time.Hour)
	r.ok("update", id, "--content", "A rules engine decides promotions.", "--importance", "4", "--reason", "trying Drools")
	r.tick(time.Hour)

	r.ok("restore", id, "--to", first, "--reason", "Drools was too slow")
	m := r.memory(id)
	if m.Body != original.Body || m.Importance != 7 {
		t.Errorf("restored body %q importance %d, want %q and 7", m.Body, m.Importance, original.Body)
	}
	if m.Version != 3 || !m.UpdatedAt.Equal(r.now) {
		t.Errorf("version %d updated_at %s, want 3 and %s", m.Version, m.UpdatedAt, r.now)
	}
	_, msg := r.head()
	if reason := commitmsg.Parse(msg).Body; reason != "Drools was too slow" {
		t.Errorf("reason %q", reason)
	}

	t.Run("already at that version", func(t *testing.T) {
		if code, _ := r.run("", "restore", id, "--to", "HEAD", "--reason", "again"); code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
	})

	t.Run("deleted since", func(t *testing.T) {
		r.tick(time.Hour)
		r.ok("forget", id, "--delete", "--reason", "cleanup")
		r.tick(time.Hour)
		r.ok("restore", id, "--to", first, "--reason", "deleted by mistake")
		m := r.memory(id)
		if m.ID != id || m.Body != original.Body || m.Title != original.Title {
			t.Errorf("recreated %s %q %q, want %s %q %q", m.ID, m.Title, m.Body, id, original.Title, original.Body)
		}
	})

	t.Run("unknown commit", func(t *testing.T) {
		if code, _ := r.run("", "restore", id, "--to", "nosuchrev", "--reason", "x"); code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
	})
}

func TestAddKeepsTheUsersStagedAndUnstagedWork(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git CLI not installed: staging needs it")
	}
	r := newCLIRepo(t)
	for name, text := range map[string]string{"staged.txt": "one\n", "unstaged.txt": "one\n"} {
		if err := os.WriteFile(filepath.Join(r.root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitCLI(t, r.root, "add", "staged.txt", "unstaged.txt")
	gitCLI(t, r.root, "commit", "-q", "-m", "start")
	os.WriteFile(filepath.Join(r.root, "staged.txt"), []byte("two\n"), 0o644)
	gitCLI(t, r.root, "add", "staged.txt")
	os.WriteFile(filepath.Join(r.root, "unstaged.txt"), []byte("two\n"), 0o644)
	os.WriteFile(filepath.Join(r.root, "untracked.txt"), []byte("new\n"), 0o644)
	before, _ := gitCLI(t, r.root, "status", "--porcelain")
	stagedBefore, _ := gitCLI(t, r.root, "diff", "--cached")

	id := r.addMemory("Use pytest", "Not unittest.", "--layer", "preference")
	r.tick(time.Minute)
	r.ok("update", id, "--importance", "8", "--reason", "asked twice")

	after, _ := gitCLI(t, r.root, "status", "--porcelain")
	if after != before {
		t.Errorf("git status changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if stagedAfter, _ := gitCLI(t, r.root, "diff", "--cached"); stagedAfter != stagedBefore {
		t.Errorf("staged diff changed:\nbefore:\n%s\nafter:\n%s", stagedBefore, stagedAfter)
	}
	if got := readFile(t, filepath.Join(r.root, "unstaged.txt")); got != "two\n" {
		t.Errorf("unstaged file = %q", got)
	}
}
