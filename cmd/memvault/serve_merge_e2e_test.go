package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// TestServeThroughAMerge runs a real `memvault serve` while the git CLI
// merges a branch that edited the same memory, in a clone without the
// merge driver: git leaves conflict markers. Meanwhile the server serves
// the last committed version labelled conflicted, recall never shows a
// marker, remember and update_memory (and the CLI's add, update and
// forget) are refused with what to run, and
// once the user resolves the file and commits the merge the server serves
// the merged memory, no longer labelled.
func TestServeThroughAMerge(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary, runs git and a server")
	}
	const id = "01JDX3Q8W7AAAAAAAAAAAAAAAA"
	r := newMergeRepo(t, mergeBase)
	r.git("config", "--unset", "merge.memvault.driver")
	r.commitOn("theirs", strings.Replace(mergeBase, "importance: 5", "importance: 8", 1))
	r.commitOn("main", strings.Replace(mergeBase, "tags: [money]", "tags: [money, ledger]", 1))

	s, log := startLoggedServe(t, r.root)
	get := func() view.Memory {
		var m view.Memory
		s.ok("get_memory", map[string]any{"id": id}, &m)
		return m
	}
	if m := get(); len(m.Conflicted) != 0 || !slices.Equal(m.Tags, []string{"money", "ledger"}) {
		t.Fatalf("before the merge: tags %v conflicted %v", m.Tags, m.Conflicted)
	}

	mark := log.Len()
	if out, ok := r.try("merge", "--no-edit", "theirs"); ok {
		t.Fatalf("git's text merge of neighbouring lines succeeded:\n%s", out)
	}
	if !strings.Contains(r.memory(), "<<<<<<< ") {
		t.Fatalf("no markers to test with:\n%s", r.memory())
	}
	// The watcher sees the merge write the file; the server then serves
	// HEAD's version of it, labelled.
	var during view.Memory
	liveAwaitLog(t, log, mark, "applied file changes", func() bool {
		during = get()
		return len(during.Conflicted) > 0
	})
	if !slices.Contains(during.Conflicted, "markers") || during.Importance != 5 || !slices.Equal(during.Tags, []string{"money", "ledger"}) {
		t.Errorf("during the merge: importance %d tags %v conflicted %v; want HEAD's version labelled markers",
			during.Importance, during.Tags, during.Conflicted)
	}
	var rec view.Recall
	text := s.ok("recall", map[string]any{"query": "money cents"}, &rec)
	if len(rec.Results) == 0 || rec.Results[0].ID != id || len(rec.Results[0].Conflicted) == 0 {
		t.Errorf("recall during the merge: %+v", rec.Results)
	}
	if strings.Contains(text, "<<<<<<<") || strings.Contains(during.Body, "<<<<<<<") {
		t.Errorf("a conflict marker reached the assistant:\n%s\n%s", text, during.Body)
	}

	// memory_stats and the session digest say so before anyone tries.
	var st view.Stats
	s.ok("memory_stats", nil, &st)
	if st.GitOperation != "merge" || !strings.Contains(st.WritesRefused, "git merge --continue") {
		t.Errorf("memory_stats during the merge: git_operation %q, writes_refused %q", st.GitOperation, st.WritesRefused)
	}
	if ctx := readResource(t, s, "memory://context"); !strings.Contains(ctx, "## A git merge is under way") {
		t.Errorf("memory://context does not say a merge is under way:\n%s", ctx)
	}

	head := r.git("rev-parse", "HEAD")
	for _, w := range []struct {
		tool string
		args map[string]any
	}{
		{"remember", map[string]any{"title": "Deploys go through make ship", "content": "Never by hand.", "reason": "during the merge"}},
		{"update_memory", map[string]any{"id": id, "importance": 9, "expected_version": during.Version, "expected_etag": during.ETag, "reason": "during the merge"}},
	} {
		msg := s.fails(w.tool, w.args)
		for _, want := range []string{"git merge is under way", "git merge --continue", "memvault resolve", "git merge --abort", "Nothing was written"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s refused without %q:\n%s", w.tool, want, msg)
			}
		}
	}
	// The CLI's writes go through the same rule.
	for _, args := range [][]string{
		{"add", "Deploys go through make ship", "--content", "Never by hand."},
		{"update", id, "--importance", "9", "--reason", "during the merge"},
		{"forget", id, "--reason", "during the merge"},
	} {
		code, out := r.memvault(args...)
		if code != exitUsage || !strings.Contains(out, "git merge --continue") || !strings.Contains(out, "git merge --abort") {
			t.Errorf("memvault %s during the merge: exit %d, output:\n%s", args[0], code, out)
		}
	}
	if got := r.git("rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved during the merge: %s -> %s", head, got)
	}
	if _, ok := r.try("rev-parse", "-q", "--verify", "MERGE_HEAD"); !ok {
		t.Error("the merge is no longer in progress after the refused writes")
	}

	// The user resolves the file and commits the merge.
	resolved := strings.Replace(strings.Replace(mergeBase, "importance: 5", "importance: 8", 1), "tags: [money]", "tags: [money, ledger]", 1)
	r.write(mergeMemory, resolved)
	r.git("add", mergeMemory)
	mark = log.Len()
	r.git("commit", "-q", "--no-edit")
	var after view.Memory
	liveAwaitLog(t, log, mark, "HEAD", func() bool {
		after = get()
		return len(after.Conflicted) == 0 && after.Importance == 8
	})
	if !slices.Equal(after.Tags, []string{"money", "ledger"}) {
		t.Errorf("after the merge: tags %v", after.Tags)
	}
	st = view.Stats{}
	s.ok("memory_stats", nil, &st)
	if st.GitOperation != "" || st.WritesRefused != "" {
		t.Errorf("memory_stats after the merge: git_operation %q, writes_refused %q", st.GitOperation, st.WritesRefused)
	}
	var w view.Write
	s.ok("remember", map[string]any{"title": "Deploys go through make ship", "content": "Never by hand.", "reason": "after the merge"}, &w)
	if w.Commit == "" {
		t.Errorf("remember after the merge: %+v", w)
	}
	if parents := strings.Fields(r.git("log", "-1", "--format=%P", "HEAD~1")); len(parents) != 2 {
		t.Errorf("the write did not land on the merge commit: HEAD~1 has parents %v", parents)
	}
}

// TestWritesRefusedDuringARebaseOrCherryPick: with real git stopped in
// the middle of a rebase or a cherry-pick (a memory conflict, no driver),
// the CLI's writes are refused naming that operation's commands; once it
// is aborted they work again.
func TestWritesRefusedDuringARebaseOrCherryPick(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		op    string
		start []string
	}{
		{"rebase", []string{"rebase", "theirs"}},
		{"cherry-pick", []string{"cherry-pick", "theirs"}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			// -short checks the refusal under a real rebase; gitstore's
			// TestCommitRepositoryStates reads every state git leaves,
			// the cherry-pick's CHERRY_PICK_HEAD among them.
			if testing.Short() && tc.op != "rebase" {
				t.Skip("-short runs the rebase only; both run without -short, as CI does")
			}
			t.Parallel()
			r := newMergeRepo(t, mergeBase)
			r.git("config", "--unset", "merge.memvault.driver")
			r.commitOn("theirs", strings.Replace(mergeBase, "importance: 5", "importance: 8", 1))
			r.commitOn("main", strings.Replace(mergeBase, "tags: [money]", "tags: [money, ledger]", 1))
			if out, ok := r.try(tc.start...); ok {
				t.Fatalf("git %s succeeded; want it to stop on the conflict:\n%s", tc.op, out)
			}
			code, out := r.memvault("add", "Deploys go through make ship", "--content", "Never by hand.")
			for _, want := range []string{"git " + tc.op + " is under way", "git " + tc.op + " --continue", "git " + tc.op + " --abort"} {
				if code != exitUsage || !strings.Contains(out, want) {
					t.Errorf("add during the %s: exit %d, output lacks %q:\n%s", tc.op, code, want, out)
				}
			}
			r.git(tc.op, "--abort")
			if code, out := r.memvault("add", "Deploys go through make ship", "--content", "Never by hand."); code != 0 {
				t.Errorf("add after the %s was aborted: exit %d\n%s", tc.op, code, out)
			}
		})
	}
}
