package parser

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// fastBody walks src into w the way parseBody's goldmark walk would, for
// bodies written only in the plain Markdown most memories use: ATX
// headings, paragraphs, "- " and "1. " list items, fenced code blocks
// opened and closed by a bare "```" line, single-backtick code spans,
// simple *emphasis* and **strong**, [text](url) links and [[wiki links]].
// It reports false, leaving w in an unspecified state, at the first thing
// it is not sure about (any other syntax, indentation, trailing blanks,
// tabs, CR, escapes, entities, emphasis it cannot match on sight); the
// caller then starts over with goldmark. goldmark stays the reference:
// TestFastBodyMatches and FuzzFastBody check that whatever this accepts,
// goldmark walks to the same Body.
//
// How the accepted subset maps to goldmark's tree: a paragraph or a list
// item's text is its lines joined by a space (soft line breaks); a line
// that is not a heading, an item or a fence continues the open paragraph
// or item (lazy continuation); headings, "- " items, "1. " items and
// fences interrupt paragraphs (an ordered item numbered otherwise only
// continues an ordered list); a blank line closes whatever is open.
func fastBody(src []byte, w *bodyWalker) bool {
	const (
		none = iota
		para
		bullet
		ordered
	)
	open := none // what is collecting lines
	mark := 0    // its startBlock mark
	for len(src) > 0 {
		var line []byte
		line, src = nextLine(src)
		if len(line) == 0 {
			if open != none {
				w.endBlock(mark)
				open = none
			}
			continue
		}
		if c := line[len(line)-1]; c == ' ' || c == '\t' {
			// Trailing blanks are trimmed or make hard line breaks.
			return false
		}
		switch c := line[0]; {
		case c == '#' && (len(line) == 1 || line[1] == ' ' || line[1] == '#' || line[1] == '\t'):
			level := 0
			for level < len(line) && line[level] == '#' {
				level++
			}
			// One space, then text that does not end in a closing
			// sequence: anything else has goldmark trim or reinterpret.
			if level > 6 || level+1 >= len(line) || line[level] != ' ' ||
				line[level+1] == ' ' || line[len(line)-1] == '#' {
				return false
			}
			if open != none {
				w.endBlock(mark)
				open = none
			}
			m := w.startBlock()
			if !fastInline(line[level+1:], w) {
				return false
			}
			h := w.endBlock(m)
			if level == 1 && !w.seenH1 {
				w.seenH1 = true
				w.b.Heading = string(h)
			}
		case c == '-':
			if len(line) < 3 || line[1] != ' ' || !safeStart(line[2:]) {
				return false
			}
			if open != none {
				w.endBlock(mark)
			}
			mark, open = w.startBlock(), bullet
			if !fastInline(line[2:], w) {
				return false
			}
		case c == '`' && bytes.HasPrefix(line, fence):
			if open != none {
				w.endBlock(mark)
				open = none
			}
			var ok bool
			if src, ok = fastFence(line[len(fence):], src, w); !ok {
				return false
			}
		case '0' <= c && c <= '9' && orderedItem(line) > 0:
			n := orderedItem(line)
			// Only "1." starts a list that interrupts a paragraph; any
			// number continues an ordered list.
			if (open == para || open == bullet) && string(line[:n]) != "1. " {
				return false
			}
			if open != none {
				w.endBlock(mark)
			}
			mark, open = w.startBlock(), ordered
			if !fastInline(line[n:], w) {
				return false
			}
		default:
			if !safeStart(line) {
				return false
			}
			if open != none {
				// A soft line break, as goldmark's walk renders it.
				w.text = append(w.text, ' ')
				w.scan = append(w.scan, ' ')
			} else {
				mark, open = w.startBlock(), para
			}
			if !fastInline(line, w) {
				return false
			}
		}
	}
	if open != none {
		w.endBlock(mark)
	}
	return true
}

var fence = []byte("```")

func nextLine(src []byte) (line, rest []byte) {
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		return src[:i], src[i+1:]
	}
	return src, nil
}

// fastFence walks a fenced code block whose opening "```" line ended in
// info and whose lines follow in src, and returns what follows its closing
// line. It reports false unless info is a plain word (a language name)
// and the block is closed by a bare "```" line, with no line in between
// that could be a fence of its own or holds a CR.
func fastFence(info, src []byte, w *bodyWalker) ([]byte, bool) {
	for _, c := range info {
		if !isASCIIAlnum(c) && c != '-' && c != '+' && c != '_' && c != '.' {
			return nil, false
		}
	}
	mark := w.startBlock()
	for i := 0; len(src) > 0; i++ {
		var line []byte
		line, src = nextLine(src)
		if bytes.IndexByte(line, '\r') >= 0 {
			return nil, false
		}
		if t := bytes.TrimLeft(line, " \t"); bytes.HasPrefix(t, fence) || bytes.HasPrefix(t, []byte("~~~")) {
			if string(line) != "```" {
				return nil, false
			}
			// As goldmark's walk: lines joined by newlines, no separator
			// for a block without text.
			if mark > 0 && len(w.text) == mark+1 {
				w.text = w.text[:mark]
			}
			return src, true
		}
		if i > 0 {
			w.text = append(w.text, '\n')
		}
		w.text = append(w.text, line...)
	}
	return nil, false // unclosed: goldmark runs it to the end
}

// orderedItem returns the length of the "N. " marker that opens line as an
// ordered list item with content a paragraph may start with, or 0.
func orderedItem(line []byte) int {
	i := 0
	for i < len(line) && i < 9 && '0' <= line[i] && line[i] <= '9' {
		i++
	}
	if i == 0 || i+2 >= len(line) || line[i] != '.' || line[i+1] != ' ' || !safeStart(line[i+2:]) {
		return 0
	}
	return i + 2
}

// safeStart reports whether a line (or a list item's content) starting
// with s is a plain paragraph line to CommonMark, whatever came before it:
// not a block marker of any kind, not indented.
func safeStart(s []byte) bool {
	switch c := s[0]; {
	case c == ' ' || c == '\t' || c == '-' || c == '+' || c == '>' ||
		c == '=' || c == '~' || c == '<':
		return false
	case c == '*' || c == '_':
		// "* " is an item and "***" a rule; "**a**" and "_a_" are text
		// if fastInline can match them.
		return len(s) > 1 && s[1] != ' ' && s[1] != '\t'
	case c == '#':
		// "#tag" is text; "# x", "##" and a lone "#" are headings.
		return len(s) > 1 && s[1] != ' ' && s[1] != '\t' && s[1] != '#'
	case c == '`':
		return len(s) > 1 && s[1] != '`' // "```" opens a fence
	case '0' <= c && c <= '9':
		// "1. ", "1)" and the like open an ordered list; "1.5" does not.
		i := 1
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i < len(s) && (s[i] == '.' || s[i] == ')') {
			return i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\t'
		}
		return true
	}
	return true
}

// fastInline appends the text of one line of inline content to w (code
// spans as their content in the text, as a blank in the #tag scan; links
// and wiki links as goldmark's walk renders them), or reports false for
// anything but plain text, simple code spans, emphasis, links and wiki
// links.
func fastInline(s []byte, w *bodyWalker) bool {
	start := 0
	for i := 0; i < len(s); i++ {
		if !inlineSpecial[s[i]] {
			continue
		}
		switch s[i] {
		case '\\', '&', ']', '\t', '\r':
			return false
		case '<':
			// "< 0.1 ms" is text: raw HTML and autolinks need a
			// letter, '/', '!' or '?' right after the '<'.
			if i+1 == len(s) || s[i+1] != ' ' {
				return false
			}
		case '_', '*':
			// Between two ASCII letters or digits '_' can neither
			// open nor close emphasis.
			if s[i] == '_' && i > 0 && i+1 < len(s) && isASCIIAlnum(s[i-1]) && isASCIIAlnum(s[i+1]) {
				continue
			}
			n, content := simpleEmphasis(s, i)
			if n == 0 {
				return false
			}
			w.text = append(w.text, s[start:i]...)
			w.scan = append(w.scan, s[start:i]...)
			// Plain text and code spans, which fastInline takes.
			if !fastInline(content, w) {
				return false
			}
			i += n - 1
			start = i + 1
		case '!':
			if i+1 == len(s) || s[i+1] != '[' {
				continue
			}
			// "![[embed]]" is a wiki link; "![alt](src)" an image.
			n := wikiLinkAt(s, i+1, w, s[start:i])
			if n == 0 {
				return false
			}
			i += n
			start = i + 1
		case '[':
			n := wikiLinkAt(s, i, w, s[start:i])
			if n == 0 {
				n = linkAt(s, i, w, s[start:i])
			}
			if n == 0 {
				return false
			}
			i += n - 1
			start = i + 1
		case '`':
			// A single backtick, content with no backtick and no blank
			// at either end (CommonMark strips one), a single backtick.
			j := bytes.IndexByte(s[i+1:], '`')
			if j <= 0 {
				return false
			}
			code := s[i+1 : i+1+j]
			end := i + 1 + j // the closing backtick
			if code[0] == ' ' || code[len(code)-1] == ' ' || end+1 < len(s) && s[end+1] == '`' ||
				bytes.IndexByte(code, '\r') >= 0 {
				return false
			}
			w.text = append(w.text, s[start:i]...)
			w.scan = append(w.scan, s[start:i]...)
			w.text = append(w.text, code...)
			w.scan = append(w.scan, ' ')
			i = end
			start = end + 1
		}
	}
	w.text = append(w.text, s[start:]...)
	w.scan = append(w.scan, s[start:]...)
	return true
}

// inlineSpecial marks the bytes fastInline has to look at.
var inlineSpecial = [256]bool{'\\': true, '&': true, '<': true, '*': true, '[': true, ']': true,
	'\t': true, '\r': true, '_': true, '`': true, '!': true}

// plainSpan reports whether s is text goldmark takes as it is inside
// emphasis or a link: none of the bytes fastInline looks at (but '!'),
// no blank at either end.
func plainSpan(s []byte) bool {
	if len(s) == 0 || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for _, c := range s {
		if inlineSpecial[c] && c != '!' {
			return false
		}
	}
	return true
}

// simpleEmphasis matches, at s[i], a run of one or two '*' or '_' that
// opens emphasis closed by the next run of the same byte outside code
// spans, with content of plain text and simple code spans, and where
// CommonMark's flanking rules leave no doubt: the content starts and ends
// with a letter or digit, or with punctuation next to a blank, the line's
// edge or punctuation; what is outside is a blank, the line's edge, ASCII
// punctuation that cannot itself be markup, non-ASCII punctuation or (for
// '*' only, which may open and close inside a word) a letter or digit. It
// returns the length of the whole span and the content, or 0.
func simpleEmphasis(s []byte, i int) (int, []byte) {
	c := s[i]
	n := 1
	if i+1 < len(s) && s[i+1] == c {
		n = 2
	}
	if i+n < len(s) && s[i+n] == c {
		return 0, nil
	}
	j := i + n
	for ; j < len(s) && s[j] != c; j++ {
		switch {
		case s[j] == '`':
			// Code spans bind tighter than emphasis.
			if j = codeSpanEnd(s, j); j < 0 {
				return 0, nil
			}
		case inlineSpecial[s[j]] && s[j] != '!':
			return 0, nil
		}
	}
	content := s[i+n : min(j, len(s))]
	end := j + n // after the closing run
	if j == len(s) || len(content) == 0 || content[0] == ' ' || content[len(content)-1] == ' ' ||
		end > len(s) || (n == 2 && s[end-1] != c) || end < len(s) && s[end] == c {
		return 0, nil
	}
	first, _ := utf8.DecodeRune(content)
	last, _ := utf8.DecodeLastRune(content)
	before, after := rune(-1), rune(-1) // -1: the line's start or end
	if i > 0 {
		before, _ = utf8.DecodeLastRune(s[:i])
	}
	if end < len(s) {
		after, _ = utf8.DecodeRune(s[end:])
	}
	if !emphasisEdge(c, first, before) || !emphasisEdge(c, last, after) {
		return 0, nil
	}
	return end - i, content
}

// codeSpanEnd returns the index of the backtick closing the simple code
// span opened at s[i] (as fastInline takes them), or -1.
func codeSpanEnd(s []byte, i int) int {
	j := bytes.IndexByte(s[i+1:], '`')
	if j <= 0 {
		return -1
	}
	code := s[i+1 : i+1+j]
	end := i + 1 + j
	if code[0] == ' ' || code[len(code)-1] == ' ' || end+1 < len(s) && s[end+1] == '`' ||
		bytes.IndexByte(code, '\r') >= 0 {
		return -1
	}
	return end
}

// emphasisEdge reports whether an emphasis run of c with inner the content
// rune next to it and outer the rune on its other side (-1 for none) is
// surely an opener or closer of the pair (it may be both, which is fine
// for runs of one or two that pair with the next run).
func emphasisEdge(c byte, inner, outer rune) bool {
	outerPunct := isSafePunct(outer) || outer > utf8.RuneSelf && isPunctRune(outer)
	if outer == -1 || outer == ' ' || outerPunct {
		// goldmark's punctuation: Unicode punctuation and symbols.
		return wordRune(inner) || isPunctRune(inner)
	}
	return c == '*' && wordRune(inner) && wordRune(outer)
}

// isPunctRune is goldmark's util.IsPunctRune.
func isPunctRune(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }

func wordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIAlnum(byte(r))
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isSafePunct reports whether r is ASCII punctuation that fastInline
// takes as text wherever it stands.
func isSafePunct(r rune) bool {
	switch r {
	case '.', ',', ';', ':', '?', '!', '(', ')', '"', '\'', '/', '-':
		return true
	}
	return false
}

// wikiLinkAt matches a wiki link at s[i] the way wikiLinkParser does and
// appends text (the plain text before it) and it to w. It returns the
// number of bytes the link takes from s[i], or 0.
func wikiLinkAt(s []byte, i int, w *bodyWalker, text []byte) int {
	rest, ok := bytes.CutPrefix(s[i:], []byte("[["))
	if !ok {
		return 0
	}
	end := bytes.Index(rest, []byte("]]"))
	if end <= 0 {
		return 0
	}
	inner := rest[:end]
	if bytes.ContainsAny(inner, "[]\r\n") {
		return 0
	}
	target, label, _ := bytes.Cut(inner, []byte("|"))
	target, label = bytes.TrimSpace(target), bytes.TrimSpace(label)
	n := 2 + end + 2
	// "[[x]]:" opening a paragraph might be read as a link reference
	// definition.
	if len(target) == 0 || i+n < len(s) && s[i+n] == ':' {
		return 0
	}
	w.text = append(w.text, text...)
	w.scan = append(w.scan, text...)
	w.wikis.add(&w.b.WikiLinks, string(target))
	if len(label) > 0 {
		w.text = append(w.text, label...)
	} else {
		w.text = append(w.text, target...)
	}
	w.scan = append(w.scan, ' ')
	return n
}

// linkAt matches an inline link "[text](url)" at s[i] with plain text and
// a plain URL (no blank, parenthesis, quote, angle bracket, backslash,
// ampersand, backtick or bracket: nothing goldmark would unescape, balance
// or take as a title) and appends text (the plain text before it) and it
// to w. It returns the number of bytes the link takes from s[i], or 0.
func linkAt(s []byte, i int, w *bodyWalker, text []byte) int {
	j := bytes.IndexByte(s[i+1:], ']')
	if j <= 0 {
		return 0
	}
	label := s[i+1 : i+1+j]
	rest := s[i+1+j+1:]
	if !plainSpan(label) || len(rest) < 3 || rest[0] != '(' {
		return 0
	}
	k := bytes.IndexByte(rest, ')')
	if k <= 1 {
		return 0
	}
	url := rest[1:k]
	for _, c := range url {
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte("()<>\"'\\&`[]"), c) >= 0 {
			return 0
		}
	}
	w.text = append(w.text, text...)
	w.scan = append(w.scan, text...)
	w.b.Links = append(w.b.Links, string(url))
	w.text = append(w.text, label...)
	w.scan = append(w.scan, label...)
	return 1 + j + 1 + k + 1
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
