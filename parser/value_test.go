package parser

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDocumentValue(t *testing.T) {
	file := "---\n" +
		"title: T\n" +
		"owner: ann\n" +
		"count: 3\n" +
		"ratio: 0.5\n" +
		"flag: true\n" +
		"when: 2026-10-01T09:00:00Z\n" +
		"list: [a, 2]\n" +
		"nested:\n  team: payments\n  1: one\n" +
		"anchor: &x [q]\n" +
		"ref: *x\n" +
		"owner: bob\n" +
		"---\nbody\n"
	doc, _ := Parse("a.md", []byte(file))
	if doc == nil {
		t.Fatal("Parse returned no document")
	}
	tests := []struct {
		key    string
		want   any
		wantOK bool
	}{
		{"owner", "ann", true}, // duplicate key: the first wins
		{"count", 3, true},
		{"ratio", 0.5, true},
		{"flag", true, true},
		{"when", time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC), true},
		{"list", []any{"a", 2}, true},
		{"nested", map[string]any{"team": "payments", "1": "one"}, true},
		{"anchor", []any{"q"}, true},
		{"ref", nil, false}, // aliases are refused, never expanded
		{"absent", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			got, ok := doc.Value(tt.key)
			if ok != tt.wantOK {
				t.Fatalf("Value(%q) ok = %v, want %v", tt.key, ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Value(%q) mismatch (-want +got):\n%s", tt.key, diff)
			}
		})
	}
	broken, _ := Parse("b.md", []byte("---\n: [\n---\n"))
	if broken != nil {
		if v, ok := broken.Value("title"); ok {
			t.Errorf("Value on broken front matter = %v, want not ok", v)
		}
	}
}
