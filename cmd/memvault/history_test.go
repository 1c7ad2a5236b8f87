package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/doctor"
	"github.com/memvault/memvault/vault/history"
)

// Sample vault ids (sample-vault/README.md lists them).
const (
	sampleOldOrderRule = "01KTQNVG84SZE65GGT73J028CM" // 订单状态：unpaid / paid / cancelled (superseded)
	sampleRefundedRule = "01M1JYSK001JFGN6A8F2MM0K3R" // 订单状态机增加 refunded 状态
	sampleAPI200Rule   = "01M3BT2X3CPJ07V9QBB7YCWNPP" // API errors: always HTTP 200
	sampleAPIHTTPRule  = "01M5E68866RCT3YJBGTRQ5KYHA" // API 错误：使用真实 HTTP 状态码
)

type historyJSON struct {
	ID, Title, Path string
	Revisions       []struct {
		Commit, Author, Client, Subject, Reason, Path, Kind string
		OldPath                                             string `json:"old_path"`
		Version                                             int
		Date                                                time.Time
		Changes                                             []history.FieldChange
		BodyDiff                                            []string `json:"body_diff"`
	}
}

func TestHistory(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	id := r.addMemory("Refunds are synchronous", "The admin waits for the provider.\n", "--reason", "first cut")
	steps := []struct {
		args   []string
		reason string
	}{
		{[]string{"--importance", "8", "--tags", "refunds"}, "matters for finance"},
		{[]string{"--content", "Refunds are queued on RefundRequested.\n", "--title", "Refunds run asynchronously"}, "gateway timeouts at 30 s"},
		{[]string{"--layer", "preference"}, "it is how this team likes it"},
	}
	for _, s := range steps {
		r.tick(time.Hour)
		r.ok(append([]string{"update", id, "--reason", s.reason}, s.args...)...)
	}
	// A commit of another memory must not show up.
	r.tick(time.Hour)
	r.addMemory("Unrelated", "noise")

	var h historyJSON
	if err := json.Unmarshal([]byte(r.ok("history", id, "--json")), &h); err != nil {
		t.Fatal(err)
	}
	type row struct {
		Kind, Reason, Client, Path, OldPath string
		Version                             int
		Fields                              []string
	}
	var got []row
	for _, rev := range h.Revisions {
		var fields []string
		for _, c := range rev.Changes {
			fields = append(fields, c.Field)
		}
		got = append(got, row{rev.Kind, rev.Reason, rev.Client, rev.Path, rev.OldPath, rev.Version, fields})
	}
	want := []row{
		{"moved", "it is how this team likes it", "cli", "preferences/refunds-are-synchronous.md", "project/refunds-are-synchronous.md", 4, []string{"layer", "version"}},
		{"changed", "gateway timeouts at 30 s", "cli", "project/refunds-are-synchronous.md", "", 3, []string{"title", "version"}},
		{"changed", "matters for finance", "cli", "project/refunds-are-synchronous.md", "", 2, []string{"importance", "tags", "version"}},
		{"added", "first cut", "cli", "project/refunds-are-synchronous.md", "", 1, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if len(h.Revisions) == 4 {
		if d := h.Revisions[1].BodyDiff; !slices.Equal(d, []string{"- The admin waits for the provider.", "+ Refunds are queued on RefundRequested."}) {
			t.Errorf("body diff = %q", d)
		}
		// Commits are dated by the Main clock, like updated_at.
		for i, want := range []time.Time{gitTestNow.Add(3 * time.Hour), gitTestNow.Add(2 * time.Hour), gitTestNow.Add(time.Hour)} {
			if got := h.Revisions[i].Date; !got.Equal(want) {
				t.Errorf("revision %d dated %s, want %s", i, got, want)
			}
		}
	}

	text := r.ok("history", id)
	for _, want := range []string{"Refunds run asynchronously (" + id + ")", "4 revisions, newest first",
		"why: gateway timeouts at 30 s", "importance 5 → 8", "tags +refunds", "moved: project/refunds-are-synchronous.md → preferences/refunds-are-synchronous.md",
		"- The admin waits for the provider."} {
		if !strings.Contains(text, want) {
			t.Errorf("history text lacks %q:\n%s", want, text)
		}
	}

	t.Run("deleted memory", func(t *testing.T) {
		r.tick(time.Hour)
		r.ok("forget", id, "--delete", "--reason", "merged elsewhere")
		var h historyJSON
		if err := json.Unmarshal([]byte(r.ok("history", id, "--json")), &h); err != nil {
			t.Fatal(err)
		}
		if len(h.Revisions) != 5 || h.Revisions[0].Kind != "deleted" || h.Revisions[0].Reason != "merged elsewhere" {
			t.Errorf("after delete: %d revisions, newest %+v", len(h.Revisions), h.Revisions[0])
		}
		if h.Title != "Refunds run asynchronously" {
			t.Errorf("title %q, want the last recorded one", h.Title)
		}
	})

	t.Run("unknown id", func(t *testing.T) {
		if code, _ := r.run("", "history", "01NOSUCHMEMORY0000000000000"); code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
	})
}

type whyOutput struct {
	Memory struct {
		ID, Title string
	}
	Supersedes []history.Replacement
	History    []struct{ Kind, Reason string }
	Rivals     []struct{ ID, Title string } `json:"possible_conflict"`
	InGit      bool                         `json:"in_git"`
}

// testWhyChain runs on the replayed sample (see TestSampleHistory).
func testWhyChain(t *testing.T, r *cliRepo) {
	var w whyOutput
	if err := json.Unmarshal([]byte(r.ok("why", "订单状态有哪些", "--json")), &w); err != nil {
		t.Fatal(err)
	}
	if w.Memory.ID != sampleRefundedRule {
		t.Fatalf("why picked %s %q, want the refunded rule %s", w.Memory.ID, w.Memory.Title, sampleRefundedRule)
	}
	if len(w.Supersedes) != 1 {
		t.Fatalf("chain %+v, want one replaced memory", w.Supersedes)
	}
	old := w.Supersedes[0]
	if old.ID != sampleOldOrderRule || old.Status != "superseded" || old.Title != "订单状态：unpaid / paid / cancelled" {
		t.Errorf("replaced %+v", old)
	}
	if old.Replaced == nil || !strings.Contains(old.Replaced.Reason, "线上退款上线") || old.Replaced.Client != "claude-code" ||
		!old.Replaced.Date.Equal(time.Date(2026, 9, 3, 6, 20, 12, 0, time.UTC)) {
		t.Errorf("replaced by commit %+v, want the 2026-09-03 06:20:12 commit of claude-code with its reason", old.Replaced)
	}
	if old.Marked == nil || !strings.Contains(old.Marked.Reason, "Marked superseded") ||
		!old.Marked.Date.Equal(time.Date(2026, 9, 3, 6, 21, 40, 0, time.UTC)) {
		t.Errorf("marked superseded by %+v, want the 06:21:40 commit", old.Marked)
	}
	if len(w.History) != 2 || w.History[0].Kind != "changed" || w.History[1].Kind != "added" {
		t.Errorf("history %+v, want changed then added", w.History)
	}
	golden(t, "why-order-status.txt", r.ok("why", "订单状态有哪些"))
}

// testWhySampleRivals runs on the replayed sample: the two API error rules
// are rivals (sample-vault/README.md).
func testWhySampleRivals(t *testing.T, r *cliRepo) {
	var w whyOutput
	if err := json.Unmarshal([]byte(r.ok("why", "API 错误 HTTP 状态码", "--json")), &w); err != nil {
		t.Fatal(err)
	}
	pair := []string{sampleAPI200Rule, sampleAPIHTTPRule}
	if !slices.Contains(pair, w.Memory.ID) {
		t.Fatalf("why picked %s %q, want one of the API error rules", w.Memory.ID, w.Memory.Title)
	}
	var rivals []string
	for _, x := range w.Rivals {
		rivals = append(rivals, x.ID)
	}
	other := pair[0]
	if other == w.Memory.ID {
		other = pair[1]
	}
	if !slices.Contains(rivals, other) {
		t.Errorf("rivals %v do not name the other API error rule %s (vault.Recall marks PossibleConflict; see markConflicts)", rivals, other)
	}
}

func TestWhyNamesConstructedRivals(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	a := r.addMemory("API errors use real HTTP status codes", "400, 404, 409, 500.", "--tags", "api")
	b := r.addMemory("API errors use HTTP 200 with an error code", "Always 200; code in the body.", "--tags", "api")
	out := r.ok("why", "API errors HTTP status")
	top := a
	if !strings.Contains(strings.SplitN(out, "\n", 2)[0], "real HTTP") {
		top = b
	}
	other := map[string]string{a: b, b: a}[top]
	if !strings.Contains(out, "⚠") || !strings.Contains(out, other) {
		t.Errorf("why does not name the rival %s:\n%s", other, out)
	}
	if !strings.Contains(out, "nothing: it supersedes no earlier memory") {
		t.Errorf("why invents a chain:\n%s", out)
	}
}

func TestWhyOutsideGit(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".memory")
	r := &cliRepo{t: t, dir: dir, now: gitTestNow, home: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(dir, "project"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "project", "deploy.md"), []byte("---\ntitle: Deploy with ops/deploy.sh\ncreated_at: 2026-01-01T00:00:00Z\n---\nBlue-green.\n"), 0o644)
	out := r.ok("why", "deploy")
	if !strings.Contains(out, "not in a git repository") || !strings.Contains(out, "Deploy with ops/deploy.sh") {
		t.Errorf("why outside git:\n%s", out)
	}
	if code, _ := r.run("", "why", "nothing matches this at all zzz"); code != 1 {
		t.Errorf("why without a match: exit %d, want 1", code)
	}
}

// sampleSupersession returns the sample's commit that added the refunded
// rule and the one that marked the old order rule superseded.
func sampleSupersession(t *testing.T, r *cliRepo) (added, marked string) {
	t.Helper()
	s := r.store()
	for _, c := range []struct {
		path string
		dst  *string
		idx  func(n int) int
	}{
		{".memory/project/订单状态机增加-refunded-状态.md", &added, func(n int) int { return n - 1 }},   // the oldest
		{".memory/project/订单状态-unpaid-paid-cancelled.md", &marked, func(int) int { return 0 }}, // the newest
	} {
		cs, err := s.History(t.Context(), c.path, gitstore.HistoryOptions{})
		if err != nil || len(cs) == 0 {
			t.Fatalf("history of %s: %v %v", c.path, cs, err)
		}
		*c.dst = cs[c.idx(len(cs))].Hash
	}
	return added, marked
}

// recallIDs runs recall --json and returns the result ids.
func recallIDs(t *testing.T, r *cliRepo, args ...string) []string {
	t.Helper()
	var res struct {
		Results []struct{ ID, Snippet string }
	}
	if err := json.Unmarshal([]byte(r.ok(append([]string{"recall", "--json"}, args...)...)), &res); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, x := range res.Results {
		ids = append(ids, x.ID)
	}
	return ids
}

// testRecallAsOf runs on the replayed sample; it commits an update.
func testRecallAsOf(t *testing.T, r *cliRepo) {
	added, _ := sampleSupersession(t, r)
	tests := []struct {
		name     string
		args     []string
		want     []string // must be among the results
		wantNot  []string // must not be
		stderrIs string
	}{
		{"plain recall sees the refunded rule", []string{"订单状态 refunded"}, []string{sampleRefundedRule}, []string{sampleOldOrderRule}, ""},
		{"before the refunded rule was added", []string{"订单状态 refunded", "--as-of", "2026-08-01"}, []string{sampleOldOrderRule}, []string{sampleRefundedRule}, "recorded at"},
		{"before anything was recorded", []string{"订单状态", "--as-of", "2026-01-01"}, nil, []string{sampleOldOrderRule, sampleRefundedRule}, "nothing was recorded"},
		{"at the commit before the supersession", []string{"订单状态", "--at", added + "~1"}, []string{sampleOldOrderRule}, []string{sampleRefundedRule}, "recorded at"},
		{"at HEAD", []string{"订单状态", "--at", "HEAD"}, []string{sampleRefundedRule}, []string{sampleOldOrderRule}, "recorded at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids := recallIDs(t, r, tt.args...)
			for _, id := range tt.want {
				if !slices.Contains(ids, id) {
					t.Errorf("results %v lack %s", ids, id)
				}
			}
			for _, id := range tt.wantNot {
				if slices.Contains(ids, id) {
					t.Errorf("results %v include %s", ids, id)
				}
			}
			if !strings.Contains(r.lastStderr, tt.stderrIs) {
				t.Errorf("stderr %q lacks %q", r.lastStderr, tt.stderrIs)
			}
		})
	}

	t.Run("record time, not only valid time", func(t *testing.T) {
		// The rule learns about chargebacks on 1 December; on 30 November
		// we did not know that yet, although the memory existed.
		r.now = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		r.ok("update", sampleRefundedRule, "--content", "Chargebacks also move an order to `refunded`.\n", "--reason", "chargebacks")
		if ids := recallIDs(t, r, "chargebacks"); !slices.Contains(ids, sampleRefundedRule) {
			t.Errorf("plain recall %v lacks the updated rule", ids)
		}
		if ids := recallIDs(t, r, "chargebacks", "--as-of", "2026-11-30T12:00:00Z"); slices.Contains(ids, sampleRefundedRule) {
			t.Errorf("recall --as-of 2026-11-30 %v finds text written on 1 December", ids)
		}
		if ids := recallIDs(t, r, "chargebacks", "--at", "HEAD~1"); slices.Contains(ids, sampleRefundedRule) {
			t.Errorf("recall --at HEAD~1 %v finds text of HEAD", ids)
		}
	})

	t.Run("the work tree is not touched", func(t *testing.T) {
		if out, ok := gitCLI(t, r.root, "status", "--porcelain"); ok && out != "" {
			t.Errorf("git status after as-of reads:\n%s", out)
		}
	})

	t.Run("unknown commit", func(t *testing.T) {
		if code, _ := r.run("", "recall", "x", "--at", "nosuchrev"); code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
	})
}

func TestRecallAsOfOutsideGitIsValidTimeOnly(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".memory")
	r := &cliRepo{t: t, dir: dir, now: gitTestNow, home: t.TempDir()}
	os.MkdirAll(filepath.Join(dir, "project"), 0o755)
	os.WriteFile(filepath.Join(dir, "project", "v2.md"), []byte("---\ntitle: Routes move to /v2\ncreated_at: 2026-11-01T00:00:00Z\neffective_at: 2026-12-15T00:00:00Z\n---\nAll public routes.\n"), 0o644)
	if ids := recallIDs(t, r, "routes v2"); len(ids) != 0 {
		t.Errorf("future rule recalled today: %v", ids)
	}
	if ids := recallIDs(t, r, "routes v2", "--as-of", "2026-12-20"); len(ids) != 1 {
		t.Errorf("recall --as-of 2026-12-20 = %v, want the rule", ids)
	}
	if ids := recallIDs(t, r, "routes v2", "--as-of", "2026-10-01", "--include-inactive"); len(ids) != 0 {
		t.Errorf("recall --as-of before it was written = %v, want nothing", ids)
	}
	if code, _ := r.run("", "recall", "routes", "--at", "HEAD"); code != 1 {
		t.Errorf("--at outside git: exit %d, want 1", code)
	}
}

// testDiffSample runs on the replayed sample; it commits changes at its end.
func testDiffSample(t *testing.T, r *cliRepo) {
	added, marked := sampleSupersession(t, r)
	base, head := added+"^", marked
	rng := base + ".." + head
	text := r.ok("diff", rng)
	md := r.ok("diff", rng, "--markdown")
	golden(t, "diff.txt", text)
	golden(t, "diff.md", md)
	for _, want := range []string{"### What the assistants learned in this branch", "| 🆕 added | **订单状态机增加 refunded 状态**",
		"| ⤵️ superseded | **订单状态：unpaid / paid / cancelled**", `by "订单状态机增加 refunded 状态"`} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}

	var j struct{ Changes []history.MemoryChange }
	if err := json.Unmarshal([]byte(r.ok("diff", rng, "--json")), &j); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, c := range j.Changes {
		kinds[c.ID] = c.Kind
	}
	if kinds[sampleRefundedRule] != history.KindAdded || kinds[sampleOldOrderRule] != history.KindSuperseded {
		t.Errorf("kinds %v", kinds)
	}

	t.Run("archived, changed and deleted", func(t *testing.T) {
		start, _ := r.head()
		r.tick(time.Hour)
		r.ok("forget", sampleAPI200Rule, "--reason", "v1 is going away")
		r.tick(time.Hour)
		r.ok("forget", "01KTQNVG84SZE65GGT73J028CM", "--delete", "--reason", "pre-refund history is in git")
		r.tick(time.Hour)
		r.ok("update", sampleRefundedRule, "--importance", "10", "--tags", "orders,refunds", "--reason", "core rule")
		var j struct{ Changes []history.MemoryChange }
		// BASE alone means BASE..HEAD.
		if err := json.Unmarshal([]byte(r.ok("diff", start, "--json")), &j); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, c := range j.Changes {
			got[c.ID] = c.Kind + ":" + clitext.ChangeDetails(c)
		}
		want := map[string]string{
			sampleAPI200Rule:   "archived:",
			sampleOldOrderRule: "deleted:",
			sampleRefundedRule: "changed:importance 9 → 10; tags −state-machine −订单状态",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("changes (-want +got):\n%s", diff)
		}
	})

	t.Run("bad ranges", func(t *testing.T) {
		// BASE...HEAD is accepted now (issue 12): it means BASE..HEAD.
		for _, arg := range []string{"..HEAD", "...HEAD", "HEAD....HEAD", "nosuchrev..HEAD", "nosuchrev...HEAD"} {
			if code, _ := r.run("", "diff", arg); code != 1 {
				t.Errorf("diff %s: exit %d, want 1", arg, code)
			}
		}
	})
}

func TestDoctor(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	r := newCLIRepo(t)
	id := r.addMemory("Redis is a cache", "Never the source of truth.")
	// The first write committed the vault's .gitattributes, but this clone
	// never ran init: the merge driver is not registered, doctor says so
	// and --fix registers it, without a commit.
	headBefore, _ := r.head()
	if code, out := r.run("", "doctor"); code != 1 || !strings.Contains(out, "problem  merge") || !strings.Contains(out, "does not register it") {
		t.Errorf("doctor on a vault whose clone lacks the merge driver: exit %d\n%s", code, out)
	}
	if out := r.ok("doctor", "--fix"); !strings.Contains(out, "fixed    merge     registered the merge driver") {
		t.Errorf("doctor --fix:\n%s", out)
	}
	if head, _ := r.head(); head != headBefore {
		t.Errorf("registering the merge driver moved HEAD from %s to %s", headBefore, head)
	}
	if out := r.ok("doctor"); !strings.Contains(out, "no problems") {
		t.Errorf("doctor on a clean vault:\n%s", out)
	}

	t.Run("journal left behind", func(t *testing.T) {
		// A process wrote a memory file and its journal, then died.
		rel := "project/left-behind.md"
		os.WriteFile(filepath.Join(r.dir, rel), []byte("---\nid: 01LEFTBEHIND0000000000000A\ntitle: Left behind\n---\nHalf-written.\n"), 0o644)
		msg := "memory(project): add \"Left behind\"\n\nMemory-Id: 01LEFTBEHIND0000000000000A\nMemory-Layer: project\nMemory-Client: claude-code\n"
		j, _ := json.Marshal(map[string]any{"message": msg, "paths": []string{rel}, "commit": true})
		os.WriteFile(filepath.Join(r.dir, ".memvault-journal.json"), j, 0o644)
		headBefore, _ := r.head()

		code, out := r.run("", "doctor")
		if code != 1 || !strings.Contains(out, "problem  journal") || !strings.Contains(out, "left-behind.md") {
			t.Errorf("doctor: exit %d\n%s", code, out)
		}
		if h, _ := r.head(); h != headBefore {
			t.Errorf("doctor without --fix committed")
		}
		code, out = r.run("", "doctor", "--fix")
		if code != 0 || !strings.Contains(out, "fixed    journal") {
			t.Errorf("doctor --fix: exit %d\n%s%s", code, out, r.lastStderr)
		}
		_, msgHead := r.head()
		if !strings.Contains(msgHead, "Memory-Recovered:") || !strings.HasPrefix(msgHead, `memory(project): add "Left behind"`) {
			t.Errorf("HEAD message %q", msgHead)
		}
		if got := r.changedPaths(); !slices.Equal(got, []string{".memory/" + rel}) {
			t.Errorf("recovery commit changed %v", got)
		}
		if _, err := os.Stat(filepath.Join(r.dir, ".memvault-journal.json")); err == nil {
			t.Error("journal still there")
		}
	})

	t.Run("hand edits", func(t *testing.T) {
		p := filepath.Join(r.dir, r.memory(id).Path)
		os.WriteFile(p, []byte(readFile(t, p)+"\nEdited in Obsidian.\n"), 0o644)
		broken := filepath.Join(r.dir, "project", "broken.md")
		os.WriteFile(broken, []byte("---\ntitle: [unclosed\n---\nbody\n"), 0o644)

		code, out := r.run("", "doctor", "--fix")
		if code != 1 {
			t.Errorf("doctor --fix with a broken file: exit %d, want 1\n%s", code, out)
		}
		if !strings.Contains(out, "fixed    files") || !strings.Contains(out, "broken.md") {
			t.Errorf("doctor --fix:\n%s", out)
		}
		_, msg := r.head()
		if cm := commitmsg.Parse(msg); cm.Body != doctor.HandEditReason || cm.Get(commitmsg.KeyID) != id {
			t.Errorf("hand-edit commit %q", msg)
		}
		var h historyJSON
		json.Unmarshal([]byte(r.ok("history", id, "--json")), &h)
		if len(h.Revisions) != 2 || h.Revisions[0].Reason != doctor.HandEditReason {
			t.Errorf("history does not show the hand edit: %+v", h.Revisions)
		}
		os.Remove(broken)
		if out := r.ok("doctor"); !strings.Contains(out, "no problems") {
			t.Errorf("doctor after the fix:\n%s", out)
		}
		if out, ok := gitCLI(t, r.root, "status", "--porcelain"); ok && out != "" {
			t.Errorf("git status after doctor --fix:\n%s", out)
		}
	})

	t.Run("operation in progress", func(t *testing.T) {
		s := r.store()
		head, _ := r.head()
		mh := filepath.Join(s.GitDir(), "MERGE_HEAD")
		os.WriteFile(mh, []byte(head+"\n"), 0o644)
		defer os.Remove(mh)
		code, out := r.run("", "doctor")
		if code != 1 || !strings.Contains(out, "a merge is in progress") {
			t.Errorf("doctor during a merge: exit %d\n%s", code, out)
		}
	})

	t.Run("outside git", func(t *testing.T) {
		o := &cliRepo{t: t, dir: filepath.Join(t.TempDir(), ".memory"), now: gitTestNow, home: t.TempDir()}
		if code, out := o.run("", "doctor"); code != 1 || !strings.Contains(out, "not in a git repository") {
			t.Errorf("doctor outside git: exit %d\n%s", code, out)
		}
	})
}
