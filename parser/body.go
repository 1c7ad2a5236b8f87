package parser

import (
	"bytes"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	gmparser "github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Body is what the Markdown body yields for indexing and linking.
type Body struct {
	// Heading is the text of the first level-1 heading, "" if none.
	Heading string
	// Text is the plain text for indexing: no Markdown syntax; paragraphs,
	// headings, list items and code block lines separated by newlines. Code
	// spans and code blocks are kept as text (identifiers matter for search),
	// link and image text is kept, URLs and raw HTML are dropped. Wiki links
	// contribute their label, or their target when they have none.
	Text string
	// Links are the destinations of Markdown links (inline, reference and
	// autolinks), in order, duplicates kept. Images are not links.
	Links []string
	// WikiLinks are the targets of Obsidian [[target]], [[target|label]] and
	// ![[embed]] links, in order, deduplicated, trimmed and otherwise as
	// written ("note#heading" keeps its fragment). Code does not count.
	WikiLinks []string
	// Tags are Obsidian inline #tags, as written without the '#',
	// deduplicated. A tag starts at a '#' after whitespace or at the start of
	// a block, runs over letters, digits, '_', '-' and '/', and needs a letter
	// or '_'. Code, URLs and escaped "\#" do not count.
	Tags []string
}

// markdown is the one goldmark parser, built once, at its first use (most
// bodies never need it: see fastBody), not in every process's init:
// CommonMark plus a wiki link inline parser, no extension that changes
// text. A built goldmark parser is safe for concurrent use (each Parse
// call gets its own context; TestParseConcurrent checks this under -race).
var markdown = sync.OnceValue(func() gmparser.Parser {
	return gmparser.NewParser(
		gmparser.WithBlockParsers(gmparser.DefaultBlockParsers()...),
		gmparser.WithInlineParsers(append(gmparser.DefaultInlineParsers(),
			// Before the link parser (200), so "[[x]]" is never a link label.
			util.Prioritized(wikiLinkParser{}, 199))...),
		gmparser.WithParagraphTransformers(gmparser.DefaultParagraphTransformers()...),
	)
})

// Bounds on what goldmark is given. goldmark is quadratic on some inputs
// (long runs of link openers, deep quotes, many link reference
// definitions: seconds for a body of a few hundred KB, docs/performance.md,
// "Figures behind the code's comments"). Memories are far smaller, so
// these bounds change nothing for real files and keep a hostile one under
// a second (see TestParseHostileBodies and BenchmarkParseHostile).
const (
	maxWalkBytes = 256 << 10 // Body covers the first 256 KiB of the body
	maxLineBytes = 2048      // longer lines are wrapped
	maxRunLines  = 256       // a blank line is slipped into longer runs of lines
	maxRunBytes  = 16 << 10  // or runs of more bytes (a paragraph is parsed as one)
)

// markdownSource returns what goldmark parses: src itself, unless src is
// over the bounds above; then a copy cut to maxWalkBytes, with long lines
// wrapped (at a blank when there is one near the limit) and long runs of
// non-blank lines (by count or bytes) split by a blank line. Wrapping turns into a space in
// Body.Text, a blank line into a paragraph break.
func markdownSource(src []byte) []byte {
	if len(src) > maxWalkBytes {
		cut := bytes.LastIndexByte(src[:maxWalkBytes], '\n') + 1
		if cut == 0 {
			cut = runeStart(src, maxWalkBytes)
		}
		src = src[:cut]
	}
	if !overBounds(src) {
		return src
	}
	out := make([]byte, 0, len(src)+len(src)/32)
	run, runBytes := 0, 0
	for len(src) > 0 {
		var line []byte
		line, src = cutLine(src)
		if len(bytes.TrimSpace(line)) == 0 {
			run, runBytes = 0, 0
			out = append(out, line...)
			continue
		}
		for {
			run++
			runBytes += min(len(line), maxLineBytes)
			if run > maxRunLines || runBytes > maxRunBytes {
				out = append(out, '\n')
				run, runBytes = 1, min(len(line), maxLineBytes)
			}
			if len(line) <= maxLineBytes {
				out = append(out, line...)
				break
			}
			cut := bytes.LastIndexAny(line[maxLineBytes*3/4:maxLineBytes], " \t")
			if cut >= 0 {
				cut += maxLineBytes*3/4 + 1
			} else {
				cut = runeStart(line, maxLineBytes)
			}
			out = append(out, line[:cut]...)
			out = append(out, '\n')
			line = line[cut:]
		}
	}
	return out
}

// overBounds reports whether src has a line over maxLineBytes or a run of
// more than maxRunLines non-blank lines or maxRunBytes.
func overBounds(src []byte) bool {
	run, runBytes := 0, 0
	for len(src) > 0 {
		var line []byte
		line, src = cutLine(src)
		if len(line) > maxLineBytes {
			return true
		}
		if len(bytes.TrimSpace(line)) == 0 {
			run, runBytes = 0, 0
			continue
		}
		run++
		runBytes += len(line)
		if run > maxRunLines || runBytes > maxRunBytes {
			return true
		}
	}
	return false
}

// runeStart returns the largest i <= n that starts a rune of b (i > 0).
func runeStart(b []byte, n int) int {
	for i := n; i > 0; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return n
}

// ParseBody walks a Markdown body, as Document.BodyBytes returns it, into
// a Body: the same Body that Parse gives the file it came from. A loaded
// vault keeps bodies, not their plain text, and derives the text with it
// when it is needed again.
func ParseBody(src []byte) Body { return parseBody(src, nil) }

// parseBody walks the Markdown of src into a Body: with fastBody when it
// can, else with goldmark.
func parseBody(src []byte, s *Scratch) Body {
	var b Body
	if len(bytes.TrimSpace(src)) == 0 {
		return b
	}
	src = markdownSource(src)
	w := bodyWalker{src: src, b: &b}
	if s != nil {
		w.text, w.scan = s.text[:0], s.scan[:0]
		defer func() { s.text, s.scan = w.text, w.scan }()
	} else {
		w.text = make([]byte, 0, len(src))
	}
	if !fastBody(src, &w) {
		return goldmarkBody(src)
	}
	b.Text = string(w.text)
	return b
}

// goldmarkBody walks the goldmark AST of src (already bounded by
// markdownSource) into a Body. It is the reference for fastBody.
func goldmarkBody(src []byte) Body {
	var b Body
	doc := markdown().Parse(text.NewReader(src))
	w := bodyWalker{src: src, b: &b, text: make([]byte, 0, len(src))}
	w.blocks(doc)
	b.Text = string(w.text)
	return b
}

type bodyWalker struct {
	src    []byte
	b      *Body
	text   []byte // Body.Text being built
	scan   []byte // raw text of the current block, code blanked out, for #tags
	seenH1 bool
	wikis  set
	tags   set
}

// set deduplicates strings: a scan of the few usual ones, a map once there
// are many (a hostile file can hold 100k distinct wiki links).
type set struct {
	m map[string]struct{}
}

// add appends s to *list unless it is there already.
func (st *set) add(list *[]string, s string) {
	if st.m == nil {
		if !slices.Contains(*list, s) {
			*list = append(*list, s)
		}
		if len(*list) > 32 {
			st.m = make(map[string]struct{}, 2*len(*list))
			for _, x := range *list {
				st.m[x] = struct{}{}
			}
		}
		return
	}
	if _, ok := st.m[s]; !ok {
		st.m[s] = struct{}{}
		*list = append(*list, s)
	}
}

// startBlock begins a new line of text and returns a mark for endBlock.
func (w *bodyWalker) startBlock() int {
	mark := len(w.text)
	if mark > 0 {
		w.text = append(w.text, '\n')
	}
	w.scan = w.scan[:0]
	return mark
}

// endBlock drops the separator of a block that produced no text, collects
// the block's #tags and returns the block's text.
func (w *bodyWalker) endBlock(mark int) []byte {
	if mark > 0 && len(w.text) == mark+1 {
		w.text = w.text[:mark]
	}
	scanTags(w.scan, w.addTag)
	start := mark
	if mark > 0 && len(w.text) > mark {
		start++
	}
	return bytes.TrimSpace(w.text[start:])
}

func (w *bodyWalker) blocks(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Heading:
			mark := w.startBlock()
			w.inlines(c)
			h := w.endBlock(mark)
			if c.Level == 1 && !w.seenH1 {
				w.seenH1 = true
				w.b.Heading = string(h)
			}
		case *ast.Paragraph, *ast.TextBlock:
			mark := w.startBlock()
			w.inlines(c)
			w.endBlock(mark)
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			mark := w.startBlock()
			lines := c.Lines()
			for i := range lines.Len() {
				if i > 0 {
					w.text = append(w.text, '\n')
				}
				seg := lines.At(i)
				w.text = append(w.text, trimEOL(seg.Value(w.src))...)
			}
			if mark > 0 && len(w.text) == mark+1 {
				w.text = w.text[:mark]
			}
		case *ast.HTMLBlock, *ast.ThematicBreak:
		default: // document, lists, list items, block quotes
			w.blocks(c)
		}
	}
}

func (w *bodyWalker) inlines(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(w.src)
			w.scan = append(w.scan, v...)
			if c.IsRaw() {
				w.text = append(w.text, v...)
			} else {
				w.appendUnescaped(v)
			}
			if c.SoftLineBreak() || c.HardLineBreak() {
				w.text = append(w.text, ' ')
				w.scan = append(w.scan, ' ')
			}
		case *ast.String:
			w.text = append(w.text, c.Value...)
			w.scan = append(w.scan, c.Value...)
		case *ast.CodeSpan:
			w.codeSpan(c)
			w.scan = append(w.scan, ' ')
		case *ast.Link:
			if len(c.Destination) > 0 {
				w.b.Links = append(w.b.Links, string(c.Destination))
			}
			w.inlines(c)
		case *ast.AutoLink:
			w.b.Links = append(w.b.Links, string(c.URL(w.src)))
			w.scan = append(w.scan, ' ')
		case *ast.RawHTML:
			w.scan = append(w.scan, ' ')
		case *wikiLink:
			w.wikis.add(&w.b.WikiLinks, string(c.target))
			if len(c.label) > 0 {
				w.text = append(w.text, c.label...)
			} else {
				w.text = append(w.text, c.target...)
			}
			w.scan = append(w.scan, ' ')
		default: // emphasis, images (alt text), other containers
			w.inlines(c)
		}
	}
}

// codeSpan appends the text of a code span, line breaks as spaces.
func (w *bodyWalker) codeSpan(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		var v []byte
		switch c := c.(type) {
		case *ast.Text:
			v = c.Segment.Value(w.src)
		case *ast.String:
			v = c.Value
		default:
			continue
		}
		for _, b := range v {
			if b == '\n' || b == '\r' {
				b = ' '
			}
			w.text = append(w.text, b)
		}
	}
}

// appendUnescaped appends Markdown text with backslash escapes and character
// references resolved.
func (w *bodyWalker) appendUnescaped(v []byte) {
	if bytes.IndexByte(v, '\\') >= 0 {
		v = util.UnescapePunctuations(v)
	}
	if bytes.IndexByte(v, '&') >= 0 {
		v = util.ResolveEntityNames(util.ResolveNumericReferences(v))
	}
	w.text = append(w.text, v...)
}

func (w *bodyWalker) addTag(tag string) { w.tags.add(&w.b.Tags, tag) }

// scanTags calls add for each Obsidian #tag in s (see Body.Tags).
func scanTags(s []byte, add func(string)) {
	for i := 0; i < len(s); i++ {
		if s[i] != '#' {
			continue
		}
		if i > 0 {
			if r, _ := utf8.DecodeLastRune(s[:i]); !unicode.IsSpace(r) {
				continue
			}
		}
		j, named := i+1, false
		for j < len(s) {
			r, n := utf8.DecodeRune(s[j:])
			switch {
			case r == '_' || unicode.IsLetter(r) || unicode.IsMark(r):
				named = true
			case r == '-' || r == '/' || unicode.IsDigit(r):
			default:
				n = 0
			}
			if n == 0 {
				break
			}
			j += n
		}
		if named {
			add(string(s[i+1 : j]))
		}
		i = j - 1
	}
}

// wikiLink is an Obsidian [[target|label]] link (or ![[embed]]).
type wikiLink struct {
	ast.BaseInline
	target, label []byte
}

var kindWikiLink = ast.NewNodeKind("MemvaultWikiLink")

// Kind implements ast.Node.
func (n *wikiLink) Kind() ast.NodeKind { return kindWikiLink }

// Dump implements ast.Node.
func (n *wikiLink) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Target": string(n.target), "Label": string(n.label)}, nil)
}

// wikiLinkParser parses [[target]], [[target|label]] and ![[embed]] on one
// line. Code spans are parsed first (higher priority), so code never yields
// a wiki link.
type wikiLinkParser struct{}

// Trigger implements parser.InlineParser.
func (wikiLinkParser) Trigger() []byte { return []byte{'[', '!'} }

// Parse implements parser.InlineParser.
func (wikiLinkParser) Parse(_ ast.Node, block text.Reader, _ gmparser.Context) ast.Node {
	line, _ := block.PeekLine()
	i := 0
	if len(line) > 0 && line[0] == '!' {
		i = 1
	}
	if !bytes.HasPrefix(line[i:], []byte("[[")) {
		return nil
	}
	rest := line[i+2:]
	end := bytes.Index(rest, []byte("]]"))
	if end <= 0 {
		return nil
	}
	inner := rest[:end]
	if bytes.ContainsAny(inner, "[]\r\n") {
		return nil
	}
	target, label, _ := bytes.Cut(inner, []byte("|"))
	target = bytes.TrimSpace(target)
	if len(target) == 0 {
		return nil
	}
	block.Advance(i + 2 + end + 2)
	return &wikiLink{target: target, label: bytes.TrimSpace(label)}
}
