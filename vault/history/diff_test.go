package history

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memvault/memvault/vault"
)

func TestDiff(t *testing.T) {
	r, _, old, succ := orderStory()
	added := r.commits[3].Hash // the commit that added the new rule
	past := New(r, "vault")

	t.Run("a supersession", func(t *testing.T) {
		rep, err := past.Diff(t.Context(), added+"^", "HEAD")
		if err != nil {
			t.Fatal(err)
		}
		if rep.Base != r.commits[2].Hash || rep.Head != r.commits[4].Hash {
			t.Errorf("range %s..%s, want the full ids", rep.Base, rep.Head)
		}
		want := []MemoryChange{
			{Kind: KindAdded, ID: succ.id, Title: succ.title, Layer: "project", Path: "project/new.md",
				Supersedes: []vault.Ref{{ID: old.id, Title: old.title}}, Reason: "线上退款上线", Client: "claude-code", Author: "Ada",
				BodyDiff: []string{"@@ -0,0 +1,1 @@", "+" + strings.TrimSuffix(succ.body, "\n")}},
			{Kind: KindSuperseded, ID: old.id, Title: old.title, Layer: "project", Path: "project/old.md",
				Changes:      []FieldChange{{"status", "active", "superseded"}, {"version", "1", "2"}},
				SupersededBy: []vault.Ref{{ID: succ.id, Title: succ.title}}, Reason: "Marked superseded by 01NEW", Client: "claude-code", Author: "Ada"},
		}
		if diff := cmp.Diff(want, sortByPath(rep.Changes)); diff != "" {
			t.Errorf("changes (-want +got):\n%s", diff)
		}
	})

	t.Run("archived, changed, moved, broken and deleted", func(t *testing.T) {
		r, _, old, succ := orderStory()
		api := mem{id: "01API", title: "API errors: always HTTP 200", body: "v1.\n"}
		r.commit(t0.Add(5*time.Hour), msg("add", api, "", "cli"), map[string]string{"project/api.md": api.file()})
		start2 := r.commits[len(r.commits)-1].Hash
		api.status, api.version = "archived", 2
		r.commit(t0.Add(6*time.Hour), msg("archive", api, "v1 is going away", "cli"), map[string]string{"project/api.md": api.file()})
		r.commit(t0.Add(7*time.Hour), msg("delete", old, "pre-refund history is in git", "cli"), map[string]string{"project/old.md": ""})
		succ.importance, succ.tags, succ.version = 10, []string{"orders", "refunds"}, 2
		r.commit(t0.Add(8*time.Hour), msg("update", succ, "core rule", "cursor"), map[string]string{"project/new.md": succ.file()})
		pref := mem{id: "01PREF", title: "Use pytest", importance: 7, tags: []string{"python", "tests"},
			body: "Not unittest.\n\nFixtures live in conftest.py.\n\nRun with -q.\n"}
		r.commit(t0.Add(9*time.Hour), msg("add", pref, "", "cli"), map[string]string{"project/pytest.md": pref.file()})
		start3 := r.commits[len(r.commits)-1].Hash
		pref.layer = "preference"
		r.commit(t0.Add(10*time.Hour), msg("update", pref, "a preference", "cli"),
			map[string]string{"project/pytest.md": "", "preferences/pytest.md": pref.file()})
		r.commit(t0.Add(11*time.Hour), "hand edit\n", map[string]string{"project/api.md": "\xff\xfe not text"})

		rep, err := New(r, "vault").Diff(t.Context(), start2, "HEAD~2")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, c := range rep.Changes {
			got[c.ID] = fmt.Sprintf("%s %v body=%v %s (%s)", c.Kind, c.Changes, c.Body, c.Reason, c.Client)
		}
		want := map[string]string{
			api.id:  "archived [{status active archived} {version 1 2}] body=false v1 is going away (cli)",
			old.id:  "deleted [] body=false pre-refund history is in git (cli)",
			succ.id: "changed [{importance 5 10} {tags [订单状态] [orders, refunds]} {version 1 2}] body=false core rule (cursor)",
			pref.id: "added [] body=false  (cli)",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("changes (-want +got):\n%s", diff)
		}
		for _, c := range rep.Changes {
			if c.ID == old.id && c.Path != "project/old.md" {
				t.Errorf("a deleted memory's path %q, want where it was", c.Path)
			}
		}

		rep, err = New(r, "vault").Diff(t.Context(), start3, "HEAD")
		if err != nil {
			t.Fatal(err)
		}
		got = map[string]string{}
		for _, c := range rep.Changes {
			got[c.ID] = fmt.Sprintf("%s %s<-%s broken=%v %v", c.Kind, c.Path, c.OldPath, c.Broken, c.Changes)
		}
		want = map[string]string{
			pref.id: "changed preferences/pytest.md<-project/pytest.md broken=false [{layer project preference}]",
			api.id:  "changed project/api.md<- broken=true []",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("changes (-want +got):\n%s", diff)
		}
	})

	t.Run("matched by id across a rewrite and a move", func(t *testing.T) {
		r := &fakeRepo{}
		m := mem{id: "01MOVE", title: "Short-lived note", layer: "short-term", body: "one\ntwo\nthree\nfour\n"}
		r.commit(t0, msg("add", m, "", "cli"), map[string]string{"short-term/note.md": m.file()})
		m.layer, m.title, m.version, m.body = "project", "A project rule now", 2, strings.Repeat("entirely different words\n", 20)
		r.commit(t0.Add(time.Hour), msg("update", m, "promoted and rewritten", "cli"),
			map[string]string{"short-term/note.md": "", "project/rule.md": m.file()})
		if fcs, _ := r.Diff(t.Context(), "HEAD~1", "HEAD"); len(fcs) != 2 {
			t.Fatalf("the repository sees %d file changes; the test wants an addition and a deletion: %+v", len(fcs), fcs)
		}
		rep, err := New(r, "vault").Diff(t.Context(), "HEAD~1", "HEAD")
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Changes) != 1 {
			t.Fatalf("%d changes, want the one memory: %+v", len(rep.Changes), rep.Changes)
		}
		c := rep.Changes[0]
		if c.Kind != KindChanged || c.Path != "project/rule.md" || c.OldPath != "short-term/note.md" || !c.Body || len(c.BodyDiff) == 0 {
			t.Errorf("change %+v", c)
		}
	})

	t.Run("unknown revisions", func(t *testing.T) {
		for _, rg := range [][2]string{{"nosuchrev", "HEAD"}, {"HEAD", "nosuchrev"}} {
			_, err := past.Diff(t.Context(), rg[0], rg[1])
			var re *RevisionError
			if !errors.As(err, &re) || re.Rev != "nosuchrev" || !errors.Is(err, ErrNotFound) {
				t.Errorf("Diff(%s, %s): %v, want a RevisionError for nosuchrev", rg[0], rg[1], err)
			}
		}
	})

	t.Run("reasons for the first changes only", func(t *testing.T) {
		r := &fakeRepo{}
		r.commit(t0, "start\n", map[string]string{"README.md": "vault\n"})
		files := map[string]string{}
		for i := range MaxDiffReasons + 1 {
			m := mem{id: fmt.Sprintf("01M%03d", i), title: fmt.Sprintf("Rule %03d", i)}
			files[fmt.Sprintf("project/rule-%03d.md", i)] = m.file()
		}
		r.commit(t0.Add(time.Hour), "memory: import\n\nbulk\n\nMemory-Client: cli\n", files)
		rep, err := New(r, "vault").Diff(t.Context(), "HEAD~1", "HEAD")
		if err != nil {
			t.Fatal(err)
		}
		with := 0
		for _, c := range rep.Changes {
			if c.Reason == "bulk" {
				with++
			}
		}
		if len(rep.Changes) != MaxDiffReasons+1 || with != MaxDiffReasons {
			t.Errorf("%d changes, %d with a reason; want %d and %d", len(rep.Changes), with, MaxDiffReasons+1, MaxDiffReasons)
		}
	})
}

func sortByPath(cs []MemoryChange) []MemoryChange {
	out := append([]MemoryChange(nil), cs...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j].Path < out[i].Path {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
