package history

import (
	"errors"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
)

// TestFindStory looks a memory up across a project and a user vault: the
// vault holding it tells its story, a deleted one is found in either
// vault's history, and what no vault knows is not found.
func TestFindStory(t *testing.T) {
	projectRepo, refunds := refundStory()
	_, project := projectRepo.checkout(t, t0)

	userRepo := &fakeRepo{}
	gone := mem{id: "01GONE", title: "Answer tersely", layer: "preference", body: "Short answers.\n"}
	userRepo.commit(t0, msg("add", gone, "said so", "cli"), map[string]string{"preferences/answer-tersely.md": gone.file()})
	userRepo.commit(t0.Add(time.Hour), msg("delete", gone, "changed their mind", "cli"), map[string]string{"preferences/answer-tersely.md": ""})
	_, user := userRepo.checkout(t, t0)
	local, err := user.Create(t.Context(), vault.NewMemory{Title: "Scratch note", Content: "Never committed."}, vault.Author{})
	if err != nil {
		t.Fatal(err)
	}

	both := []Holder{
		{Name: vault.ProjectVault, Vault: project, Teller: New(projectRepo, "project")},
		{Name: vault.UserVault, Vault: user, Teller: New(userRepo, "user")},
	}
	noGit := []Holder{{Name: vault.ProjectVault, Vault: project}, {Name: vault.UserVault, Vault: user}}
	tests := []struct {
		name      string
		id        string
		holders   []Holder
		wantVault string
		wantTitle string
		wantRevs  int
		wantCur   bool
		wantErr   error
	}{
		{name: "held by the project vault", id: refunds.id, holders: both, wantVault: vault.ProjectVault,
			wantTitle: "Refunds run asynchronously", wantRevs: 4, wantCur: true},
		{name: "deleted from the user vault, found in its history", id: gone.id, holders: both, wantVault: vault.UserVault,
			wantTitle: "Answer tersely", wantRevs: 2},
		{name: "held but never committed", id: local.Memory.ID, holders: both, wantVault: vault.UserVault,
			wantTitle: "Scratch note", wantCur: true},
		{name: "unknown", id: "01NOSUCH", holders: both, wantErr: vault.ErrNotFound},
		{name: "no history at all", id: refunds.id, holders: noGit, wantErr: ErrNoHistory},
		{name: "held by the vault without history", id: local.Memory.ID,
			holders: []Holder{both[0], {Name: vault.UserVault, Vault: user}}, wantErr: ErrNoHistory},
		{name: "deleted, only the other vault has history", id: gone.id, holders: []Holder{both[0], noGit[1]}, wantErr: vault.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, from, err := FindStory(t.Context(), tc.id, tc.holders)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if from != tc.wantVault || s.ID != tc.id || s.Title != tc.wantTitle || len(s.Revisions) != tc.wantRevs || (s.Current != nil) != tc.wantCur {
				t.Errorf("got %s: %s %q, %d revisions, current %v; want %s: %q, %d revisions, current %v",
					from, s.ID, s.Title, len(s.Revisions), s.Current != nil, tc.wantVault, tc.wantTitle, tc.wantRevs, tc.wantCur)
			}
		})
	}
}
