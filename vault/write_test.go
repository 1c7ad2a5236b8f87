package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// recordingCommitter records commits and can be told to fail.
type recordingCommitter struct {
	mu      sync.Mutex
	commits []recordedCommit
	fail    error
	locked  bool
}

type recordedCommit struct {
	paths   []string
	message string
}

func (c *recordingCommitter) Lock(context.Context) (func(), error) {
	c.mu.Lock()
	c.locked = true
	c.mu.Unlock()
	return func() { c.mu.Lock(); c.locked = false; c.mu.Unlock() }, nil
}

func (c *recordingCommitter) Commit(_ context.Context, paths []string, message string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.locked {
		return "", errors.New("commit without the lock")
	}
	if c.fail != nil {
		return "", c.fail
	}
	c.commits = append(c.commits, recordedCommit{paths: slices.Clone(paths), message: message})
	return "c0ffee", nil
}

// openRecorded opens the vault in dir with a recording committer and a
// clock stopped at 2026-11-30T10:00:00Z.
func openRecorded(t *testing.T, dir string) (*Vault, *recordingCommitter) {
	t.Helper()
	c := &recordingCommitter{}
	v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T10:00:00Z").Now, Committer: c})
	if err != nil {
		t.Fatal(err)
	}
	return v, c
}

func TestCreateWritesFileAndCommit(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-11-30T10:02:11Z")
	dir := t.TempDir()
	c := &recordingCommitter{}
	v, err := Open(t.Context(), dir, Options{Now: clock.Now, Committer: c, Client: "claude-code"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Create(t.Context(), NewMemory{Title: "Checkout uses the strategy pattern", Content: "Promotions will multiply.",
		Tags: []string{"checkout", "architecture"}, Importance: 8}, Author{Reason: "agreed in design review"})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Memory
	if m.Path != "project/checkout-uses-the-strategy-pattern.md" || m.Version != 1 || res.Commit != "c0ffee" {
		t.Fatalf("got path=%s version=%d commit=%s", m.Path, m.Version, res.Commit)
	}
	data, err := os.ReadFile(filepath.Join(dir, m.Path))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"id: " + m.ID, "title: Checkout uses the strategy pattern", "layer: project", "importance: 8",
		"created_at: 2026-11-30T10:02:11Z", "status: active", "version: 1", "claude-code", "Promotions will multiply.\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("file lacks %q:\n%s", want, data)
		}
	}
	if len(c.commits) != 1 {
		t.Fatalf("%d commits, want 1", len(c.commits))
	}
	msg := c.commits[0].message
	for _, want := range []string{`memory(project): add "Checkout uses the strategy pattern"`, "agreed in design review",
		"Memory-Id: " + m.ID, "Memory-Layer: project", "Memory-Client: claude-code"} {
		if !strings.Contains(msg, want) {
			t.Errorf("commit message lacks %q:\n%s", want, msg)
		}
	}
	// The first write also brings the vault's .gitignore and .gitattributes
	// into the commit.
	if want := []string{filepath.Join(dir, GitignoreName), filepath.Join(dir, GitattributesName), filepath.Join(dir, m.Path)}; !slices.Equal(c.commits[0].paths, want) {
		t.Errorf("committed paths %v, want %v", c.commits[0].paths, want)
	}
}

func TestCreateTransientIsNotCommitted(t *testing.T) {
	t.Parallel()
	c := &recordingCommitter{}
	v, err := Open(t.Context(), t.TempDir(), Options{Committer: c})
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Create(t.Context(), NewMemory{Title: "Scratch", Content: "x", Layer: Transient}, Author{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit != "" || !strings.HasPrefix(res.Memory.Path, "transient/") {
		t.Fatalf("commit=%q path=%s, want no commit and a transient/ path", res.Commit, res.Memory.Path)
	}
	for _, cm := range c.commits {
		for _, p := range cm.paths {
			if strings.Contains(p, "transient") {
				t.Fatalf("transient path committed: %v", cm.paths)
			}
		}
	}
}

func TestSlugs(t *testing.T) {
	t.Parallel()
	tests := []struct{ title, want string }{
		{"Checkout uses the Strategy Pattern!", "checkout-uses-the-strategy-pattern"},
		{"订单状态机", "订单状态机"},
		{"BFF 错误码 format (v2)", "bff-错误码-format-v2"},
		{"  ---  ", "memory"},
		{"ops/deploy.sh rollback", "ops-deploy-sh-rollback"},
	}
	for _, tt := range tests {
		if got := Slug(tt.title); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}

func TestCreateSlugClashGetsSuffix(t *testing.T) {
	t.Parallel()
	v, err := Open(t.Context(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := mustCreate(t, v, NewMemory{Title: "订单状态", Content: "a"})
	b := mustCreate(t, v, NewMemory{Title: "订单状态", Content: "b"})
	if a.Path != "project/订单状态.md" || b.Path != "project/订单状态-2.md" {
		t.Fatalf("paths %s and %s, want project/订单状态.md and project/订单状态-2.md", a.Path, b.Path)
	}
}

func TestUpdateRewritesOnlyChangedFields(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-11-30T10:00:00Z")
	dir := t.TempDir()
	orig := "---\n# hand-written, keep this comment\nid: keep\ntitle: Retry policy   # inline comment\nowner: payments-team\nlayer: project\ntags:\n  - http\n  - retry\nversion: 4\nupdated_at: 2026-01-01T00:00:00Z\n---\nRetry three times.\n\n\n<!-- odd spacing kept -->\n"
	writeFiles(t, dir, map[string]string{"project/retry.md": orig})
	v, err := Open(t.Context(), dir, Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	imp := 9
	res, err := v.Update(t.Context(), "keep", 4, Patch{Importance: &imp}, Author{Reason: "it matters"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Memory.Version != 5 || res.Memory.Importance != 9 {
		t.Fatalf("version=%d importance=%d, want 5 and 9", res.Memory.Version, res.Memory.Importance)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "project/retry.md"))
	got := string(data)
	for _, keep := range []string{"# hand-written, keep this comment\n", "title: Retry policy   # inline comment\n", "owner: payments-team\n",
		"tags:\n  - http\n  - retry\n", "---\nRetry three times.\n\n\n<!-- odd spacing kept -->\n"} {
		if !strings.Contains(got, keep) {
			t.Errorf("lost %q:\n%s", keep, got)
		}
	}
	for _, changed := range []string{"version: 5", "updated_at: 2026-11-30T10:00:00Z", "importance: 9"} {
		if !strings.Contains(got, changed) {
			t.Errorf("missing %q:\n%s", changed, got)
		}
	}
}

func TestUpdateStaleVersionIsAConflict(t *testing.T) {
	t.Parallel()
	v, err := Open(t.Context(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := mustCreate(t, v, NewMemory{Title: "Queue is Kafka", Content: "Kafka."})
	title := "Queue is Kafka 3.8"
	if _, err := v.Update(t.Context(), m.ID, 1, Patch{Title: &title}, Author{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(v.Dir(), m.Path))
	other := "Queue is RabbitMQ"
	_, err = v.Update(t.Context(), m.ID, 1, Patch{Title: &other}, Author{})
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("stale update: err = %v, want ErrConflict naming version 2", err)
	}
	after, _ := os.ReadFile(filepath.Join(v.Dir(), m.Path))
	if string(before) != string(after) {
		t.Fatalf("a refused update changed the file")
	}
}

func TestUpdatePromotesTransientOutOfScratch(t *testing.T) {
	t.Parallel()
	c := &recordingCommitter{}
	clock := newClock("2026-11-30T10:00:00Z")
	v, err := Open(t.Context(), t.TempDir(), Options{Committer: c, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	m := mustCreate(t, v, NewMemory{Title: "Branch is fix/CHK-231", Content: "x", Layer: Transient})
	l2 := ShortTerm
	res, err := v.Update(t.Context(), m.ID, 0, Patch{Layer: &l2}, Author{Reason: "keep it for the week"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Memory.Path != "short-term/branch-is-fix-chk-231.md" || res.Commit == "" {
		t.Fatalf("path=%s commit=%q, want moved to short-term/ and committed", res.Memory.Path, res.Commit)
	}
	if _, err := os.Stat(filepath.Join(v.Dir(), m.Path)); !os.IsNotExist(err) {
		t.Fatalf("old transient file still there: %v", err)
	}
	if want := clock.Now().Add(7 * 24 * time.Hour); !res.Memory.ExpiresAt.Equal(want) {
		t.Fatalf("expires_at = %v, want the L2 default %v", res.Memory.ExpiresAt, want)
	}
}

func TestFailedCommitRollsBack(t *testing.T) {
	t.Parallel()
	c := &recordingCommitter{}
	v, err := Open(t.Context(), t.TempDir(), Options{Committer: c})
	if err != nil {
		t.Fatal(err)
	}
	m := mustCreate(t, v, NewMemory{Title: "Stable", Content: "v1"})
	before, _ := os.ReadFile(filepath.Join(v.Dir(), m.Path))
	c.fail = errors.New("merge in progress")
	content := "v2"
	if _, err := v.Update(t.Context(), m.ID, 0, Patch{Content: &content}, Author{}); err == nil {
		t.Fatal("update succeeded with a failing commit")
	}
	if _, err := v.Create(t.Context(), NewMemory{Title: "Never lands", Content: "x"}, Author{}); err == nil {
		t.Fatal("create succeeded with a failing commit")
	}
	after, _ := os.ReadFile(filepath.Join(v.Dir(), m.Path))
	if string(after) != string(before) {
		t.Fatalf("file changed after a failed commit:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(v.Dir(), "project/never-lands.md")); !os.IsNotExist(err) {
		t.Fatalf("created file left behind after a failed commit")
	}
	if got, _ := v.Get(m.ID); got.Version != 1 || len(v.All()) != 1 {
		t.Fatalf("index changed after a failed commit: version %d, %d memories", got.Version, len(v.All()))
	}
}

func TestForget(t *testing.T) {
	t.Parallel()
	c := &recordingCommitter{}
	v, err := Open(t.Context(), t.TempDir(), Options{Committer: c})
	if err != nil {
		t.Fatal(err)
	}
	a := mustCreate(t, v, NewMemory{Title: "Archive me", Content: "x"})
	d := mustCreate(t, v, NewMemory{Title: "Delete me", Content: "y"})
	if _, err := v.Forget(t.Context(), a.ID, false, Author{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("forget without reason: %v, want ErrInvalid", err)
	}
	if _, err := v.Forget(t.Context(), a.ID, false, Author{Reason: "obsolete"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := v.Get(a.ID); got.Status != StatusArchived {
		t.Fatalf("status %s, want archived", got.Status)
	}
	if _, err := v.Forget(t.Context(), d.ID, true, Author{Reason: "wrong"}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Get(d.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted memory: %v, want ErrNotFound", err)
	}
	last := c.commits[len(c.commits)-1].message
	if !strings.HasPrefix(last, `memory(project): delete "Delete me"`) {
		t.Fatalf("delete commit subject: %q", last)
	}
}

func TestValidation(t *testing.T) {
	t.Parallel()
	v, err := Open(t.Context(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		n    NewMemory
		want string
	}{
		{"empty title", NewMemory{Title: "  "}, "title"},
		{"long title", NewMemory{Title: strings.Repeat("长", MaxTitleRunes+1)}, "title"},
		{"importance", NewMemory{Title: "x", Importance: 11}, "importance"},
		{"layer", NewMemory{Title: "x", Layer: 9}, "layer"},
		{"content size", NewMemory{Title: "x", Content: strings.Repeat("a", MaxContentBytes+1)}, "content"},
		{"front matter injection", NewMemory{Title: "x", Content: "---\nid: evil\n---\n"}, "content"},
		{"too many tags", NewMemory{Title: "x", Tags: manyTags(MaxTags + 1)}, "tags"},
		{"bad id", NewMemory{Title: "x", ID: "../escape"}, "id"},
		{"expiry before effect", NewMemory{Title: "x", EffectiveAt: time.Now(), ExpiresAt: time.Now().Add(-time.Hour)}, "expires_at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Create(t.Context(), tt.n, Author{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want an error naming %q", err, tt.want)
			}
		})
	}
	if n := len(v.All()); n != 0 {
		t.Fatalf("%d memories written by refused creates", n)
	}
}

func TestNewULIDMatchesOklog(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 10, 2, 11, 0, time.UTC)
	id, err := NewULID(now, nil)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := ulid.ParseStrict(id)
	if err != nil {
		t.Fatalf("oklog rejects %s: %v", id, err)
	}
	if got := ulid.Time(parsed.Time()); !got.Equal(now) {
		t.Fatalf("time in ULID = %v, want %v", got, now)
	}
	other, _ := NewULID(now.Add(time.Millisecond), nil)
	if other <= id {
		t.Fatalf("ULIDs do not sort by time: %s <= %s", other, id)
	}
}

func manyTags(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("tag%d", i)
	}
	return out
}

// TestRelatedFollowsWrites checks wiki-link resolution whether the name
// table was built before the writes (and kept up to date by them) or is
// built after them from the entries.
func TestRelatedFollowsWrites(t *testing.T) {
	t.Parallel()
	for _, builtFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("builtFirst=%v", builtFirst), func(t *testing.T) {
			clock := newClock("2026-11-30T10:02:11Z")
			v, err := Open(t.Context(), t.TempDir(), Options{Now: clock.Now})
			if err != nil {
				t.Fatal(err)
			}
			a, err := v.Create(t.Context(), NewMemory{Title: "Checkout design", Content: "See [[Payment gateway]] and [[订单状态]]."}, Author{})
			if err != nil {
				t.Fatal(err)
			}
			related := func() []string {
				m, err := v.Get(a.Memory.ID)
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, r := range v.Related(m) {
					ids = append(ids, r.ID)
				}
				return ids
			}
			if builtFirst {
				if got := related(); len(got) != 0 {
					t.Fatalf("Related before the targets exist = %v, want none", got)
				}
			}
			pay, err := v.Create(t.Context(), NewMemory{Title: "Payment gateway", Content: "Stripe."}, Author{})
			if err != nil {
				t.Fatal(err)
			}
			order, err := v.Create(t.Context(), NewMemory{Title: "订单状态", Content: "unpaid, paid."}, Author{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := related(), []string{pay.Memory.ID, order.Memory.ID}; !slices.Equal(got, want) {
				t.Fatalf("Related after creating the targets = %v, want %v", got, want)
			}
			if _, err := v.Forget(t.Context(), pay.Memory.ID, true, Author{Reason: "gone"}); err != nil {
				t.Fatal(err)
			}
			if got, want := related(), []string{order.Memory.ID}; !slices.Equal(got, want) {
				t.Fatalf("Related after deleting one target = %v, want %v", got, want)
			}
		})
	}
}
