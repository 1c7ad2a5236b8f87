package history

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memvault/memvault/vault"
)

// refundStory is a memory's life: added, re-weighted, rewritten, moved to
// another layer, with an unrelated commit in between.
func refundStory() (*fakeRepo, mem) {
	r := &fakeRepo{}
	m := mem{id: "01REFUNDS", title: "Refunds are synchronous", body: "The admin waits for the provider.\n"}
	const path = "project/refunds-are-synchronous.md"
	r.commit(t0, msg("add", m, "first cut", "cli"), map[string]string{path: m.file()})
	m.importance, m.tags, m.version = 8, []string{"refunds"}, 2
	r.commit(t0.Add(time.Hour), msg("update", m, "matters for finance", "cli"), map[string]string{path: m.file()})
	m.title, m.body, m.version = "Refunds run asynchronously", "Refunds are queued on RefundRequested.\n", 3
	r.commit(t0.Add(2*time.Hour), msg("update", m, "gateway timeouts at 30 s", "cursor"), map[string]string{path: m.file()})
	m.layer, m.version = "preference", 4
	r.commit(t0.Add(3*time.Hour), msg("update", m, "it is how this team likes it", "cli"),
		map[string]string{path: "", "preferences/refunds-are-synchronous.md": m.file()})
	// A commit of another memory must not show up.
	other := mem{id: "01OTHER", title: "Unrelated", body: "noise\n"}
	r.commit(t0.Add(4*time.Hour), msg("add", other, "", "cli"), map[string]string{"project/unrelated.md": other.file()})
	return r, m
}

func TestHistory(t *testing.T) {
	r, m := refundStory()
	_, v := r.checkout(t, t0)
	cur, err := v.Get(m.id)
	if err != nil {
		t.Fatal(err)
	}
	past := New(r, "vault")
	story, err := past.History(t.Context(), m.id, cur)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Kind, Reason, Client, Path, OldPath string
		Version                             int
		Fields                              []string
	}
	var got []row
	for _, rev := range story.Revisions {
		var fields []string
		for _, c := range rev.Changes {
			fields = append(fields, c.Field)
		}
		got = append(got, row{rev.Kind, rev.Reason, rev.Client, rev.Path, rev.OldPath, rev.Version, fields})
	}
	want := []row{
		{"moved", "it is how this team likes it", "cli", "preferences/refunds-are-synchronous.md", "project/refunds-are-synchronous.md", 4, []string{"layer", "version"}},
		{"changed", "gateway timeouts at 30 s", "cursor", "project/refunds-are-synchronous.md", "", 3, []string{"title", "version"}},
		{"changed", "matters for finance", "cli", "project/refunds-are-synchronous.md", "", 2, []string{"importance", "tags", "version"}},
		{"added", "first cut", "cli", "project/refunds-are-synchronous.md", "", 1, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("history (-want +got):\n%s", diff)
	}
	if d := story.Revisions[1].BodyDiff; !slices.Equal(d, []string{"- The admin waits for the provider.", "+ Refunds are queued on RefundRequested."}) {
		t.Errorf("body diff = %q", d)
	}
	if c := story.Revisions[2].Changes; c[0] != (FieldChange{"importance", "5", "8"}) || c[1] != (FieldChange{"tags", "", "[refunds]"}) {
		t.Errorf("field changes %+v", c)
	}
	for i, want := range []time.Time{t0.Add(3 * time.Hour), t0.Add(2 * time.Hour), t0.Add(time.Hour), t0} {
		if got := story.Revisions[i].Date; !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("revision %d dated %s, want %s in UTC", i, got, want)
		}
	}
	if r0 := story.Revisions[0]; r0.Subject != `memory(preference): update "Refunds run asynchronously"` || r0.Author != "Ada" || r0.Email != "ada@example.com" {
		t.Errorf("newest revision %+v", r0)
	}
	if story.Title != "Refunds run asynchronously" || story.Path != "preferences/refunds-are-synchronous.md" || story.Current != cur {
		t.Errorf("story %q at %s", story.Title, story.Path)
	}

	t.Run("deleted memory", func(t *testing.T) {
		r, m := refundStory()
		r.commit(t0.Add(5*time.Hour), msg("delete", m, "merged elsewhere", "cli"), map[string]string{"preferences/refunds-are-synchronous.md": ""})
		story, err := New(r, "vault").History(t.Context(), m.id, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(story.Revisions) != 5 || story.Revisions[0].Kind != KindDeleted || story.Revisions[0].Reason != "merged elsewhere" ||
			story.Revisions[0].Version != 4 {
			t.Errorf("after delete: %d revisions, newest %+v", len(story.Revisions), story.Revisions[0])
		}
		if story.Title != "Refunds run asynchronously" || story.Path != "preferences/refunds-are-synchronous.md" {
			t.Errorf("title %q at %s, want the last recorded ones", story.Title, story.Path)
		}
	})

	t.Run("unknown id", func(t *testing.T) {
		if _, err := past.History(t.Context(), "01NOSUCHMEMORY0000000000000", nil); !errors.Is(err, vault.ErrNotFound) {
			t.Errorf("err = %v, want vault.ErrNotFound", err)
		}
	})

	t.Run("a commit that only names it", func(t *testing.T) {
		r, m := refundStory()
		// A batch names the memory in its trailers but writes another file.
		batch := "memory: add 2 memories\n\nMemory-Id: 01REFUNDS\nMemory-Id: 01NEW\nMemory-Client: cli\n"
		r.commit(t0.Add(5*time.Hour), batch, map[string]string{"project/new.md": mem{id: "01NEW", title: "New"}.file()})
		cur := &vault.Memory{ID: m.id, Title: m.title, Path: "preferences/refunds-are-synchronous.md"}
		story, err := New(r, "vault").History(t.Context(), m.id, cur)
		if err != nil {
			t.Fatal(err)
		}
		if r0 := story.Revisions[0]; len(story.Revisions) != 5 || r0.Kind != KindMentioned || r0.Version != 4 || len(r0.Changes) != 0 {
			t.Errorf("newest revision %+v, want it mentioned, at version 4, with no changes", r0)
		}
	})

	t.Run("never committed", func(t *testing.T) {
		cur := &vault.Memory{ID: "01SCRATCH", Title: "Session scratch", Path: "transient/scratch.md"}
		story, err := past.History(t.Context(), cur.ID, cur)
		if err != nil || len(story.Revisions) != 0 || story.Title != "Session scratch" {
			t.Errorf("story %+v, %v; want no revisions and the current title", story, err)
		}
	})

	t.Run("a hand-written file's id is its path", func(t *testing.T) {
		r := &fakeRepo{}
		r.commit(t0, "notes\n", map[string]string{"project/hand.md": "# Hand-written\n\nBody.\n"})
		r.commit(t0.Add(time.Hour), "more notes\n", map[string]string{"project/hand.md": "# Hand-written\n\nBody, longer.\n"})
		story, err := New(r, "vault").History(t.Context(), "project/hand", nil)
		if err != nil {
			t.Fatal(err)
		}
		if story.Path != "project/hand.md" || story.Title != "Hand-written" || len(story.Revisions) != 2 ||
			story.Revisions[0].Kind != KindChanged || story.Revisions[0].Reason != "" {
			t.Errorf("story %+v", story)
		}
	})
}

func TestBodyDiffIsCapped(t *testing.T) {
	var a, b strings.Builder
	for i := range 50 {
		a.WriteString("old line " + fmtN(i) + "\n")
		b.WriteString("new line " + fmtN(i) + "\n")
	}
	lines, more := BodyDiff(a.String(), b.String(), MaxBodyDiffLines)
	if len(lines) != MaxBodyDiffLines || more != 100-MaxBodyDiffLines {
		t.Errorf("got %d lines and %d more, want %d and %d", len(lines), more, MaxBodyDiffLines, 100-MaxBodyDiffLines)
	}
	if lines, more := BodyDiff("same\n", "same\n", 20); lines != nil || more != 0 {
		t.Errorf("equal bodies: %q %d", lines, more)
	}
}

func fmtN(i int) string { return string(rune('a'+i%26)) + string(rune('a'+i/26)) }

func FuzzBodyDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("", "x")
	f.Add("订单\n状态\n", "订单\n状态机\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		lines, more := BodyDiff(a, b, 5)
		if len(lines) > 5 || more < 0 {
			t.Errorf("%d lines, %d more", len(lines), more)
		}
		if a == b && (len(lines) > 0 || more > 0) {
			t.Errorf("diff of equal texts: %q", lines)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "+ ") && !strings.HasPrefix(l, "- ") {
				t.Errorf("line %q has no sign", l)
			}
		}
	})
}
