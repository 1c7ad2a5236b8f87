package vault

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkSetRecall measures what the user vault adds to a recall: the
// second search and ranking both vaults' candidates on one pool.
func BenchmarkSetRecall(b *testing.B) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	open := func(n int, layer Layer, topic string) *Vault {
		v, err := Open(ctx, b.TempDir(), Options{Now: func() time.Time { return now }})
		if err != nil {
			b.Fatal(err)
		}
		for i := range n {
			_, err := v.Create(ctx, NewMemory{Layer: layer, Title: fmt.Sprintf("%s rule %d", topic, i),
				Content: fmt.Sprintf("When testing module %d run pytest -q; 部署模块 %d 用 ops/deploy.sh。", i, i)}, Author{})
			if err != nil {
				b.Fatal(err)
			}
		}
		return v
	}
	project := open(1000, Project, "Project")
	user := open(30, Preference, "Preference")
	for _, tc := range []struct {
		name    string
		members []Member
	}{
		{"project only", []Member{{Name: ProjectVault, Vault: project}}},
		{"project and user", []Member{{Name: ProjectVault, Vault: project}, {Name: UserVault, Vault: user}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cache := &SetCache{}
			q := Query{Text: "how do we run the tests 测试", Limit: 8}
			for b.Loop() {
				s := NewSet(tc.members...)
				s.Cache = cache
				if _, err := s.Recall(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
