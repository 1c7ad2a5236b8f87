package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
)

// BenchmarkRecallVaults measures what the user vault adds to a recall:
// the second search and ranking both vaults' candidates on one pool.
func BenchmarkRecallVaults(b *testing.B) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	open := func(n int, layer vault.Layer, topic string) *vault.Vault {
		v, err := vault.Open(ctx, b.TempDir(), vault.Options{Now: func() time.Time { return now }})
		if err != nil {
			b.Fatal(err)
		}
		for i := range n {
			_, err := v.Create(ctx, vault.NewMemory{Layer: layer, Title: fmt.Sprintf("%s rule %d", topic, i),
				Content: fmt.Sprintf("When testing module %d run pytest -q; 部署模块 %d 用 ops/deploy.sh。", i, i)}, vault.Author{})
			if err != nil {
				b.Fatal(err)
			}
		}
		return v
	}
	project := open(1000, vault.Project, "Project")
	user := open(30, vault.Preference, "Preference")
	logger := testTools(project, nil).logger
	pslot := &vaultSlot{name: projectScope, loader: loadedVault(project), logger: logger}
	uslot := &vaultSlot{name: userScope, loader: loadedVault(user), logger: logger}
	for _, tc := range []struct {
		name string
		vs   *openVaults
	}{
		{"project only", &openVaults{project: project, pslot: pslot, pool: &rankPool{}, sup: &supersedeIndex{}}},
		{"project and user", &openVaults{project: project, pslot: pslot, user: user, uslot: uslot, pool: &rankPool{}, sup: &supersedeIndex{}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			q := vault.Query{Text: "how do we run the tests 测试", Limit: 8}
			for b.Loop() {
				if _, err := recallVaults(ctx, tc.vs, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
