package demo

import "testing"

func TestTruncateWidth(t *testing.T) {
	tests := []struct {
		in   string
		w    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven char", 10, "eleven ch…"},
		{"结算模块设计", 12, "结算模块设计"},
		{"结算模块设计", 11, "结算模块设…"},
		{"结算模块设计", 10, "结算模块…"},
		{"ab结算", 5, "ab结…"},
		{"ab结算", 4, "ab…"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := truncateWidth(tt.in, tt.w); got != tt.want {
				t.Errorf("truncateWidth(%q, %d) = %q, want %q", tt.in, tt.w, got, tt.want)
			}
		})
	}
}

func TestIndentLines(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		maxLines int
		want     string
	}{
		{"fits", "a\nb\n", 5, "  a\n  b\n"},
		{"cut", "a\nb\nc\nd", 2, "  a\n  b\n  … (2 more lines)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := indentLines(tt.in, "  ", tt.maxLines, 80); got != tt.want {
				t.Errorf("indentLines(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDigestOutline(t *testing.T) {
	in := "# Project memory\n\n## Preferences\n- a\n- b\n\n## Rules\n- the new rule\n- c\n"
	want := "# Project memory\n## Preferences\n  … 2 more\n## Rules\n- the new rule\n  … 1 more\n"
	if got := digestOutline(in, "new rule"); got != want {
		t.Errorf("digestOutline = %q, want %q", got, want)
	}
}

func TestShortenStrings(t *testing.T) {
	in := map[string]any{"query": "abcdefghij", "tags": []string{"abcdefghij", "ok"}, "limit": 3}
	got := compactJSON(shortenStrings(in, 5))
	want := `{"limit":3,"query":"abcd…","tags":["abcd…","ok"]}`
	if got != want {
		t.Errorf("shortenStrings = %s, want %s", got, want)
	}
}
