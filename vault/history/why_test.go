package history

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
)

// orderStory is the sample vault's order rules: an old rule, superseded
// by a new one in one commit and marked superseded in the next, and an
// older rule the old one had replaced, deleted since.
func orderStory() (*fakeRepo, mem, mem, mem) {
	r := &fakeRepo{}
	oldest := mem{id: "01OLDEST", title: "订单只有 paid 状态", body: "MVP.\n"}
	old := mem{id: "01OLD", title: "订单状态：unpaid / paid / cancelled", supersedes: []string{oldest.id}, body: "三种状态。\n"}
	r.commit(t0, msg("add", oldest, "MVP", "cli"), map[string]string{"project/oldest.md": oldest.file()})
	r.commit(t0.Add(time.Hour), msg("supersede", old, "取消订单要有状态", "cursor", oldest.id),
		map[string]string{"project/old.md": old.file()})
	r.commit(t0.Add(2*time.Hour), msg("delete", oldest, "pre-cancel history is in git", "cli"), map[string]string{"project/oldest.md": ""})
	succ := mem{id: "01NEW", title: "订单状态机增加 refunded 状态", supersedes: []string{old.id}, tags: []string{"订单状态"},
		body: "订单状态：unpaid / paid / cancelled / refunded。\n"}
	r.commit(t0.Add(3*time.Hour), msg("supersede", succ, "线上退款上线", "claude-code", old.id), map[string]string{"project/new.md": succ.file()})
	old.status, old.version = "superseded", 2
	r.commit(t0.Add(4*time.Hour), msg("update", old, "Marked superseded by 01NEW", "claude-code"), map[string]string{"project/old.md": old.file()})
	return r, oldest, old, succ
}

func TestWhy(t *testing.T) {
	r, oldest, old, succ := orderStory()
	_, v := r.checkout(t, t0.Add(5*time.Hour))
	rep, err := Why(t.Context(), v, New(r, "vault"), "订单状态有哪些 refunded")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Memory.ID != succ.id || !rep.InGit || rep.Query != "订单状态有哪些 refunded" {
		t.Fatalf("why picked %s %q (in git %v), want %s", rep.Memory.ID, rep.Memory.Title, rep.InGit, succ.id)
	}
	if len(rep.Replaced) != 1 {
		t.Fatalf("chain %+v, want one replaced memory", rep.Replaced)
	}
	rp := rep.Replaced[0]
	if rp.ID != old.id || rp.Status != "superseded" || rp.Title != old.title || rp.Path != "project/old.md" || rp.Missing {
		t.Errorf("replaced %+v", rp)
	}
	if rp.Replaced == nil || rp.Replaced.Reason != "线上退款上线" || rp.Replaced.Client != "claude-code" || !rp.Replaced.Date.Equal(t0.Add(3*time.Hour)) {
		t.Errorf("replaced by commit %+v, want the t0+3h commit of claude-code with its reason", rp.Replaced)
	}
	if rp.Marked == nil || !strings.Contains(rp.Marked.Reason, "Marked superseded") || !rp.Marked.Date.Equal(t0.Add(4*time.Hour)) {
		t.Errorf("marked superseded by %+v, want the t0+4h commit", rp.Marked)
	}
	// The chain goes on through a memory deleted since: its last recorded
	// version names it.
	if len(rp.Supersedes) != 1 {
		t.Fatalf("chain below the old rule %+v, want the deleted oldest rule", rp.Supersedes)
	}
	if o := rp.Supersedes[0]; o.ID != oldest.id || !o.Missing || o.Title != oldest.title || o.Replaced == nil || o.Replaced.Client != "cursor" || o.Marked != nil {
		t.Errorf("oldest %+v, want missing, titled from its history, replaced by cursor's commit, never marked", o)
	}
	if len(rep.History) != 1 || rep.History[0].Kind != KindAdded || rep.History[0].Reason != "线上退款上线" {
		t.Errorf("history %+v, want the one commit that added it", rep.History)
	}

	t.Run("outside git", func(t *testing.T) {
		rep, err := Why(t.Context(), v, nil, "订单状态有哪些 refunded")
		if err != nil {
			t.Fatal(err)
		}
		if rep.InGit || rep.History != nil || len(rep.Replaced) != 1 || rep.Replaced[0].Replaced != nil {
			t.Errorf("outside git: %+v, want the chain without commits and no history", rep)
		}
	})

	t.Run("no match", func(t *testing.T) {
		if _, err := Why(t.Context(), v, nil, "nothing matches this at all zzz"); !errors.Is(err, ErrNoMatch) {
			t.Errorf("err = %v, want ErrNoMatch", err)
		}
	})
}

func TestWhyStopsAtCycles(t *testing.T) {
	// B, deleted since, had replaced A, which now replaces B: the chain
	// read from B's last version leads back to A.
	r := &fakeRepo{}
	a := mem{id: "01A", title: "Cache TTL is five minutes", body: "Five.\n"}
	b := mem{id: "01B", title: "Cache TTL is ten minutes", supersedes: []string{"01A"}, body: "Ten.\n"}
	r.commit(t0, msg("add", b, "", "cli"), map[string]string{"project/b.md": b.file()})
	r.commit(t0.Add(time.Minute), msg("delete", b, "", "cli"), map[string]string{"project/b.md": ""})
	a.supersedes = []string{"01B"}
	r.commit(t0.Add(2*time.Minute), msg("supersede", a, "", "cli", "01B"), map[string]string{"project/a.md": a.file()})
	_, v := r.checkout(t, t0.Add(time.Hour))
	rep, err := Why(t.Context(), v, New(r, "vault"), "cache TTL five minutes")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Replaced) != 1 || !rep.Replaced[0].Missing || rep.Replaced[0].Title != b.title || len(rep.Replaced[0].Supersedes) != 0 {
		t.Errorf("chain %+v, want the deleted B and no way back to A", rep.Replaced)
	}
}

func TestWhyNamesRivals(t *testing.T) {
	r := &fakeRepo{}
	a := mem{id: "01REAL", title: "API errors use real HTTP status codes", tags: []string{"api"}, body: "400, 404, 409, 500.\n"}
	b := mem{id: "01TWOHUNDRED", title: "API errors use HTTP 200 with an error code", tags: []string{"api"}, body: "Always 200; code in the body.\n"}
	r.commit(t0, msg("add", a, "", "cli"), map[string]string{"project/a.md": a.file()})
	r.commit(t0.Add(time.Minute), msg("add", b, "", "cli"), map[string]string{"project/b.md": b.file()})
	_, v := r.checkout(t, t0.Add(time.Hour))
	rep, err := Why(t.Context(), v, New(r, "vault"), "API errors HTTP status")
	if err != nil {
		t.Fatal(err)
	}
	other := map[string]mem{a.id: b, b.id: a}[rep.Memory.ID]
	if i := slices.IndexFunc(rep.Rivals, func(x vault.Ref) bool { return x.ID == other.id }); i < 0 || rep.Rivals[i].Title != other.title {
		t.Errorf("rivals %+v do not name %s %q", rep.Rivals, other.id, other.title)
	}
	if len(rep.Replaced) != 0 {
		t.Errorf("why invents a chain: %+v", rep.Replaced)
	}
}
