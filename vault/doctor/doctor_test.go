package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/internal/vaulttest"
)

// fakeDoctorRepo is a repository as Run sees it: a state, the files
// that differ from HEAD and HEAD's files.
type fakeDoctorRepo struct {
	state      RepoState
	changed    []string
	head       map[string]string // vault-relative path -> content at HEAD
	cleared    []string          // locks ClearStaleLocks removed
	clearCalls int
}

// ClearStaleLocks removes the stale locks from the state.
func (r *fakeDoctorRepo) ClearStaleLocks(context.Context) ([]string, error) {
	r.clearCalls++
	for p := range r.state.StaleLocks {
		r.cleared = append(r.cleared, p)
	}
	slices.Sort(r.cleared)
	return r.cleared, nil
}

func (r *fakeDoctorRepo) State(context.Context) (RepoState, error)  { return r.state, nil }
func (r *fakeDoctorRepo) Changed(context.Context) ([]string, error) { return r.changed, nil }
func (r *fakeDoctorRepo) ReadHead(_ context.Context, rel string) ([]byte, error) {
	if s, ok := r.head[rel]; ok {
		return []byte(s), nil
	}
	return nil, nil
}

// heldLock is a committer whose lock another process holds.
type heldLock struct{ vaulttest.Committer }

func (*heldLock) Lock(ctx context.Context) (func(), error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// doctorVault writes files (vault-relative path -> content) into a new
// vault and opens it with c.
func doctorVault(t *testing.T, files map[string]string, c vault.Committer) *vault.Vault {
	t.Helper()
	dir := t.TempDir()
	vaulttest.WriteFiles(t, dir, files)
	v, err := vault.Open(t.Context(), dir, vault.Options{Now: fixedNow, Committer: c})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkLines renders a report as "status name: detail" lines.
func checkLines(rep Report) []string {
	var out []string
	for _, c := range rep.Checks {
		out = append(out, c.Status+" "+c.Name+": "+c.Detail)
	}
	return out
}

// hasLine reports whether a line of lines starts with prefix and
// contains every one of parts.
func hasLine(lines []string, prefix string, parts ...string) bool {
	return slices.ContainsFunc(lines, func(l string) bool {
		if !strings.HasPrefix(l, prefix) {
			return false
		}
		for _, p := range parts {
			if !strings.Contains(l, p) {
				return false
			}
		}
		return true
	})
}

const (
	goodMemory = "---\nid: 01GOODMEMORY00000000000000\ntitle: Redis is a cache\n---\nNever the source of truth.\n"
	newMemory  = "---\nid: 01NEWMEMORY000000000000000\ntitle: Queues are durable\n---\nKafka.\n"
	brokenFile = "---\ntitle: [unclosed\n---\nbody\n"
)

func TestDoctorChecks(t *testing.T) {
	t.Parallel()
	clean := RepoState{Root: "/repo", Branch: "main", Head: "0123456789abcdef"}
	tests := []struct {
		name     string
		repo     *fakeDoctorRepo // nil: no repository
		files    map[string]string
		want     []string // each a line prefix, then parts it contains, joined by |
		problems int
	}{
		{name: "clean", repo: &fakeDoctorRepo{state: clean}, files: map[string]string{"project/a.md": goodMemory},
			want: []string{"note vault:", "ok git: branch main at 0123456|/repo", "ok lock: write lock free", "ok journal:",
				"ok files: memory files match HEAD", "ok parse: 1 memory file parse"}},
		{name: "not in git", want: []string{"problem git: not in a git repository", "ok journal:", "ok parse: 0 memory files parse"}, problems: 1},
		{name: "unborn", repo: &fakeDoctorRepo{state: RepoState{Root: "/repo", Branch: "main", Unborn: true}},
			want: []string{"note git: branch main has no commits yet (/repo)"}},
		{name: "detached", repo: &fakeDoctorRepo{state: RepoState{Head: "fedcba9876543210", Detached: true}},
			want: []string{"note git: HEAD is detached at fedcba9"}},
		{name: "operation and locks", repo: &fakeDoctorRepo{state: RepoState{Branch: "main", Head: "01234567", Operation: "rebase",
			IndexLock: "/repo/.git/index.lock", RefLock: "/repo/.git/refs/heads/main.lock"}},
			want: []string{"problem git: a rebase is in progress|git rebase --continue", "problem git: /repo/.git/index.lock exists",
				"problem git: /repo/.git/refs/heads/main.lock exists"}, problems: 3},
		{name: "stopped merge", repo: &fakeDoctorRepo{state: RepoState{Branch: "main", Head: "01234567", Operation: "merge",
			UnmergedMemories: []string{"project/a.md", "project/b.md"}, UnmergedOther: []string{"src/x.go"}}},
			want: []string{"problem git: a merge is in progress",
				"problem git: 2 memory files unmerged: project/a.md, project/b.md|`memvault resolve` to settle them|`git merge --continue`",
				"problem git: 1 file unmerged outside the vault's memories: src/x.go|with git"}, problems: 3},
		{name: "journal left", repo: &fakeDoctorRepo{state: clean}, files: map[string]string{vault.JournalName: "{}"},
			want: []string{"problem journal: " + vault.JournalName + ": a write stopped before its commit"}, problems: 1},
		{name: "hand edits", repo: &fakeDoctorRepo{state: clean,
			changed: []string{"project/a.md", "project/new.md", "project/broken.md", "transient/scratch.md", "notes.txt"},
			head:    map[string]string{"project/a.md": goodMemory}},
			files: map[string]string{"project/a.md": goodMemory, "project/new.md": newMemory, "project/broken.md": brokenFile,
				"transient/scratch.md": "scratch", "notes.txt": "x"},
			want: []string{"note files: other files in the vault folder differ from HEAD: notes.txt",
				"problem files: hand edits that do not parse, not committed: project/broken.md",
				"problem files: 2 memory files differ from HEAD|--fix commits them: project/a.md, project/new.md",
				"problem parse: 1 error in vault files"}, problems: 3},
		{name: "one hand edit", repo: &fakeDoctorRepo{state: clean, changed: []string{"project/a.md"}},
			files: map[string]string{"project/a.md": goodMemory},
			want:  []string{"problem files: 1 memory file differs from HEAD"}, problems: 1},
		{name: "a secret is not committed", repo: &fakeDoctorRepo{state: clean, changed: []string{"project/creds.md"}},
			files: map[string]string{"project/creds.md": "---\ntitle: Creds\n---\n\n    " + fakeToken + "\n"},
			want:  []string{"problem files: hand edits that do not parse, not committed: project/creds.md"}, problems: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &vaulttest.Committer{}
			v := doctorVault(t, tt.files, c)
			d := Options{Committer: c}
			if tt.repo != nil {
				d.Repo = tt.repo
			}
			rep, err := Run(t.Context(), v, d)
			if err != nil {
				t.Fatal(err)
			}
			lines := checkLines(rep)
			for _, w := range tt.want {
				parts := strings.Split(w, "|")
				if !hasLine(lines, parts[0], parts[1:]...) {
					t.Errorf("no line %q in\n%s", w, strings.Join(lines, "\n"))
				}
			}
			if got := rep.Problems(); got != tt.problems {
				t.Errorf("Problems() = %d, want %d:\n%s", got, tt.problems, strings.Join(lines, "\n"))
			}
			if len(c.Commits()) != 0 {
				t.Errorf("doctor without Fix committed %v", c.Commits())
			}
			if tt.repo != nil && tt.repo.clearCalls != 0 {
				t.Error("doctor without Fix cleared locks")
			}
		})
	}
}

// TestDoctorStaleLocks: a lock a gone memvault process left is named as
// such, and --fix removes it and no other lock.
func TestDoctorStaleLocks(t *testing.T) {
	t.Parallel()
	state := RepoState{Branch: "main", Head: "01234567", IndexLock: "/r/.git/index.lock", RefLock: "/r/.git/refs/heads/main.lock",
		StaleLocks: map[string]string{"/r/.git/index.lock": "memvault process 42 on box"}}
	tests := []struct {
		fix      bool
		want     []string
		problems int
		cleared  []string
	}{
		{want: []string{"problem git: /r/.git/index.lock was left by memvault process 42 on box, which is no longer running|doctor --fix removes it",
			"problem git: /r/.git/refs/heads/main.lock exists: a git command is moving the branch"}, problems: 2},
		{fix: true, want: []string{"fixed git: removed /r/.git/index.lock, left by memvault process 42 on box",
			"problem git: /r/.git/refs/heads/main.lock exists: a git command is moving the branch"}, problems: 1,
			cleared: []string{"/r/.git/index.lock"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("fix=", tt.fix), func(t *testing.T) {
			t.Parallel()
			c := &vaulttest.Committer{}
			v := doctorVault(t, nil, c)
			repo := &fakeDoctorRepo{state: state}
			rep, err := Run(t.Context(), v, Options{Repo: repo, Committer: c, Fix: tt.fix})
			if err != nil {
				t.Fatal(err)
			}
			lines := checkLines(rep)
			for _, w := range tt.want {
				parts := strings.Split(w, "|")
				if !hasLine(lines, parts[0], parts[1:]...) {
					t.Errorf("no line %q in\n%s", w, strings.Join(lines, "\n"))
				}
			}
			if got := rep.Problems(); got != tt.problems {
				t.Errorf("Problems() = %d, want %d", got, tt.problems)
			}
			if want := map[bool]int{true: 1}[tt.fix]; repo.clearCalls != want {
				t.Errorf("ClearStaleLocks called %d times, want %d", repo.clearCalls, want)
			}
			if !slices.Equal(repo.cleared, tt.cleared) {
				t.Errorf("cleared %v, want %v", repo.cleared, tt.cleared)
			}
		})
	}
}

func TestDoctorLockHeld(t *testing.T) {
	t.Parallel()
	c := &heldLock{}
	v := doctorVault(t, nil, c)
	rep, err := Run(t.Context(), v, Options{Repo: &fakeDoctorRepo{state: RepoState{Branch: "main", Head: "01234567"}}, Committer: c, LockWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if lines := checkLines(rep); !hasLine(lines, "problem lock: another memvault process has held the write lock for 1ms") {
		t.Errorf("report:\n%s", strings.Join(lines, "\n"))
	}
}

func TestDoctorFixCommitsHandEdits(t *testing.T) {
	t.Parallel()
	deleted := "---\nid: 01DELETEDMEMORY00000000000\ntitle: Old rule\n---\nGone.\n"
	tests := []struct {
		name        string
		changed     []string
		head        map[string]string
		files       map[string]string
		wantSubject string
		wantIDs     []string
		wantFixed   string
		problems    int
	}{
		{name: "one update", changed: []string{"project/a.md"}, head: map[string]string{"project/a.md": goodMemory},
			files:       map[string]string{"project/a.md": goodMemory + "\nEdited in Obsidian.\n"},
			wantSubject: `memory(project): update "Redis is a cache"`, wantIDs: []string{"01GOODMEMORY00000000000000"},
			wantFixed: "fixed files: committed 1 hand-edited file in c0ffee: project/a.md"},
		{name: "one add", changed: []string{"project/new.md"}, files: map[string]string{"project/new.md": newMemory},
			wantSubject: `memory(project): add "Queues are durable"`, wantIDs: []string{"01NEWMEMORY000000000000000"}},
		{name: "one delete", changed: []string{"project/old.md"}, head: map[string]string{"project/old.md": deleted},
			wantSubject: `memory(project): delete "Old rule"`, wantIDs: []string{"01DELETEDMEMORY00000000000"}},
		{name: "several, a broken one left", changed: []string{"project/a.md", "project/new.md", "project/broken.md"},
			head:        map[string]string{"project/a.md": goodMemory},
			files:       map[string]string{"project/a.md": goodMemory + "\nEdited.\n", "project/new.md": newMemory, "project/broken.md": brokenFile},
			wantSubject: "memory: commit 2 hand-edited files", wantIDs: []string{"01GOODMEMORY00000000000000", "01NEWMEMORY000000000000000"},
			wantFixed: "fixed files: committed 2 hand-edited files in c0ffee: project/a.md, project/new.md", problems: 2},
		{name: "conflict markers left", changed: []string{"project/a.md", "project/new.md"},
			head: map[string]string{"project/a.md": goodMemory},
			files: map[string]string{"project/a.md": goodMemory + "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> topic\n",
				"project/new.md": newMemory},
			wantSubject: `memory(project): add "Queues are durable"`, wantIDs: []string{"01NEWMEMORY000000000000000"},
			wantFixed: "fixed files: committed 1 hand-edited file in c0ffee: project/new.md", problems: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &vaulttest.Committer{}
			v := doctorVault(t, tt.files, c)
			rep, err := Run(t.Context(), v, Options{Repo: &fakeDoctorRepo{state: RepoState{Branch: "main", Head: "01234567"}, changed: tt.changed, head: tt.head},
				Committer: c, Fix: true})
			if err != nil {
				t.Fatal(err)
			}
			lines := checkLines(rep)
			if tt.wantFixed != "" && !hasLine(lines, tt.wantFixed) {
				t.Errorf("no line %q in\n%s", tt.wantFixed, strings.Join(lines, "\n"))
			}
			if got := rep.Problems(); got != tt.problems {
				t.Errorf("Problems() = %d, want %d:\n%s", got, tt.problems, strings.Join(lines, "\n"))
			}
			if len(c.Commits()) != 1 {
				t.Fatalf("%d commits, want 1", len(c.Commits()))
			}
			cm := commitmsg.Parse(c.Commits()[0].Message)
			if cm.Subject != tt.wantSubject || cm.Body != HandEditReason || cm.Get(commitmsg.KeyClient) != "cli" {
				t.Errorf("commit message %q", c.Commits()[0].Message)
			}
			var ids []string
			for _, tr := range cm.Trailers {
				if tr.Key == commitmsg.KeyID {
					ids = append(ids, tr.Value)
				}
			}
			if !slices.Equal(ids, tt.wantIDs) {
				t.Errorf("Memory-Id trailers %v, want %v", ids, tt.wantIDs)
			}
			if len(c.Commits()[0].Paths) != len(tt.wantIDs) {
				t.Errorf("committed %v", c.Commits()[0].Paths)
			}
		})
	}
}

func TestDoctorFixFinishesAJournal(t *testing.T) {
	t.Parallel()
	c := &vaulttest.Committer{}
	v := doctorVault(t, map[string]string{"project/left.md": newMemory}, c)
	j := `{"message": "memory(project): add \"Queues are durable\"\n\nMemory-Id: 01NEWMEMORY000000000000000\n", "paths": ["project/left.md"], "commit": true}`
	if err := os.WriteFile(filepath.Join(v.Dir(), vault.JournalName), []byte(j), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), v, Options{Repo: &fakeDoctorRepo{state: RepoState{Branch: "main", Head: "01234567"}}, Committer: c, Fix: true})
	if err != nil {
		t.Fatal(err)
	}
	if lines := checkLines(rep); !hasLine(lines, "fixed journal: committed the interrupted write: project/left.md") || rep.Problems() != 0 {
		t.Errorf("report:\n%s", strings.Join(lines, "\n"))
	}
	if len(c.Commits()) != 1 || !strings.Contains(c.Commits()[0].Message, "Memory-Recovered") {
		t.Errorf("commits %v", c.Commits())
	}
	if _, err := os.Stat(filepath.Join(v.Dir(), vault.JournalName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal still there: %v", err)
	}
}

// TestDoctorFixRechecksConflictMarkers: markers written after the vault
// was loaded (a merge stopping while doctor runs) still stop the commit.
func TestDoctorFixRechecksConflictMarkers(t *testing.T) {
	t.Parallel()
	c := &vaulttest.Committer{}
	v := doctorVault(t, map[string]string{"project/a.md": goodMemory + "\nEdited.\n"}, c)
	vaulttest.WriteFiles(t, v.Dir(), map[string]string{"project/a.md": goodMemory + "<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> topic\n"})
	rep, err := Run(t.Context(), v, Options{Repo: &fakeDoctorRepo{state: RepoState{Branch: "main", Head: "01234567"}, changed: []string{"project/a.md"},
		head: map[string]string{"project/a.md": goodMemory}}, Committer: c, Fix: true})
	if err != nil {
		t.Fatal(err)
	}
	if lines := checkLines(rep); !hasLine(lines, "problem files: could not commit the hand edits", "project/a.md:6", "git conflict markers") {
		t.Errorf("report:\n%s", strings.Join(lines, "\n"))
	}
	if len(c.Commits()) != 0 {
		t.Errorf("committed %v", c.Commits())
	}
}

// fakeMergeDriver is a clone's merge driver set-up.
type fakeMergeDriver struct{ attribute, registered bool }

func (f *fakeMergeDriver) MergeDriver(context.Context) (bool, bool, error) {
	return f.attribute, f.registered, nil
}

func (f *fakeMergeDriver) RegisterMergeDriver(context.Context) error { f.registered = true; return nil }

// TestDoctorMergeDriver: doctor reports vault/mergesetup's check as its
// "merge" line (mergesetup's tests hold the cases).
func TestDoctorMergeDriver(t *testing.T) {
	t.Parallel()
	c := &vaulttest.Committer{}
	v := doctorVault(t, map[string]string{"project/a.md": goodMemory}, c)
	rep, err := Run(t.Context(), v, Options{Repo: &fakeDoctorRepo{state: RepoState{Branch: "main", Head: "01234567"}}, Committer: c,
		MergeDriver: &fakeMergeDriver{attribute: true}})
	if err != nil {
		t.Fatal(err)
	}
	lines := checkLines(rep)
	if !hasLine(lines, "problem merge: the vault's .gitattributes sends memory files", "does not register it") || rep.Problems() != 1 {
		t.Errorf("report:\n%s", strings.Join(lines, "\n"))
	}
}

func TestSomeOf(t *testing.T) {
	paths := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("project/n%02d.md", i))
		}
		return out
	}
	tests := []struct {
		n    int
		want string
	}{
		{1, "project/n00.md"},
		{maxListed, strings.Join(paths(maxListed), ", ")},
		{10000, strings.Join(paths(maxListed), ", ") + " and 9990 more (git status lists them)"},
	}
	for _, tt := range tests {
		if got := someOf(paths(tt.n)); got != tt.want {
			t.Errorf("someOf(%d paths) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
