package memory

import "testing"

func TestIsETag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"2-0123456789ab", true},
		{"12-abcdefabcdef", true},
		{"2", false},
		{"0-0123456789ab", false},
		{"2-0123456789a", false},
		{"2-0123456789AB", false},
		{"x-0123456789ab", false},
		{"", false},
	} {
		if got := IsETag(tc.in); got != tc.want {
			t.Errorf("IsETag(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
