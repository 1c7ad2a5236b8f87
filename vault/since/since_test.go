package since

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/staleness"
)

// fakeGit returns its commits (newest first) for any range, as a
// repository would for the range the test means.
type fakeGit struct {
	commits []Commit
	limit   int // the limit asked for
}

func (f *fakeGit) Commits(_ context.Context, _, _ string, limit int) ([]Commit, bool, error) {
	f.limit = limit
	if limit > 0 && len(f.commits) > limit {
		return f.commits[:limit], true, nil
	}
	return f.commits, false, nil
}

// mem is a memory file's content.
func mem(id, title, layer, status string, supersedes ...string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nid: %s\ntitle: %s\nlayer: %s\nstatus: %s\n", id, title, layer, status)
	if len(supersedes) > 0 {
		fmt.Fprintf(&b, "supersedes: [%s]\n", strings.Join(supersedes, ", "))
	}
	b.WriteString("created_at: 2026-11-01T00:00:00Z\nupdated_at: 2026-11-01T00:00:00Z\nversion: 1\n---\n\nBody of " + title + ".\n")
	return []byte(b.String())
}

const (
	idA = "01M720TFN1ARKVF1KVFEJJ74A0"
	idB = "01M720TFN1ARKVF1KVFEJJ74B0"
	idC = "01M720TFN1ARKVF1KVFEJJ74C0"
)

var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// commit builds a commit by author at t0+minutes with a memvault message.
func commit(hash, author string, minutes int, reason string, files ...File) Commit {
	msg := "memory(project): write\n\n" + reason + "\n\nMemory-Id: x\nMemory-Layer: project\nMemory-Client: claude-code\n"
	return Commit{Hash: hash, Author: author, Email: strings.ToLower(author) + "@example.com",
		When: t0.Add(time.Duration(minutes) * time.Minute), Message: msg, Files: files}
}

func TestChanges(t *testing.T) {
	a1 := mem(idA, "Deploys use ops/deploy.sh", "project", "active")
	a2 := mem(idA, "Deploys use ops/deploy.sh (v2)", "project", "active")
	a2c := bytes.Replace(a2, []byte("version: 1\n"), []byte("version: 1\nverified_at: 2026-11-02T00:00:00Z\n"), 1) // confirmed
	aSup := mem(idA, "Deploys use ops/deploy.sh", "project", "superseded")
	aArch := mem(idA, "Deploys use ops/deploy.sh", "project", "archived")
	b := mem(idB, "Deploys go through make deploy", "project", "active", idA)
	c := mem(idC, "Scratch note", "short-term", "active")
	cMoved := mem(idC, "Scratch note", "project", "active")
	type want struct {
		kind, id, title string
		by              []string // commit hashes, newest first
		supersedes      []vault.Ref
		supersededBy    []vault.Ref
	}
	tests := []struct {
		name    string
		commits []Commit // newest first
		want    []want
	}{
		{name: "nothing", want: nil},
		{
			name:    "a teammate adds a memory",
			commits: []Commit{commit("c1", "Alice", 1, "we deploy with a script now", File{Path: "project/a.md", New: a1})},
			want:    []want{{kind: Added, id: idA, title: "Deploys use ops/deploy.sh", by: []string{"c1"}}},
		},
		{
			name: "added and superseded: both ends named",
			commits: []Commit{
				commit("c2", "Bob", 2, "make deploy replaces the script",
					File{Path: "project/a.md", Old: a1, New: aSup}, File{Path: "project/b.md", New: b}),
			},
			want: []want{
				{kind: Added, id: idB, title: "Deploys go through make deploy", by: []string{"c2"},
					supersedes: []vault.Ref{{ID: idA, Title: "Deploys use ops/deploy.sh"}}},
				{kind: Superseded, id: idA, title: "Deploys use ops/deploy.sh", by: []string{"c2"},
					supersededBy: []vault.Ref{{ID: idB, Title: "Deploys go through make deploy"}}},
			},
		},
		{
			name: "changed twice: one change, both commits, newest first",
			commits: []Commit{
				commit("c3", "Bob", 3, "second", File{Path: "project/a.md", Old: a2, New: a1}),
				commit("c2", "Alice", 2, "first", File{Path: "project/a.md", Old: a1, New: a2}),
			},
			want: []want{{kind: Changed, id: idA, title: "Deploys use ops/deploy.sh", by: []string{"c3", "c2"}}},
		},
		{
			name: "changed then confirmed: the change told, not the confirm",
			commits: []Commit{
				commit("c3", "Bob", 3, "checked it", File{Path: "project/a.md", Old: a2, New: a2c}),
				commit("c2", "Alice", 2, "reword", File{Path: "project/a.md", Old: a1, New: a2}),
			},
			want: []want{{kind: Changed, id: idA, title: "Deploys use ops/deploy.sh (v2)", by: []string{"c2"}}},
		},
		{
			name: "only confirmed: the confirm told",
			commits: []Commit{
				commit("c3", "Bob", 3, "checked it", File{Path: "project/a.md", Old: a2, New: a2c}),
			},
			want: []want{{kind: Changed, id: idA, title: "Deploys use ops/deploy.sh (v2)", by: []string{"c3"}}},
		},
		{
			name: "added then deleted in the range: nothing to tell",
			commits: []Commit{
				commit("c3", "Bob", 3, "oops", File{Path: "project/a.md", Old: a1}),
				commit("c2", "Alice", 2, "add", File{Path: "project/a.md", New: a1}),
			},
		},
		{
			name: "added then changed: added, by both, the creator first",
			commits: []Commit{
				commit("c3", "Bob", 3, "reword", File{Path: "project/a.md", Old: a1, New: a2}),
				commit("c2", "Alice", 2, "add", File{Path: "project/a.md", New: a1}),
			},
			want: []want{{kind: Added, id: idA, title: "Deploys use ops/deploy.sh (v2)", by: []string{"c2", "c3"}}},
		},
		{
			name: "added and superseded in the range: told as superseded",
			commits: []Commit{
				commit("c3", "Bob", 3, "make deploy replaces the script",
					File{Path: "project/a.md", Old: a1, New: aSup}, File{Path: "project/b.md", New: b}),
				commit("c2", "Alice", 2, "add", File{Path: "project/a.md", New: a1}),
			},
			want: []want{
				{kind: Added, id: idB, title: "Deploys go through make deploy", by: []string{"c3"},
					supersedes: []vault.Ref{{ID: idA, Title: "Deploys use ops/deploy.sh"}}},
				{kind: Superseded, id: idA, title: "Deploys use ops/deploy.sh", by: []string{"c3", "c2"},
					supersededBy: []vault.Ref{{ID: idB, Title: "Deploys go through make deploy"}}},
			},
		},
		{
			name:    "moved between layers: one change",
			commits: []Commit{commit("c4", "Alice", 4, "promote", File{Path: "project/c.md", New: cMoved}, File{Path: "short-term/c.md", Old: c})},
			want:    []want{{kind: Changed, id: idC, title: "Scratch note", by: []string{"c4"}}},
		},
		{
			name: "archived and deleted",
			commits: []Commit{
				commit("c5", "Alice", 5, "gone", File{Path: "short-term/c.md", Old: c}),
				commit("c4", "Alice", 4, "old", File{Path: "project/a.md", Old: a1, New: aArch}),
			},
			want: []want{
				{kind: Archived, id: idA, title: "Deploys use ops/deploy.sh", by: []string{"c4"}},
				{kind: Deleted, id: idC, title: "Scratch note", by: []string{"c5"}},
			},
		},
		{
			name: "a merge is named only for what it alone decided",
			commits: []Commit{
				{Hash: "m1", Author: "Carol", When: t0.Add(9 * time.Minute), Message: "Merge branch 'main'", Merge: true,
					Files: []File{{Path: "project/a.md", Old: a1, New: a2}, {Path: "short-term/c.md", Old: nil, New: c}}},
				commit("c2", "Alice", 2, "reword", File{Path: "project/a.md", Old: a1, New: a2}),
			},
			want: []want{
				{kind: Added, id: idC, title: "Scratch note", by: []string{"m1"}},
				{kind: Changed, id: idA, title: "Deploys use ops/deploy.sh (v2)", by: []string{"c2"}},
			},
		},
		{
			name:    "files that are not memories are ignored",
			commits: []Commit{commit("c1", "Alice", 1, "readme", File{Path: "README.md", New: []byte("# hi\n")}, File{Path: ".gitignore", New: []byte("x\n")})},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &fakeGit{commits: tt.commits}
			got, n, more, err := Changes(t.Context(), g, "base", "head", 10)
			if err != nil {
				t.Fatal(err)
			}
			if n != len(tt.commits) || more || g.limit != 10 {
				t.Errorf("commits = %d, more = %v, limit asked %d; want %d, false, 10", n, more, g.limit, len(tt.commits))
			}
			var gotW []want
			for _, c := range got {
				w := want{kind: c.Kind, id: c.ID, title: c.Title, supersedes: c.Supersedes, supersededBy: c.SupersededBy}
				for _, a := range c.By {
					w.by = append(w.by, a.Commit)
				}
				gotW = append(gotW, w)
			}
			if diff := cmp.Diff(tt.want, gotW, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestChangesWhoAndWhy checks the author, client and reason come from
// each commit's own message.
func TestChangesWhoAndWhy(t *testing.T) {
	g := &fakeGit{commits: []Commit{commit("c1", "Alice", 1, "we deploy with a script now\nsee INC-42", File{Path: "project/a.md", New: mem(idA, "A", "project", "active")})}}
	got, _, _, err := Changes(t.Context(), g, "", "head", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Author{{Commit: "c1", Name: "Alice", Email: "alice@example.com", When: t0.Add(time.Minute), Client: "claude-code",
		Subject: "memory(project): write", Reason: "we deploy with a script now\nsee INC-42"}}
	if len(got) != 1 {
		t.Fatalf("got %d changes, want 1", len(got))
	}
	if diff := cmp.Diff(want, got[0].By); diff != "" {
		t.Errorf("by (-want +got):\n%s", diff)
	}
}

func TestChangesMore(t *testing.T) {
	var cs []Commit
	for i := 3; i > 0; i-- {
		cs = append(cs, commit(fmt.Sprint("c", i), "Alice", i, "r", File{Path: fmt.Sprintf("project/%d.md", i),
			New: mem(fmt.Sprintf("01M720TFN1ARKVF1KVFEJJ74D%d", i), fmt.Sprint("T", i), "project", "active")}))
	}
	got, n, more, err := Changes(t.Context(), &fakeGit{commits: cs}, "", "head", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || n != 2 || !more {
		t.Errorf("got %d changes of %d commits, more %v; want 2 of 2, more", len(got), n, more)
	}
}

func TestWorse(t *testing.T) {
	titles := map[string]string{"a": "A", "b": "B", "c": "C", "d": "D"}
	title := func(id string) string { return titles[id] }
	st := func(s staleness.State) staleness.Staleness {
		return staleness.Staleness{State: s, Reason: "r " + string(s)}
	}
	tests := []struct {
		name string
		was  map[string]staleness.State
		now  map[string]staleness.Staleness
		want []string // "id was->now"
	}{
		{name: "nothing recorded, nothing now"},
		{name: "fresh stays fresh", now: map[string]staleness.Staleness{"a": st(staleness.Fresh)}},
		{name: "unrecorded means fresh then", now: map[string]staleness.Staleness{"a": st(staleness.PossiblyStale)},
			want: []string{"a fresh->possibly_stale"}},
		{name: "possibly stale stays: not news", was: map[string]staleness.State{"a": staleness.PossiblyStale},
			now: map[string]staleness.Staleness{"a": st(staleness.PossiblyStale)}},
		{name: "possibly stale to stale", was: map[string]staleness.State{"a": staleness.PossiblyStale},
			now: map[string]staleness.Staleness{"a": st(staleness.Stale)}, want: []string{"a possibly_stale->stale"}},
		{name: "better is not news", was: map[string]staleness.State{"a": staleness.Stale},
			now: map[string]staleness.Staleness{"a": st(staleness.Fresh)}},
		{name: "stale first, then by title",
			now:  map[string]staleness.Staleness{"b": st(staleness.PossiblyStale), "c": st(staleness.Stale), "a": st(staleness.PossiblyStale)},
			want: []string{"c fresh->stale", "a fresh->possibly_stale", "b fresh->possibly_stale"}},
		{name: "a memory no longer in the vault is left out", now: map[string]staleness.Staleness{"gone": st(staleness.Stale)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, w := range Worse(tt.was, tt.now, title) {
				if w.Title != titles[w.ID] || w.Reason != "r "+string(w.State) {
					t.Errorf("%s: title %q reason %q", w.ID, w.Title, w.Reason)
				}
				got = append(got, fmt.Sprintf("%s %s->%s", w.ID, w.Was, w.State))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("worse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNotFresh(t *testing.T) {
	got := NotFresh(map[string]staleness.Staleness{"a": {State: staleness.Fresh}, "b": {State: staleness.Stale}, "c": {State: staleness.PossiblyStale}})
	want := map[string]staleness.State{"b": staleness.Stale, "c": staleness.PossiblyStale}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NotFresh (-want +got):\n%s", diff)
	}
}

// TestChangesOfASquash: one squash commit changes two memories; each is
// told with the reason and client of its own squashed message.
func TestChangesOfASquash(t *testing.T) {
	item := func(id, reason, client string) string {
		return "* memory(project): add \"x\"\n\n" + reason + "\n\nMemory-Id: " + id + "\nMemory-Layer: project\nMemory-Client: " + client + "\n\n"
	}
	c := Commit{Hash: "s1", Author: "Bob", Email: "bob@example.com", When: t0, Message: "Rules (#3)\n\n" + item(idA, "why A", "cursor") + item(idB, "why B", "cli"),
		Files: []File{{Path: "project/a.md", New: mem(idA, "A", "project", "active")}, {Path: "project/b.md", New: mem(idB, "B", "project", "active")}}}
	got, _, _, err := Changes(t.Context(), &fakeGit{commits: []Commit{c}}, "", "head", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{idA: {"why A", "cursor"}, idB: {"why B", "cli"}}
	if len(got) != 2 {
		t.Fatalf("got %d changes, want 2", len(got))
	}
	for _, ch := range got {
		if len(ch.By) != 1 || [2]string{ch.By[0].Reason, ch.By[0].Client} != want[ch.ID] || ch.By[0].Subject != `memory(project): add "x"` {
			t.Errorf("%s by %+v, want reason and client %v", ch.ID, ch.By, want[ch.ID])
		}
	}
}
