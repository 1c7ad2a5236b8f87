package parser

import "bytes"

// fastBody walks src into w the way parseBody's goldmark walk would, for
// bodies written only in the plain Markdown most memories use: ATX
// headings, paragraphs, "- " bullet items and single-backtick code spans.
// It reports false, leaving w in an unspecified state, at the first thing
// it is not sure about (any other syntax, indentation, trailing blanks,
// tabs, CR, escapes, entities, emphasis, links); the caller then starts
// over with goldmark. goldmark stays the reference: TestFastBodyMatches
// and FuzzFastBody check that whatever this accepts, goldmark walks to the
// same Body.
//
// How the accepted subset maps to goldmark's tree: a paragraph or a list
// item's text is its lines joined by a space (soft line breaks); a line
// that is not a heading or an item continues the open paragraph or item
// (lazy continuation); headings and items interrupt paragraphs; a blank
// line closes whatever is open.
func fastBody(src []byte, w *bodyWalker) bool {
	open := false // a paragraph or list item is collecting lines
	mark := 0     // its startBlock mark
	for len(src) > 0 {
		var line []byte
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			line, src = src, nil
		}
		if len(line) == 0 {
			if open {
				w.endBlock(mark)
				open = false
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
			if open {
				w.endBlock(mark)
				open = false
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
			if open {
				w.endBlock(mark)
			}
			mark, open = w.startBlock(), true
			if !fastInline(line[2:], w) {
				return false
			}
		default:
			if !safeStart(line) {
				return false
			}
			if open {
				// A soft line break, as goldmark's walk renders it.
				w.text = append(w.text, ' ')
				w.scan = append(w.scan, ' ')
			} else {
				mark, open = w.startBlock(), true
			}
			if !fastInline(line, w) {
				return false
			}
		}
	}
	if open {
		w.endBlock(mark)
	}
	return true
}

// safeStart reports whether a line (or a list item's content) starting
// with s is a plain paragraph line to CommonMark, whatever came before it:
// not a block marker of any kind, not indented.
func safeStart(s []byte) bool {
	switch c := s[0]; {
	case c == ' ' || c == '\t' || c == '-' || c == '*' || c == '+' || c == '>' ||
		c == '=' || c == '_' || c == '~' || c == '<' || c == '[' || c == '!':
		return false
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
// spans as their content in the text, as a blank in the #tag scan), or
// reports false for anything but plain text and simple code spans.
func fastInline(s []byte, w *bodyWalker) bool {
	start := 0
	for i := 0; i < len(s); i++ {
		if !inlineSpecial[s[i]] {
			continue
		}
		switch s[i] {
		case '\\', '&', '<', '*', '[', ']', '\t', '\r':
			return false
		case '_':
			// Between two ASCII letters or digits '_' can neither
			// open nor close emphasis.
			if i == 0 || i+1 == len(s) || !isASCIIAlnum(s[i-1]) || !isASCIIAlnum(s[i+1]) {
				return false
			}
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
	'\t': true, '\r': true, '_': true, '`': true}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
