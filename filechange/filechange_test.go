package filechange

import "testing"

func TestKindString(t *testing.T) {
	tests := []struct {
		k    Kind
		want string
	}{
		{Added, "added"},
		{Modified, "modified"},
		{Deleted, "deleted"},
		{Renamed, "renamed"},
		{0, "Kind(0)"},
		{9, "Kind(9)"},
	}
	for _, tt := range tests {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(tt.k), got, tt.want)
		}
	}
}
