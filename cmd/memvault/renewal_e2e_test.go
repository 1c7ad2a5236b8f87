package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
)

// newTeamPair makes a bare origin and two clones with the merge driver:
// a inits the vault, writes what seed writes and pushes; b clones it.
func newTeamPair(t *testing.T, seed func(a *teamClone)) (a, b *teamClone) {
	t.Helper()
	origin := filepath.Join(t.TempDir(), "origin.git")
	(&mergeRepo{t: t, root: filepath.Dir(origin)}).git("init", "-q", "--bare", "--initial-branch=main", origin)
	a = newTeamClone(t, origin, "a")
	a.git.git("checkout", "-q", "-b", "main")
	a.memvault("init")
	seed(a)
	a.git.git("add", "-A")
	a.git.git("commit", "-q", "-m", "memvault init")
	a.git.git("push", "-q", "-u", "origin", "main")
	b = newTeamClone(t, origin, "b")
	b.memvault("doctor", "--fix")
	return a, b
}

// TestRenewalsAreNotConflicts is issue 24's finding 6: two people change
// different fields of one short-term memory a second apart, and both
// writes renew its expiry. `memvault sync` merges them with no conflict
// for a person: both fields, and the later renewal.
func TestRenewalsAreNotConflicts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs git")
	}
	var id string
	a, b := newTeamPair(t, func(a *teamClone) {
		id = a.add("The admin list is slow above 10k rows", "Seen while testing.\n", "--layer", "short-term", "--tags", "admin", "--reason", "observed")
	})
	a.write("update", id, "--tags", "admin,performance", "--reason", "tagged for search")
	a.git.git("push", "-q", "origin", "main")
	b.cli.now = a.cli.now.Add(time.Second - time.Hour) // b.write ticks an hour: a second after a
	b.write("update", id, "--importance", "8", "--reason", "it blocks support")
	ea, eb := a.get(id).ExpiresAt, b.get(id).ExpiresAt
	if !eb.After(ea) {
		t.Fatalf("the two renewals: a %s, b %s; want b's a second later", ea, eb)
	}

	if code, out := b.git.memvault("sync"); code != 0 {
		t.Errorf("sync: exit %d\n%s", code, out)
	}
	m := b.get(id)
	if len(m.Conflicted) != 0 || !m.ExpiresAt.Equal(eb) || m.Importance != 8 || !slices.Equal(m.Tags, []string{"admin", "performance"}) || m.Layer != vault.ShortTerm {
		t.Errorf("after sync: conflicted %v, expires %s (want %s, the later renewal), importance %d, tags %v, layer %s",
			m.Conflicted, m.ExpiresAt, eb, m.Importance, m.Tags, m.Layer)
	}
	if code, out := b.git.memvault("lint"); code != 0 {
		t.Errorf("lint after the sync: exit %d\n%s", code, out)
	}
}

// TestAWriteSettlesTheConflictRecord: after a sync leaves a conflict
// record (two titles), `memvault update` of the title decides it and the
// record goes; --resolve-conflict removes a record as it stands.
func TestAWriteSettlesTheConflictRecord(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs git")
	}
	var one, two string
	a, b := newTeamPair(t, func(a *teamClone) {
		one = a.add("Money is int64 cents", "Never float64.\n", "--reason", "ledger")
		two = a.add("Deploys need two approvals", "Two people approve.\n", "--reason", "audit")
	})
	a.write("update", one, "--title", "Money is integer cents", "--reason", "wording")
	a.write("update", two, "--content", "Two people approve, one of them an owner.\n", "--reason", "owners")
	a.git.git("push", "-q", "origin", "main")
	b.cli.now = a.cli.now
	b.write("update", one, "--title", "Money is int64 minor units", "--reason", "not only cents")
	b.write("update", two, "--content", "Two people approve, both on call.\n", "--reason", "on call")
	b.git.memvault("sync", "--no-push")
	for _, id := range []string{one, two} {
		if m := b.get(id); len(m.Conflicted) == 0 {
			t.Fatalf("the sync left no conflict record on %s: the test needs one", id)
		}
	}
	b.memvault("update", one, "--title", "Money is int64 minor units (cents for EUR)", "--reason", "agreed with A")
	b.memvault("update", two, "--resolve-conflict", "--reason", "ours holds")
	for _, id := range []string{one, two} {
		if m := b.get(id); len(m.Conflicted) != 0 {
			t.Errorf("%s is still conflicted after the write that settled it: %v", id, m.Conflicted)
		}
	}
	if code, out := b.git.memvault("lint"); code != 0 || strings.Contains(out, "unresolved merge conflict") {
		t.Errorf("lint after the settling writes: exit %d\n%s", code, out)
	}
}
