package staleness

import (
	"path"
	"regexp"
	"strings"
)

// The symbol heuristic. A "path#Name" ref follows the block that defines
// Name in that file, found with one regular expression per family of
// languages, not a parser:
//
//   - Go: "func Name", "func (r T) Name", "type Name", "var Name",
//     "const Name" at the start of a line; "T.Name" is a method of T.
//   - Python: "def Name" or "class Name", any indentation.
//   - everything else (TypeScript, JavaScript, Rust, Java, C#, ...): a line
//     with a definition keyword (function, class, interface, type, enum,
//     const, let, var, fn, struct, trait, impl, def) followed by Name.
//
// For "A.B" the definition of B is looked for after the line that defines
// A (a method inside a class), except in Go, where the receiver says it.
// The block runs from the defining line to its matching closing brace
// (braces counted naively, ignoring strings and comments), or, in Python,
// to the last following line indented deeper. A change counts for the
// symbol when the block's text differs before and after it, so edits
// elsewhere in the file, and moves that leave the block as it was, do not.

// defKeywords are the definition keywords of the generic rule.
const defKeywords = `(?:function\*?|class|interface|type|enum|const|let|var|fn|struct|trait|impl|def|module|namespace)`

// definition finds the lines [start, end) of the block defining symbol in
// a file named name; ok is false when there is none.
func definition(name string, src []byte, symbol string) (start, end int, ok bool) {
	lines := strings.Split(string(src), "\n")
	ext := path.Ext(name)
	parts := strings.Split(symbol, ".")
	last := regexp.QuoteMeta(parts[len(parts)-1])
	var re *regexp.Regexp
	from := 0
	switch {
	case ext == ".go" && len(parts) == 2:
		re = regexp.MustCompile(`^func\s*\([^)]*\b` + regexp.QuoteMeta(parts[0]) + `(?:\[[^\]]*\])?\)\s*` + last + `\b`)
	case ext == ".go":
		re = regexp.MustCompile(`^(?:func|type|var|const)\s+` + last + `\b`)
	default:
		if len(parts) > 1 {
			outer, oend, found := definition(name, src, strings.Join(parts[:len(parts)-1], "."))
			if !found {
				return 0, 0, false
			}
			lines, from = lines[:oend], outer+1
		}
		if ext == ".py" || ext == ".pyi" {
			re = regexp.MustCompile(`^\s*(?:async\s+)?(?:def|class)\s+` + last + `\b`)
		} else {
			re = regexp.MustCompile(`^\s*(?:(?:export|default|declare|public|private|protected|static|async|abstract|pub(?:\([a-z]+\))?|unsafe)\s+)*` + defKeywords + `\s+` + last + `\b`)
		}
	}
	for i := from; i < len(lines); i++ {
		if re.MatchString(lines[i]) {
			if ext == ".py" || ext == ".pyi" {
				return i, indentEnd(lines, i), true
			}
			return i, braceEnd(lines, i), true
		}
	}
	return 0, 0, false
}

// braceEnd returns the line after the brace closing the block opened at
// or after line i; a definition with no brace on its line (and not
// continued) is one line long.
func braceEnd(lines []string, i int) int {
	depth, opened := 0, false
	for j := i; j < len(lines); j++ {
		for _, c := range lines[j] {
			switch c {
			case '{':
				depth++
				opened = true
			case '}':
				depth--
			}
		}
		if opened && depth <= 0 {
			return j + 1
		}
		if !opened {
			t := strings.TrimSpace(lines[j])
			continued := strings.HasSuffix(t, "(") || strings.HasSuffix(t, ",") || strings.HasSuffix(t, "=")
			if !continued || j-i > 50 {
				return j + 1
			}
		}
	}
	return len(lines)
}

// indentEnd returns the line after the last line indented deeper than
// line i (blank lines inside the block included).
func indentEnd(lines []string, i int) int {
	ind := len(lines[i]) - len(strings.TrimLeft(lines[i], " \t"))
	end := i + 1
	for j := i + 1; j < len(lines); j++ {
		t := strings.TrimLeft(lines[j], " \t")
		if t == "" {
			continue
		}
		if len(lines[j])-len(t) <= ind {
			break
		}
		end = j + 1
	}
	return end
}

// block returns the text of symbol's definition block, and whether the
// file defines it.
func block(name string, src []byte, symbol string) (string, bool) {
	s, e, ok := definition(name, src, symbol)
	if !ok {
		return "", false
	}
	lines := strings.Split(string(src), "\n")
	return strings.Join(lines[s:e], "\n"), true
}

// symbolChanged reports whether the definition of symbol differs between
// two versions of the file name (nil: the file is absent).
func symbolChanged(name string, old, new []byte, symbol string) bool {
	a, okA := block(name, old, symbol)
	b, okB := block(name, new, symbol)
	return okA != okB || a != b
}
