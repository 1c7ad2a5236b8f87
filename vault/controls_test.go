package vault

import (
	"errors"
	"strings"
	"testing"
)

// TestWritesRefuseControlCharacters: a write's content, title and reason
// may not carry terminal controls (issue 27 finding 6: ESC and BEL came
// through MCP remember); the error names the field and where. Tabs, line
// feeds and CRLF line ends are text.
func TestWritesRefuseControlCharacters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                   string
		title, content, reason string
		want                   string // "" accepts
	}{
		{"plain text", "T", "a\tb\nc\r\nd", "why\nbecause", ""},
		{"ESC in content", "T", "line\nclear \x1b[2J", "", "content: the control character U+001B (ESC, which starts terminal escape sequences) at line 2, column 7"},
		{"BEL ending an OSC", "T", "\x1b]0;pwned\x07", "", "content: the control character U+001B"},
		{"BEL alone", "T", "ring\x07", "", "content: the control character U+0007 (BEL) at line 1, column 5"},
		{"lone CR", "T", "safe\rEVIL", "", "content: the control character U+000D (a carriage return not ending a line)"},
		{"C1 CSI", "T", "x \u009b2J", "", "content: the control character U+009B at line 1, column 3"},
		{"DEL", "T", "x\x7f", "", "content: the control character U+007F"},
		{"ESC in the reason", "T", "fine", "r \x1b]8;;http://x\x1b\\", "reason: the control character U+001B"},
		{"ESC in the title", "T \x1b[2J", "fine", "", "title: contains the control or bidi character U+001B"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, c := openRecorded(t, t.TempDir())
			_, err := v.Create(t.Context(), NewMemory{Title: tc.title, Content: tc.content}, Author{Reason: tc.reason})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrInvalid saying %q", err, tc.want)
			}
			if len(c.commits) != 0 {
				t.Error("a refused write committed")
			}
		})
	}
	t.Run("update", func(t *testing.T) {
		t.Parallel()
		v, _ := openRecorded(t, t.TempDir())
		m := mustCreate(t, v, NewMemory{Title: "T", Content: "fine"})
		bad := "now \x1b[2J"
		if _, err := v.Update(t.Context(), m.ID, m.Version, Patch{Content: &bad}, Author{Reason: "r"}); err == nil || !strings.Contains(err.Error(), "content: the control character U+001B") {
			t.Errorf("update with ESC in content: %v", err)
		}
		good := "now fine"
		if _, err := v.Update(t.Context(), m.ID, m.Version, Patch{Content: &good}, Author{Reason: "r\x07"}); err == nil || !strings.Contains(err.Error(), "reason: the control character U+0007") {
			t.Errorf("update with BEL in the reason: %v", err)
		}
	})
}
