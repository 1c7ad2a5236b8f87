package parser

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// fastYAML parses the usual shape of a memory's front matter without
// yaml.v3, which dominated Parse (docs/performance.md, "Figures behind the
// code's comments"). It accepts
// only a block mapping at column 0 whose keys are [A-Za-z0-9_][A-Za-z0-9_.-]*
// and whose values are one-line plain, single-quoted or double-quoted
// (without escapes) scalars, one-line flow lists and flow mappings of such
// scalars, or block lists of such scalars; blank lines and comments anywhere.
// Anything else (tabs, anchors, tags, multi-line scalars, nesting, escapes,
// control characters...) returns nil and the caller falls back to yaml.v3.
//
// The nodes it builds are what yaml.v3 would build (Kind, Style, Tag as
// reported by ShortTag, Value, Line, Column), except that comments are not
// attached and plain scalars leave Tag empty for ShortTag to resolve.
// TestFastYAMLMatchesYAML and FuzzFrontMatter hold it to that.
func fastYAML(fm []byte, s *Scratch) *yaml.Node {
	if !fastChars(fm) {
		return nil
	}
	var p fastParser
	var content []*yaml.Node
	if s != nil {
		// Reuse the last document's nodes and slices: it is dead by
		// now (see Options.Scratch). node zeroes each one it hands out.
		p.slab, p.reuse, p.lines, content = s.nodes[:0], true, s.lines, s.content[:0]
		defer func() { s.nodes, s.lines = p.slab, p.lines }()
	}
	p.lines = splitFM(string(fm), p.lines)
	root := p.node()
	root.Kind, root.Tag = yaml.MappingNode, "!!map"
	if cap(content) < 2*len(p.lines) {
		content = make([]*yaml.Node, 0, 2*len(p.lines))
	}
	root.Content = content
	if s != nil {
		defer func() { s.content = root.Content }()
	}
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		switch {
		case isBlankOrComment(line):
			p.i++
			continue
		case !isKeyStart(line[0]):
			return nil
		}
		k, v := p.entry(line)
		if k == nil || v == nil {
			return nil
		}
		if len(root.Content) == 0 {
			root.Line, root.Column = k.Line, k.Column
		}
		root.Content = append(root.Content, k, v)
	}
	if len(root.Content) == 0 {
		return nil
	}
	return root
}

type fastParser struct {
	lines []string    // front matter lines without line endings
	i     int         // index of the next line to read
	slab  []yaml.Node // nodes are carved from here: one allocation, not one per node
	reuse bool        // slab held an earlier document's nodes: clear before use

	colLn, colByte, colRunes int // column cache: line, byte offset, runes before it
}

// node returns a new zero node.
func (p *fastParser) node() *yaml.Node {
	if len(p.slab) == cap(p.slab) {
		// A new slab; nodes already handed out stay in the old one.
		p.slab, p.reuse = make([]yaml.Node, 0, 2*len(p.lines)+8), false
	}
	p.slab = p.slab[:len(p.slab)+1]
	n := &p.slab[len(p.slab)-1]
	if p.reuse {
		*n = yaml.Node{}
	}
	return n
}

// splitFM splits fm into lines without their "\n" or "\r\n". The lines,
// and so the values cut from them, share fm's memory.
func splitFM(fm string, lines []string) []string {
	if n := strings.Count(fm, "\n") + 1; cap(lines) < n {
		lines = make([]string, 0, n)
	}
	lines = lines[:0]
	for len(fm) > 0 {
		line := fm
		if i := strings.IndexByte(fm, '\n'); i >= 0 {
			line, fm = fm[:i], fm[i+1:]
		} else {
			fm = ""
		}
		lines = append(lines, strings.TrimSuffix(line, "\r"))
	}
	return lines
}

// fastChars reports whether fm has only characters the fast path handles:
// valid UTF-8, printable YAML characters, no tabs, no line breaks other than
// "\n" and "\r\n", no BOM. A table sends the few lead bytes that need a
// closer look (controls, C1 controls, U+2028/2029, U+FEFF, U+FFFE/FFFF) to
// the slow check.
func fastChars(fm []byte) bool {
	if !utf8.Valid(fm) {
		return false
	}
	for i, c := range fm {
		if !suspect[c] {
			continue
		}
		switch c {
		case '\n':
		case '\r':
			if i+1 >= len(fm) || fm[i+1] != '\n' {
				return false
			}
		case 0xC2, 0xE2, 0xEF:
			r, _ := utf8.DecodeRune(fm[i:])
			if r < 0xA0 || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// suspect marks the bytes fastChars must look at: ASCII controls and DEL,
// and the lead bytes of the multi-byte runes YAML does not take as is.
var suspect = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t[0x7F], t[0xC2], t[0xE2], t[0xEF] = true, true, true, true
	return t
}()

func isBlankOrComment(line string) bool {
	t := strings.TrimLeft(line, " ")
	return len(t) == 0 || t[0] == '#'
}

func isKeyStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isKeyByte(c byte) bool { return isKeyStart(c) || c == '-' || c == '.' }

// entry parses the "key: value" starting at the current line, and the block
// list after it if any. It returns nil nodes when outside the subset.
func (p *fastParser) entry(line string) (key, val *yaml.Node) {
	ln := p.i + 1
	p.i++
	j := 1
	for j < len(line) && isKeyByte(line[j]) {
		j++
	}
	if j >= len(line) || line[j] != ':' || j+1 < len(line) && line[j+1] != ' ' || j > maxSimpleKey {
		return nil, nil
	}
	key = p.node()
	key.Kind, key.Value, key.Line, key.Column = yaml.ScalarNode, line[:j], ln, 1
	j++
	for j < len(line) && line[j] == ' ' {
		j++
	}
	if j == len(line) || line[j] == '#' {
		return key, p.blockList()
	}
	val, end := p.scalarOrFlow(line, j, ln)
	if val == nil || !restIsComment(line, end) {
		return nil, nil
	}
	return key, val
}

// blockList parses the "- item" lines after a key with an empty value.
func (p *fastParser) blockList() *yaml.Node {
	var seq *yaml.Node
	indent := -1
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		if isBlankOrComment(line) {
			p.i++
			continue
		}
		ws := len(line) - len(strings.TrimLeft(line, " "))
		if line[ws] != '-' {
			if ws > 0 {
				return nil // an indented line that is not an item
			}
			break // the next key
		}
		if indent >= 0 && ws != indent || ws+1 >= len(line) || line[ws+1] != ' ' {
			return nil
		}
		indent = ws
		j := ws + 2
		for j < len(line) && line[j] == ' ' {
			j++
		}
		if j == len(line) || line[j] == '[' || line[j] == '{' {
			return nil
		}
		ln := p.i + 1
		item, end := p.scalarOrFlow(line, j, ln)
		if item == nil || !restIsComment(line, end) {
			return nil
		}
		if seq == nil {
			seq = p.node()
			seq.Kind, seq.Tag, seq.Line, seq.Column = yaml.SequenceNode, "!!seq", ln, ws+1
		}
		seq.Content = append(seq.Content, item)
		p.i++
	}
	return seq // nil (a null value: left to yaml.v3) when there was no item
}

// restIsComment reports whether line[end:] is blank or blanks then a comment.
func restIsComment(line string, end int) bool {
	t := strings.TrimLeft(line[end:], " ")
	return len(t) == 0 || t[0] == '#' && len(t) < len(line[end:])
}

// column returns the 1-based column (in runes) of byte offset i of line ln.
// Scanning moves left to right, so the count resumes from the last call on
// the same line: counting from the line start each time was quadratic on a
// long flow list.
func (p *fastParser) column(line string, i, ln int) int {
	if ln != p.colLn || i < p.colByte {
		p.colLn, p.colByte, p.colRunes = ln, 0, 0
	}
	p.colRunes += utf8.RuneCountInString(line[p.colByte:i])
	p.colByte = i
	return p.colRunes + 1
}

// scalarOrFlow parses a block-context value at line[j]: a flow list, a flow
// mapping or a scalar. It returns the node and the offset after it.
func (p *fastParser) scalarOrFlow(line string, j, ln int) (*yaml.Node, int) {
	switch line[j] {
	case '[':
		return p.flowList(line, j, ln)
	case '{':
		return p.flowMap(line, j, ln)
	}
	return p.scalar(line, j, ln, false)
}

// maxSimpleKey is below YAML's 1024-character limit on implicit keys; the
// fast path leaves longer keys to yaml.v3 (which rejects them).
const maxSimpleKey = 1000

// indicators cannot start a plain scalar (in the subset: '-', '?' and ':'
// followed by a non-blank could, but are left to yaml.v3).
const indicators = "-?:,[]{}#&*!|>'\"%@`"

// scalar parses a quoted or plain scalar at line[j]. In flow context a plain
// scalar also ends at ',' ']' '}'.
func (p *fastParser) scalar(line string, j, ln int, flow bool) (*yaml.Node, int) {
	switch c := line[j]; {
	case c == '"':
		end := strings.IndexByte(line[j+1:], '"')
		if end < 0 || strings.IndexByte(line[j+1:j+1+end], '\\') >= 0 {
			return nil, 0
		}
		n := p.scalarNode(line, j, ln)
		n.Style, n.Tag, n.Value = yaml.DoubleQuotedStyle, "!!str", line[j+1:j+1+end]
		return n, j + end + 2
	case c == '\'':
		end := strings.IndexByte(line[j+1:], '\'')
		if end < 0 {
			return nil, 0
		}
		if end+j+2 < len(line) && line[end+j+2] == '\'' {
			return singleQuoted(p.scalarNode(line, j, ln), line, j)
		}
		n := p.scalarNode(line, j, ln)
		n.Style, n.Tag, n.Value = yaml.SingleQuotedStyle, "!!str", line[j+1:j+1+end]
		return n, j + end + 2
	case strings.IndexByte(indicators, c) >= 0:
		return nil, 0
	}
	n := p.scalarNode(line, j, ln)
	end := j // offset after the last non-blank character
	for k := j; k < len(line); k++ {
		c := line[k]
		switch {
		case c == ' ':
			continue
		case c == '#' && line[k-1] == ' ':
			n.Value = line[j:end]
			return n, end
		case c == ':' && (k+1 == len(line) || line[k+1] == ' ' || flow):
			return nil, 0
		case flow && (c == ',' || c == ']' || c == '}'):
			n.Value = line[j:end]
			return n, end
		case flow && (c == '[' || c == '{' || c == '?'):
			return nil, 0 // yaml.v3 ends a flow plain scalar at '?' too
		}
		end = k + 1
	}
	n.Value = line[j:end]
	return n, end
}

func (p *fastParser) scalarNode(line string, j, ln int) *yaml.Node {
	n := p.node()
	n.Kind, n.Line, n.Column = yaml.ScalarNode, ln, p.column(line, j, ln)
	return n
}

// singleQuoted finishes a single-quoted scalar at line[j] that has ”
// escapes.
func singleQuoted(n *yaml.Node, line string, j int) (*yaml.Node, int) {
	var b strings.Builder
	for k := j + 1; k < len(line); k++ {
		if line[k] != '\'' {
			b.WriteByte(line[k])
			continue
		}
		if k+1 < len(line) && line[k+1] == '\'' {
			b.WriteByte('\'')
			k++
			continue
		}
		n.Style, n.Tag, n.Value = yaml.SingleQuotedStyle, "!!str", b.String()
		return n, k + 1
	}
	return nil, 0
}

// flowList parses a one-line flow list "[a, 'b', "c"]" at line[j].
func (p *fastParser) flowList(line string, j, ln int) (*yaml.Node, int) {
	seq := p.node()
	seq.Kind, seq.Tag, seq.Style, seq.Line, seq.Column = yaml.SequenceNode, "!!seq", yaml.FlowStyle, ln, p.column(line, j, ln)
	k := skipSpaces(line, j+1)
	if k < len(line) && line[k] == ']' {
		return seq, k + 1
	}
	for {
		if k >= len(line) {
			return nil, 0
		}
		item, end := p.scalar(line, k, ln, true)
		if item == nil || item.Value == "" && item.Style == 0 {
			return nil, 0
		}
		seq.Content = append(seq.Content, item)
		k = skipSpaces(line, end)
		if k >= len(line) {
			return nil, 0
		}
		switch line[k] {
		case ']':
			return seq, k + 1
		case ',':
			k = skipSpaces(line, k+1)
		default:
			return nil, 0
		}
	}
}

// flowMap parses a one-line flow mapping "{a: b, c: 'd'}" at line[j]; keys
// are plain key-like words.
func (p *fastParser) flowMap(line string, j, ln int) (*yaml.Node, int) {
	m := p.node()
	m.Kind, m.Tag, m.Style, m.Line, m.Column = yaml.MappingNode, "!!map", yaml.FlowStyle, ln, p.column(line, j, ln)
	k := skipSpaces(line, j+1)
	if k < len(line) && line[k] == '}' {
		return m, k + 1
	}
	for {
		if k >= len(line) || !isKeyStart(line[k]) {
			return nil, 0
		}
		start := k
		for k < len(line) && isKeyByte(line[k]) {
			k++
		}
		if k+1 >= len(line) || line[k] != ':' || line[k+1] != ' ' || k-start > maxSimpleKey {
			return nil, 0
		}
		key := p.scalarNode(line, start, ln)
		key.Value = line[start:k]
		k = skipSpaces(line, k+1)
		if k >= len(line) {
			return nil, 0
		}
		val, end := p.scalar(line, k, ln, true)
		if val == nil || val.Value == "" && val.Style == 0 {
			return nil, 0
		}
		m.Content = append(m.Content, key, val)
		k = skipSpaces(line, end)
		if k >= len(line) {
			return nil, 0
		}
		switch line[k] {
		case '}':
			return m, k + 1
		case ',':
			k = skipSpaces(line, k+1)
		default:
			return nil, 0
		}
	}
}

func skipSpaces(line string, k int) int {
	for k < len(line) && line[k] == ' ' {
		k++
	}
	return k
}
