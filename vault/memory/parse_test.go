package memory

import (
	"fmt"
	"slices"
	"testing"
)

func TestMergeTags(t *testing.T) {
	t.Parallel()
	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprintf("T%d", i%20) // each twice, past the map switch
	}
	wantMany := make([]string, 20)
	for i := range wantMany {
		wantMany[i] = fmt.Sprintf("T%d", i)
	}
	tests := []struct {
		name  string
		lists [][]string
		want  []string
	}{
		{"none", nil, nil},
		{"case and hash", [][]string{{"Go", "#go ", "redis"}, {"REDIS", "db"}}, []string{"Go", "redis", "db"}},
		{"blank", [][]string{{"", "  ", "#"}}, nil},
		{"many", [][]string{many, {"t3", "new"}}, append(wantMany, "new")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MergeTags(tt.lists...); !slices.Equal(got, tt.want) {
				t.Errorf("MergeTags = %q, want %q", got, tt.want)
			}
		})
	}
}
