package staleness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memvault/memvault/vault"
)

// setChecker answers every memory it is asked about with one state, or
// fails; it counts its Close calls.
type setChecker struct {
	state  Staleness
	err    error
	asked  []string
	closed int
}

func (c *setChecker) Check(_ context.Context, _ func() []*vault.Memory, ms []*vault.Memory) (map[string]Staleness, error) {
	if c.err != nil {
		return nil, c.err
	}
	out := map[string]Staleness{}
	for _, m := range ms {
		c.asked = append(c.asked, m.ID)
		out[m.ID] = c.state
	}
	return out, nil
}

func (c *setChecker) Close() error { c.closed++; return nil }

func openTestVault(t *testing.T, files map[string]string) *vault.Vault {
	t.Helper()
	dir := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := vault.Open(t.Context(), dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestOfSet: only memories with refs are asked about, each of its own
// vault's checker; a vault without one (outside git) or whose checker
// fails has no staleness and fails nothing; every checker opened is
// closed.
func TestOfSet(t *testing.T) {
	t.Parallel()
	project := openTestVault(t, map[string]string{
		"project/a.md": "---\nid: 01A\ntitle: Money is cents\nrefs: [ledger.go]\n---\nx\n",
		"project/b.md": "---\nid: 01B\ntitle: No refs\n---\ny\n",
	})
	user := openTestVault(t, map[string]string{"preferences/c.md": "---\nid: 01C\ntitle: Tabs\nrefs: [.editorconfig]\n---\nz\n"})
	stale := Staleness{State: Stale, Reason: "ledger.go was deleted"}
	members := []vault.Member{{Name: vault.ProjectVault, Vault: project}, {Name: vault.UserVault, Vault: user}}
	var rs []vault.SetResult
	for _, mb := range members {
		for _, m := range mb.Vault.All() {
			rs = append(rs, vault.SetResult{Result: vault.Result{Memory: m}, Vault: mb.Name})
		}
	}
	tests := []struct {
		name      string
		checkers  map[*vault.Vault]*setChecker // absent: outside git
		want      []string
		wantAsked map[*vault.Vault][]string
	}{
		{name: "outside git", want: nil},
		{name: "project in git", checkers: map[*vault.Vault]*setChecker{project: {state: stale}},
			want: []string{"01A"}, wantAsked: map[*vault.Vault][]string{project: {"01A"}}},
		{name: "both in git", checkers: map[*vault.Vault]*setChecker{project: {state: stale}, user: {state: stale}},
			want: []string{"01A", "01C"}, wantAsked: map[*vault.Vault][]string{project: {"01A"}, user: {"01C"}}},
		{name: "a history that cannot be read", checkers: map[*vault.Vault]*setChecker{project: {err: errors.New("broken")}, user: {state: stale}},
			want: []string{"01C"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			open := func(_ context.Context, v *vault.Vault) (Checker, error) {
				if c, ok := tt.checkers[v]; ok {
					return c, nil
				}
				return nil, errors.New("not in git")
			}
			got := OfSet(t.Context(), open, members, rs)
			var ids []string
			for id, st := range got {
				ids = append(ids, id)
				if st != stale {
					t.Errorf("%s: %+v, want %+v", id, st, stale)
				}
			}
			slices.Sort(ids)
			if !slices.Equal(ids, tt.want) {
				t.Errorf("staleness of %v, want %v", ids, tt.want)
			}
			for v, c := range tt.checkers {
				if c.closed != 1 {
					t.Errorf("checker closed %d times, want 1", c.closed)
				}
				if want, ok := tt.wantAsked[v]; ok && !slices.Equal(c.asked, want) {
					t.Errorf("asked about %v, want %v", c.asked, want)
				}
			}
		})
	}
}
