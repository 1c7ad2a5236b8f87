package docscheck

import (
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Problem is one link that leads nowhere.
type Problem struct {
	File string // the Markdown file holding the link, slash-separated
	Line int    // 1-based
	Link string // the link's target as written
	Why  string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: link %q: %s", p.File, p.Line, p.Link, p.Why)
}

// Link is a link target found in a Markdown file.
type Link struct {
	Line   int
	Target string
}

var (
	// inlineLink matches [text](target) and ![alt](target); the target
	// stops at whitespace (a title may follow) or the closing parenthesis.
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// refDef matches a reference definition: [label]: target.
	refDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)`)
	// codeSpan matches inline code, whose text is not Markdown.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
)

// Links returns the link targets of a Markdown document, outside fenced
// code blocks and code spans.
func Links(doc string) []Link {
	var out []Link
	for i, line := range proseLines(doc) {
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, Link{Line: i + 1, Target: m[1]})
		}
		if m := refDef.FindStringSubmatch(line); m != nil {
			out = append(out, Link{Line: i + 1, Target: m[1]})
		}
	}
	return out
}

// proseLines returns the lines of a Markdown document with fenced code
// blocks emptied and code spans removed: what is left is Markdown.
func proseLines(doc string) []string {
	lines := strings.Split(doc, "\n")
	code := inCode(lines)
	for i, line := range lines {
		if code[i] {
			lines[i] = ""
		} else {
			lines[i] = codeSpan.ReplaceAllString(line, "")
		}
	}
	return lines
}

// inCode reports, for each line, whether it is a code fence or inside a
// fenced code block. A fence closes with the same character, at least as
// many, and nothing after it.
func inCode(lines []string) []bool {
	code := make([]bool, len(lines))
	fence := ""
	for i, line := range lines {
		f := fenceOf(line)
		switch {
		case fence == "" && f != "":
			fence = f
		case fence != "" && strings.HasPrefix(f, fence) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), f[:1])) == "":
			fence = ""
		case fence == "":
			continue
		}
		code[i] = true
	}
	return code
}

// fenceOf returns the fence (``` or ~~~, and longer) a line opens or
// closes with, or "".
func fenceOf(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// Anchors returns the anchors GitHub gives a Markdown document's headings
// (ATX headings, "# Title"), in order.
func Anchors(doc string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	lines := strings.Split(doc, "\n")
	code := inCode(lines)
	for i, line := range lines {
		if code[i] {
			continue
		}
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) > 3 || !strings.HasPrefix(t, "#") {
			continue
		}
		level := len(t) - len(strings.TrimLeft(t, "#"))
		rest := t[level:]
		if level > 6 || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		s := Slug(headingText(rest))
		if n := seen[s]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			anchors[s] = true
		}
		seen[s]++
	}
	return anchors
}

var (
	closingHashes = regexp.MustCompile(`\s+#+\s*$`)
	linkText      = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// headingText is the text a heading renders: closing hashes, link
// targets, code-span backticks and emphasis stars dropped.
func headingText(s string) string {
	s = strings.TrimSpace(closingHashes.ReplaceAllString(" "+s, ""))
	s = linkText.ReplaceAllString(s, "$1")
	return strings.NewReplacer("`", "", "*", "").Replace(s)
}

// Slug is GitHub's anchor for a heading's text: lower case, every
// character but letters, digits, marks, '-' and '_' dropped, spaces made
// hyphens.
func Slug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Check reads each Markdown file of files (slash-separated paths in fsys)
// and returns the relative links among them that lead nowhere. Links with
// a scheme (https:, mailto:) are not followed, nor links that climb out
// of fsys.
func Check(fsys fs.FS, files []string) ([]Problem, error) {
	return check(fsys, files, func(file, text string) ([]Link, string) {
		return Links(text), file
	})
}

// check runs problemOf over the links find returns for each file, read
// as if written in the file find names beside them.
func check(fsys fs.FS, files []string, find func(file, text string) (links []Link, from string)) ([]Problem, error) {
	var problems []Problem
	anchors := anchorReader(fsys)
	for _, file := range files {
		b, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		links, from := find(file, string(b))
		for _, l := range links {
			why, err := problemOf(fsys, from, l.Target, anchors)
			if err != nil {
				return nil, err
			}
			if why != "" {
				problems = append(problems, Problem{File: file, Line: l.Line, Link: l.Target, Why: why})
			}
		}
	}
	return problems, nil
}

// anchorReader returns a function giving a Markdown file's anchors, each
// file read once.
func anchorReader(fsys fs.FS) func(string) (map[string]bool, error) {
	anchorsOf := map[string]map[string]bool{}
	return func(file string) (map[string]bool, error) {
		if a, ok := anchorsOf[file]; ok {
			return a, nil
		}
		b, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		anchorsOf[file] = Anchors(string(b))
		return anchorsOf[file], nil
	}
}

var scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// problemOf says what is wrong with one link of file, or "".
func problemOf(fsys fs.FS, file, target string, anchors func(string) (map[string]bool, error)) (string, error) {
	if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return "", nil
	}
	target, anchor, _ := strings.Cut(target, "#")
	if t, err := url.PathUnescape(target); err == nil {
		target = t
	}
	if a, err := url.PathUnescape(anchor); err == nil {
		anchor = a
	}
	dest := file
	if target != "" {
		if strings.HasPrefix(target, "/") {
			dest = path.Clean(strings.TrimPrefix(target, "/"))
		} else {
			dest = path.Join(path.Dir(file), target)
		}
		if dest == ".." || strings.HasPrefix(dest, "../") {
			return "", nil
		}
		if _, err := fs.Stat(fsys, dest); err != nil {
			return fmt.Sprintf("%s does not exist", dest), nil
		}
	}
	if anchor == "" || !strings.HasSuffix(dest, ".md") {
		return "", nil
	}
	a, err := anchors(dest)
	if err != nil {
		return "", err
	}
	if !a[strings.ToLower(anchor)] {
		return fmt.Sprintf("%s has no heading with anchor #%s", dest, anchor), nil
	}
	return "", nil
}

// docMention matches a path into the docs folder named in prose or a
// comment ("see docs/<name>.md"), not as a Markdown link; a longer path
// that merely ends so (../shared/docs/<name>.md) is not one. A section may
// follow: docs/<name>.md#<anchor>, or a heading's text in quotes,
// (docs/<name>.md, "<Heading>") or docs/<name>.md ("<Heading>").
var docMention = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])(docs/[A-Za-z0-9_.-]+\.md)(?:#([A-Za-z0-9_-]+)|,? \(?"([^"]+)")?`)

// Mentions returns the docs/*.md paths a text names, by line, with the
// anchor of the section named after one (a quoted heading becomes its
// slug). In a
// Markdown document, code blocks and spans are examples, not mentions.
func Mentions(text string, markdown bool) []Link {
	lines := strings.Split(text, "\n")
	if markdown {
		lines = proseLines(text)
	}
	// A heading's name may wrap onto the next line, so the lines are
	// joined by single spaces (a comment's "//" dropped), remembering
	// where each starts.
	var joined strings.Builder
	starts := make([]int, len(lines))
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if !markdown {
			line = strings.TrimSpace(strings.TrimPrefix(line, "//"))
		}
		if i > 0 {
			joined.WriteByte(' ')
		}
		starts[i] = joined.Len()
		joined.WriteString(line)
	}
	var out []Link
	j := joined.String()
	for _, m := range docMention.FindAllStringSubmatchIndex(j, -1) {
		target := j[m[2]:m[3]]
		switch {
		case m[4] >= 0:
			target += "#" + j[m[4]:m[5]]
		case m[6] >= 0:
			target += "#" + Slug(headingText(j[m[6]:m[7]]))
		}
		line, _ := slices.BinarySearch(starts, m[2]+1)
		out = append(out, Link{Line: line, Target: target})
	}
	return out
}

// CheckMentions returns the docs/*.md paths, and the sections named with
// them, that the files (README.md, docs, Go comments) name and fsys does
// not hold. Paths are taken from the root of fsys, as the project's prose
// writes them.
func CheckMentions(fsys fs.FS, files []string) ([]Problem, error) {
	return check(fsys, files, func(file, text string) ([]Link, string) {
		// From the root: as if the mention were a link in a file there.
		return Mentions(text, strings.HasSuffix(file, ".md")), "README.md"
	})
}
