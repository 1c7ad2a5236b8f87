package transfer

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// graph1000 is a memory.jsonl of 1,000 bilingual entities in a chain.
func graph1000() []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for i := range 1000 {
		_ = enc.Encode(map[string]any{"type": "entity", "name": fmt.Sprintf("service-%04d", i), "entityType": "service",
			"observations": []string{fmt.Sprintf("Service %d owns region %d", i, i%7), fmt.Sprintf("服务 %d 负责第 %d 区的订单", i, i%7)}})
	}
	for i := range 999 {
		_ = enc.Encode(map[string]any{"type": "relation", "from": fmt.Sprintf("service-%04d", i), "to": fmt.Sprintf("service-%04d", i+1), "relationType": "calls"})
	}
	return []byte(b.String())
}

// BenchmarkParseMCP parses a 1,000-entity graph and runs the secret guard
// over every memory: the part of an import before the vault.
func BenchmarkParseMCP(b *testing.B) {
	data := graph1000()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		items, probs := ParseMCP("memory.jsonl", data, MCPOptions{})
		if len(items) != 1000 || len(probs) != 0 {
			b.Fatalf("%d items, %v", len(items), probs)
		}
		for _, it := range items {
			if p := guard(it); p != nil {
				b.Fatal(p)
			}
		}
	}
	b.ReportMetric(1000*float64(b.N)/b.Elapsed().Seconds(), "memories/s")
}
