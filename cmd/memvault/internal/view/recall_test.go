package view

import (
	"encoding/json"
	"testing"

	"github.com/memvault/memvault/vault"
)

func TestRecallOf(t *testing.T) {
	t.Parallel()
	if b, err := json.Marshal(RecallOf(nil)); err != nil || string(b) != `{"results":[]}` {
		t.Errorf("RecallOf(nil) = %s, %v; want an empty list", b, err)
	}
	rs := []vault.SetResult{
		{Vault: "user", Result: vault.Result{Memory: &vault.Memory{ID: "b", Layer: vault.Preference}, State: "active"}},
		{Vault: "project", Result: vault.Result{Memory: &vault.Memory{ID: "a", Layer: vault.Project}, State: "archived"}},
	}
	got := RecallOf(rs).Results
	if len(got) != 2 || got[0].ID != "b" || got[0].Vault != "user" || got[1].ID != "a" || got[1].Status != "archived" {
		t.Errorf("RecallOf = %+v, want b (user) then a (archived), in order", got)
	}
}
