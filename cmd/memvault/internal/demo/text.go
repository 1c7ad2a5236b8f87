package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The transcript is for people in a terminal: long answers are cut to a
// few lines, wide lines to the terminal's width, counting Chinese
// characters as two columns.

// digestOutline keeps the digest's headings and the entries that mention
// want, and counts the entries left out under each heading.
func digestOutline(text, want string) string {
	var b strings.Builder
	skipped := 0
	flush := func() {
		if skipped > 0 {
			fmt.Fprintf(&b, "  … %d more\n", skipped)
			skipped = 0
		}
	}
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "#"):
			flush()
			b.WriteString(l + "\n")
		case strings.Contains(l, want):
			flush()
			b.WriteString(l + "\n")
		case strings.TrimSpace(l) != "":
			skipped++
		}
	}
	flush()
	return b.String()
}

// shortenStrings returns v with every string longer than n characters
// cut, for display: a remember request's content is long, and the
// transcript needs only its start. v goes through JSON, so the result
// shows exactly the fields that are sent.
func shortenStrings(v any, n int) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var x any
	if err := json.Unmarshal(raw, &x); err != nil {
		return v
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case string:
			return truncateRunes(t, n)
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		case map[string]any:
			for k := range t {
				t[k] = walk(t[k])
			}
		}
		return x
	}
	return walk(x)
}

// compactJSON renders v on one line without escaping <, > and & (the
// transcript is for people).
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return truncateRunes(strings.TrimSpace(b.String()), 400)
}

// indentLines prefixes every line of s, keeping at most maxLines lines of
// at most maxWidth columns each, and says how much was left out.
func indentLines(s, prefix string, maxLines, maxWidth int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == maxLines {
			fmt.Fprintf(&b, "%s… (%d more lines)\n", prefix, len(lines)-i)
			break
		}
		b.WriteString(prefix + truncateWidth(l, maxWidth) + "\n")
	}
	return b.String()
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// truncateWidth cuts s to at most w terminal columns, counting the wide
// characters of Chinese, Japanese and Korean as two.
func truncateWidth(s string, w int) string {
	used := 0
	for i, r := range s {
		cw := runeWidth(r)
		if used+cw > w-1 {
			// Cut only if what is left does not fit either.
			if used+runesWidth(s[i:]) <= w {
				return s
			}
			return s[:i] + "…"
		}
		used += cw
	}
	return s
}

func runesWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// runeWidth approximates East Asian Width: the CJK blocks and full-width
// forms take two columns, everything else one.
func runeWidth(r rune) int {
	switch {
	case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF, r >= 0xAC00 && r <= 0xD7A3,
		r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F, r >= 0xFF00 && r <= 0xFF60,
		r >= 0xFFE0 && r <= 0xFFE6, r >= 0x20000 && r <= 0x3FFFD:
		return 2
	}
	return 1
}

// firstSentence is the start of a tool description, for the tool list.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return truncateRunes(s, 90)
}

// shortHash abbreviates a commit id for people.
func shortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}

// oneLine joins a multi-line text into one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
