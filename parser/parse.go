package parser

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// MaxFileSize is the default limit on the size of a memory file, in bytes.
// Options.MaxFileSize overrides it.
const MaxFileSize = 1 << 20

// Limits on the YAML node tree. A memory's front matter is a flat mapping
// with small lists; these only stop hostile input (alias bombs, deep nesting)
// before anything walks the tree.
const (
	maxAliases = 100
	maxDepth   = 32
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Options tunes Parse. The zero value is ready to use.
type Options struct {
	// MaxFileSize is the largest file accepted, in bytes. Zero or negative
	// means the package default, MaxFileSize.
	MaxFileSize int
	// SkipBody leaves Document.Body empty, for scans that need only Meta:
	// walking the Markdown is most of the cost of Parse. BodyBytes, Format
	// and edits are unaffected; SetBody fills Body as usual.
	SkipBody bool
	// Scratch, when set, is working memory Parse reuses from call to
	// call, and data is not copied: the Document is valid only until the
	// next Parse with the same Scratch, and only while data is unchanged.
	// Meta and Body are values of their own and stay valid. For bulk
	// loads that keep only Meta and Body; one Scratch per goroutine.
	Scratch *Scratch
}

// Scratch is working memory for Parse; see Options.Scratch. The zero value
// is ready to use.
type Scratch struct {
	doc        Document
	nodes      []yaml.Node  // front matter nodes (fastYAML)
	content    []*yaml.Node // the top-level mapping's entries (fastYAML)
	lines      []string     // front matter lines (fastYAML)
	text, scan []byte       // body walk buffers
}

// Source says which client wrote a memory and how.
type Source struct {
	Client string // e.g. "claude-code"
	Kind   string // e.g. "manual"
}

// Meta is the typed view of the front matter. A zero or nil field means the
// key is absent (or was dropped with a diagnostic); pointers are used where
// zero is a meaningful value. Unknown keys are not in Meta but are kept in
// the Document and written back by Format.
type Meta struct {
	ID     string
	Title  string
	Layer  string // raw as written ("project", "3", "L3"...); the vault interprets it
	Status string

	Importance *int
	Version    *int

	// Lists accept a YAML sequence or, for hand-written files, a single
	// string: tags, supersedes and links split it on commas (ASCII or
	// full-width), aliases take it whole. Tags lose a leading '#'.
	Tags, Aliases, Supersedes, Links []string
	// Refs name the code a memory is about: repository paths, folders
	// ("dir/"), globs ("dir/**/*.go") and symbols ("path#Symbol"), taken
	// whole (a single string is one ref).
	Refs []string

	// Times are in UTC. Accepted: RFC 3339, "2006-01-02T15:04:05" and
	// "2006-01-02 15:04:05" (read as UTC), plain dates "2006-01-02" (midnight
	// UTC), and the other YAML timestamp forms.
	CreatedAt, UpdatedAt, EffectiveAt, ExpiresAt *time.Time
	// VerifiedAt is when a person or assistant last confirmed the memory
	// still holds (memvault confirm).
	VerifiedAt *time.Time

	Source Source
}

// Document is one parsed memory file. It keeps the original bytes so that
// Format can rewrite only what changed. A Document is not safe for
// concurrent use; Parse is.
type Document struct {
	// Meta is the typed front matter. It is refreshed by Set and Delete;
	// assigning to it directly does not change what Format writes.
	Meta Meta
	// Body is what was extracted from the Markdown body. It is refreshed by
	// SetBody.
	Body Body

	path  string
	bom   bool   // the file starts with a UTF-8 BOM
	eol   string // line ending used for lines Set writes: "\n" or "\r\n"
	hasFM bool   // open/fm/close hold a front matter block
	open  []byte // opening delimiter line, with its line ending
	fm    []byte // front matter lines, each with its line ending
	close []byte // closing delimiter line, with its line ending if any
	body  []byte // everything after the closing delimiter line

	root  *yaml.Node // top-level mapping of the front matter, nil if empty or broken
	fmErr error      // why the front matter cannot be edited, nil if it can
}

// Parse parses a memory file with the default Options. See Options.Parse.
func Parse(path string, data []byte) (*Document, []*Error) {
	return Options{}.Parse(path, data)
}

// Parse splits front matter from body, decodes the YAML into Meta and walks
// the body. path is used only in diagnostics; data is copied.
//
// It returns a nil Document only for files that cannot be a memory at all
// (NUL bytes, invalid UTF-8, larger than the limit), with one diagnostic.
// Otherwise it returns a Document plus diagnostics for the problems it
// survived, in file order:
//   - no front matter (ErrNoFrontMatter) or no closing "---" (ErrUnclosed):
//     the whole file is body, Meta is empty; SeverityError.
//   - YAML that does not parse or is not a mapping (ErrSyntax): Meta is
//     empty, the body is still used, Line is the file line of the problem;
//     SeverityError.
//   - a known field of the wrong type (ErrType): that field is left zero,
//     the others are kept; SeverityWarning.
//   - a key written twice (ErrDuplicateKey): the first one wins;
//     SeverityWarning.
//
// Unknown keys are not diagnostics. A UTF-8 BOM and CRLF line endings are
// accepted and written back by Format.
func (o Options) Parse(path string, data []byte) (*Document, []*Error) {
	limit := o.MaxFileSize
	if limit <= 0 {
		limit = MaxFileSize
	}
	if len(data) > limit {
		return nil, []*Error{{Path: path, Err: fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(data), limit)}}
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, []*Error{{Path: path, Line: lineAt(data, i), Err: fmt.Errorf("%w: NUL byte", ErrBinary)}}
	}
	if !utf8.Valid(data) {
		return nil, []*Error{{Path: path, Line: lineAt(data, invalidUTF8At(data)), Err: fmt.Errorf("%w: invalid UTF-8", ErrBinary)}}
	}

	var d *Document
	if o.Scratch != nil {
		d = &o.Scratch.doc
		*d = Document{path: path}
	} else {
		d = &Document{path: path}
	}
	src := data
	if o.Scratch == nil {
		src = bytes.Clone(data)
	}
	if bytes.HasPrefix(src, utf8BOM) {
		d.bom = true
		src = src[len(utf8BOM):]
	}
	d.eol = detectEOL(src)

	var diags []*Error
	open, fm, closing, body, status := splitFrontMatter(src)
	switch status {
	case fmNone:
		d.body = src
		diags = append(diags, &Error{Path: path, Line: 1, Err: ErrNoFrontMatter})
	case fmUnclosed:
		d.body = src
		diags = append(diags, &Error{Path: path, Line: 1, Err: fmt.Errorf("%w: no closing \"---\" line", ErrUnclosed)})
	default:
		d.hasFM, d.open, d.fm, d.close, d.body = true, open, fm, closing, body
		diags = d.decodeFrontMatter(diags, o.Scratch)
	}
	if !o.SkipBody {
		d.Body = parseBody(d.body, o.Scratch)
	}
	return d, diags
}

// decodeFrontMatter parses d.fm into d.root and d.Meta, appending
// diagnostics. s may be nil.
func (d *Document) decodeFrontMatter(diags []*Error, s *Scratch) []*Error {
	d.root, d.fmErr, d.Meta = nil, nil, Meta{}
	root, line, err := parseYAML(d.fm, s)
	if err != nil {
		d.fmErr = err
		return append(diags, &Error{Path: d.path, Line: d.fileLine(line), Err: err})
	}
	d.root = root
	if root == nil {
		return diags
	}
	return decodeMeta(&d.Meta, root, d.path, d.fileLine, diags)
}

// fileLine maps a 1-based front-matter line to a 1-based file line. Line 0
// (unknown) maps to the opening delimiter.
func (d *Document) fileLine(fmLine int) int {
	if fmLine <= 0 {
		return 1
	}
	return fmLine + 1
}

// FieldLine returns the 1-based file line of a front-matter key, or 0 if the
// key is absent. A dotted key ("source.kind") names a key of a nested
// mapping. With duplicate keys it returns the first.
func (d *Document) FieldLine(key string) int {
	if d.root == nil {
		return 0
	}
	n := d.root
	var k *yaml.Node
	for part := range strings.SplitSeq(key, ".") {
		if n == nil || n.Kind != yaml.MappingNode {
			return 0
		}
		i := findKey(n, part)
		if i < 0 {
			return 0
		}
		k, n = n.Content[i], resolveAlias(n.Content[i+1])
	}
	if k == nil {
		return 0
	}
	return d.fileLine(k.Line)
}

// Keys returns the top-level front-matter keys in file order, duplicates
// included. It returns nil when the front matter is absent or broken.
func (d *Document) Keys() []string {
	if d.root == nil {
		return nil
	}
	keys := make([]string, 0, len(d.root.Content)/2)
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		keys = append(keys, d.root.Content[i].Value)
	}
	return keys
}

// Value decodes the value of the top-level front-matter key into plain Go
// values (string, int, float64, bool, time.Time for timestamps, []any,
// map[string]any), as a JSON encoder can take them. With duplicate keys the
// first wins, as everywhere in the parser. ok is false when the key is
// absent, the front matter is broken, or the value cannot be decoded.
// Aliases are refused, not expanded: the value of a key the parser does not
// know is data to carry, never to evaluate.
func (d *Document) Value(key string) (v any, ok bool) {
	if d.root == nil {
		return nil, false
	}
	i := findKey(d.root, key)
	if i < 0 {
		return nil, false
	}
	return decodeValue(d.root.Content[i+1])
}

// Values decodes the value of every top-level front-matter key, as Value
// does one, in one pass (Value searches the keys each time): with
// duplicate keys the first wins. A key whose value cannot be decoded is
// left out; Keys lists it. It returns nil when the front matter is absent
// or broken.
func (d *Document) Values() map[string]any {
	if d.root == nil {
		return nil
	}
	vals := make(map[string]any, len(d.root.Content)/2)
	seen := make(map[string]bool, len(d.root.Content)/2)
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		k := d.root.Content[i]
		if k.Kind != yaml.ScalarNode || seen[k.Value] {
			continue
		}
		seen[k.Value] = true
		if v, ok := decodeValue(d.root.Content[i+1]); ok {
			vals[k.Value] = v
		}
	}
	return vals
}

// decodeValue decodes one value node into plain Go values.
func decodeValue(n *yaml.Node) (v any, ok bool) {
	if hasAlias(n, 0) {
		return nil, false
	}
	defer func() {
		// yaml.v3 panics on a few hostile inputs; a value that makes it
		// panic is one it cannot decode.
		if recover() != nil {
			v, ok = nil, false
		}
	}()
	if err := n.Decode(&v); err != nil {
		return nil, false
	}
	return plainValue(v), true
}

// hasAlias reports whether the node tree holds an alias (or is nested past
// the parser's depth limit).
func hasAlias(n *yaml.Node, depth int) bool {
	if n == nil {
		return false
	}
	if n.Kind == yaml.AliasNode || depth > maxDepth {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c, depth+1) {
			return true
		}
	}
	return false
}

// plainValue turns yaml.v3's map[any]any into map[string]any throughout.
func plainValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = plainValue(x)
		}
		return v
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fmt.Sprint(k)] = plainValue(x)
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = plainValue(x)
		}
		return v
	}
	return v
}

// HasFrontMatter reports whether the document has a front matter block
// (possibly empty or broken).
func (d *Document) HasFrontMatter() bool { return d.hasFM }

// BodyBytes returns the body exactly as in the file: everything after the
// closing "---" line, or the whole file (without a BOM) when there is no
// front matter. The caller must not modify it.
func (d *Document) BodyBytes() []byte { return d.body }

// findKey returns the index in m.Content of the first key named key, or -1.
func findKey(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return i
		}
	}
	return -1
}

type fmStatus int

const (
	fmNone fmStatus = iota
	fmUnclosed
	fmOK
)

// splitFrontMatter cuts src (BOM removed) into the opening delimiter line,
// the front matter lines, the closing delimiter line and the body. A
// delimiter is a line of exactly "---", trailing spaces or tabs allowed.
func splitFrontMatter(src []byte) (open, fm, closing, body []byte, status fmStatus) {
	first, rest := cutLine(src)
	if !isDelimiter(first) {
		return nil, nil, nil, nil, fmNone
	}
	if len(rest) == 0 && !bytes.HasSuffix(first, []byte{'\n'}) {
		return nil, nil, nil, nil, fmUnclosed
	}
	for off := len(first); off < len(src); {
		line, _ := cutLine(src[off:])
		if isDelimiter(line) {
			return src[:len(first)], src[len(first):off], line, src[off+len(line):], fmOK
		}
		off += len(line)
	}
	return nil, nil, nil, nil, fmUnclosed
}

// cutLine returns the first line of b including its "\n" and the rest.
func cutLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i+1], b[i+1:]
	}
	return b, nil
}

func isDelimiter(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r\n")) == "---" && bytes.HasPrefix(line, []byte("---"))
}

// trimEOL strips one trailing "\n" or "\r\n".
func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'})
}

// detectEOL returns the line ending of the first line, "\n" if there is none.
func detectEOL(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

func lineAt(b []byte, off int) int { return 1 + bytes.Count(b[:off], []byte{'\n'}) }

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// parseYAML parses front matter into its top-level mapping. It returns a nil
// mapping and nil error for empty front matter (or only comments), and an
// error wrapping ErrSyntax, with the front-matter line when known, for
// anything that is not a well-formed mapping within the tree limits.
func parseYAML(fm []byte, s *Scratch) (root *yaml.Node, line int, err error) {
	if isBlankYAML(fm) {
		return nil, 0, nil
	}
	if root := fastYAML(fm, s); root != nil {
		return root, 0, nil
	}
	return fullYAML(fm)
}

// fullYAML is parseYAML with yaml.v3 only; its nodes carry comments.
func fullYAML(fm []byte) (root *yaml.Node, line int, err error) {
	var doc yaml.Node
	if err := safeUnmarshal(fm, &doc); err != nil {
		line, msg := yamlErrorLine(err, fm)
		return nil, line, fmt.Errorf("%w: %s", ErrSyntax, msg)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, 0, nil
	}
	n := doc.Content[0]
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, 0, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, n.Line, fmt.Errorf("%w: not a mapping of keys to values", ErrSyntax)
	}
	if line, err := checkTree(n); err != nil {
		return nil, line, err
	}
	return n, 0, nil
}

// isBlankYAML reports whether fm has only blank lines and comment lines.
func isBlankYAML(fm []byte) bool {
	for len(fm) > 0 {
		var line []byte
		line, fm = cutLine(fm)
		// Only a whole line ending counts as blank: YAML reads a lone
		// "\r" as a line break, so "\r0" holds a value (fuzz find).
		t := bytes.TrimLeft(line, " \t")
		if len(t) > 0 && t[0] != '#' && len(bytes.TrimRight(t, "\r\n")) > 0 {
			return false
		}
	}
	return true
}

// safeUnmarshal runs yaml.Unmarshal, turning a panic into an error: the
// front matter is outside input and must never crash the process.
func safeUnmarshal(fm []byte, doc *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	return yaml.Unmarshal(fm, doc)
}

// yamlParserErrors are the yaml.v3 messages raised by its parser (rather
// than its scanner). yaml.v3 reports their line 0-based, scanner errors
// 1-based.
var yamlParserErrors = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// yamlErrorLine turns a yaml.v3 error into a message and the 1-based
// front-matter line it is about.
func yamlErrorLine(err error, fm []byte) (line int, msg string) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				if slices.Contains(yamlParserErrors, text) {
					n++
				}
				return n, text
			}
		}
	}
	// No line: yaml.v3 leaves it out when the problem is on the first line,
	// and for decode-time errors such as an unknown anchor, which we find.
	if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		name, _, _ = strings.Cut(name, "'")
		if i := bytes.Index(fm, []byte("*"+name)); i >= 0 {
			return lineAt(fm, i), msg
		}
	}
	return 1, msg
}

// checkTree bounds the alias count and nesting depth of the tree. The
// decoder here never expands aliases, but the limits keep any later walker
// (and the cost of this one) bounded.
func checkTree(root *yaml.Node) (line int, err error) {
	type item struct {
		n     *yaml.Node
		depth int
	}
	aliases := 0
	stack := []item{{root, 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > maxDepth {
			return it.n.Line, fmt.Errorf("%w: nested deeper than %d levels", ErrSyntax, maxDepth)
		}
		if it.n.Kind == yaml.AliasNode {
			if aliases++; aliases > maxAliases {
				return it.n.Line, fmt.Errorf("%w: more than %d aliases", ErrSyntax, maxAliases)
			}
			continue
		}
		for _, c := range it.n.Content {
			stack = append(stack, item{c, it.depth + 1})
		}
	}
	return 0, nil
}
