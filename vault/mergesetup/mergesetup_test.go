package mergesetup

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/internal/vaulttest"
)

// fakeMergeDriver is a clone's merge driver set-up.
type fakeMergeDriver struct {
	attribute, registered bool
	registrations         int
}

func (f *fakeMergeDriver) MergeDriver(context.Context) (bool, bool, error) {
	return f.attribute, f.registered, nil
}

func (f *fakeMergeDriver) RegisterMergeDriver(context.Context) error {
	f.registered = true
	f.registrations++
	return nil
}

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		attribute, registered bool
		fix                   bool
		own                   string // a .gitattributes of someone's own, already there
		want                  Outcome
		wantParts             []string
		wantAttributes        bool // the vault's .gitattributes written and committed
		wantRegistrations     int
	}{
		{name: "set up", attribute: true, registered: true, want: OK, wantParts: []string{"memory files merge field by field"}},
		{name: "fresh clone", attribute: true, want: Problem, wantParts: []string{"the vault's .gitattributes sends memory files", "does not register it", "`memvault doctor --fix`"}},
		{name: "fresh clone fixed", attribute: true, fix: true, want: Fixed, wantParts: []string{"registered the merge driver in this clone's git config"}, wantRegistrations: 1},
		{name: "old vault", want: Note, wantParts: []string{"memory files merge as text", "doctor --fix` writes"}},
		{name: "old vault fixed", fix: true, want: Fixed, wantParts: []string{"committed .gitattributes in c0ffee and registered the merge driver"},
			wantAttributes: true, wantRegistrations: 1},
		{name: "someone's own file", fix: true, own: "*.txt text\n", want: Problem, wantParts: []string{"exists but does not send memory files", "*.md merge=memvault"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tt.own != "" {
				if err := os.WriteFile(filepath.Join(dir, vault.GitattributesName), []byte(tt.own), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c := &vaulttest.Committer{}
			md := &fakeMergeDriver{attribute: tt.attribute, registered: tt.registered}
			res := Check(t.Context(), Setup{Repo: md, Committer: c, Dir: dir, Fix: tt.fix})
			if res.Outcome != tt.want {
				t.Errorf("outcome %d (%s), want %d", res.Outcome, res.Detail, tt.want)
			}
			for _, p := range tt.wantParts {
				if !strings.Contains(res.Detail, p) {
					t.Errorf("detail %q lacks %q", res.Detail, p)
				}
			}
			got, err := os.ReadFile(filepath.Join(dir, vault.GitattributesName))
			if written := err == nil && string(got) == vault.GitattributesContent; written != tt.wantAttributes {
				t.Errorf(".gitattributes = %q, %v; want written: %v", got, err, tt.wantAttributes)
			}
			if md.registrations != tt.wantRegistrations {
				t.Errorf("%d registrations, want %d", md.registrations, tt.wantRegistrations)
			}
			if want := [][]string{{filepath.Join(dir, vault.GitattributesName)}}; tt.wantAttributes != slices.EqualFunc(c.Commits(), want, func(c vaulttest.Commit, w []string) bool { return slices.Equal(c.Paths, w) }) {
				t.Errorf("commits %v; want .gitattributes committed: %v", c.Commits(), tt.wantAttributes)
			}
		})
	}
}
