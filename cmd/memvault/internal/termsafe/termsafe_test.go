package termsafe

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text and Chinese", "结算模块设计 (01KY4J)\n\tdone", "结算模块设计 (01KY4J)\n\tdone"},
		{"clear screen", "a\x1b[2Jb\x1b[H", "ab"},
		{"colour", "\x1b[1;31mred\x1b[0m", "red"},
		{"window title ended by BEL", "x\x1b]0;pwned\x07y", "xy"},
		{"OSC 8 hyperlink ended by ST", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"carriage return overwrite", "safe\rEVIL", "safeEVIL"},
		{"bell, backspace, NUL, DEL", "a\x07b\x08c\x00d\x7fe", "abcde"},
		{"C1 CSI and NEL", "a\u009b2Jb\u0085c", "a2Jbc"},
		{"two-byte escape", "a\x1bcb", "ab"},
		{"Latin-1 letters kept", "café ¢ Â", "café ¢ Â"},
		{"unterminated OSC swallows the rest", "a\x1b]0;title", "a"},
		{"ESC before a Chinese character", "a\x1b结b", "a结b"},
		{"CSI cut by a Chinese character", "a\x1b[3结b", "a结b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSplitWrites checks that a sequence split across writes is removed
// whole: the filter keeps its state between calls.
func TestSplitWrites(t *testing.T) {
	in := "title\x1b]0;pwned\x07 and \x1b[2J, C1 \u009b, ¢ ok\n"
	want := String(in)
	for cut := 0; cut <= len(in); cut++ {
		var b bytes.Buffer
		w := New(&b)
		w.Write([]byte(in[:cut]))
		w.Write([]byte(in[cut:]))
		if b.String() != want {
			t.Fatalf("split at %d: %q, want %q", cut, b.String(), want)
		}
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "\x1b[31mx", "\x1b]0;t\x07", "a\r\nb", "结算", "\u009b", "\xc2", "¢\x1b", "\x1b结", "\x1b[1结"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := String(s)
		if strings.ContainsAny(got, "\x1b\r\x07\x00\x7f") {
			t.Fatalf("String(%q) = %q keeps a control character", s, got)
		}
		for _, r := range got {
			if r >= 0x80 && r <= 0x9f {
				t.Fatalf("String(%q) = %q keeps C1 %U", s, got, r)
			}
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("String(%q) = %q: valid UTF-8 in, invalid out", s, got)
		}
	})
}
