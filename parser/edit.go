package parser

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// KV is one entry of a small mapping written by Set, such as source; a []KV
// keeps the order given.
type KV struct {
	Key, Value string
}

// New starts a document for a new memory with the given body and no front
// matter yet. Set fields in the order they should be written. The line
// ending style is taken from the body ("\n" if it has none).
func New(body []byte) *Document {
	b := bytes.Clone(body)
	d := &Document{eol: detectEOL(b), body: b}
	d.Body = parseBody(b, nil)
	return d
}

// SetBody replaces the body bytes exactly and re-extracts Body. A body that
// itself starts with a "---" line is only safe in a document that has front
// matter (otherwise a later Parse would read it as front matter).
func (d *Document) SetBody(body []byte) {
	d.body = bytes.Clone(body)
	if d.hasFM && len(d.body) > 0 && !bytes.HasSuffix(d.close, []byte{'\n'}) {
		d.close = append(bytes.Clone(d.close), d.eol...)
	}
	d.Body = parseBody(d.body, nil)
}

// Format renders the document. An untouched document formats to exactly the
// bytes given to Parse; after edits only the edited keys' lines differ, and
// unknown keys, key order, comments, blank lines, the BOM, the line ending
// style and the body survive.
func (d *Document) Format() []byte {
	out := make([]byte, 0, len(utf8BOM)+len(d.open)+len(d.fm)+len(d.close)+len(d.body))
	if d.bom {
		out = append(out, utf8BOM...)
	}
	if d.hasFM {
		out = append(out, d.open...)
		out = append(out, d.fm...)
		out = append(out, d.close...)
	}
	return append(out, d.body...)
}

// Set sets a top-level front-matter key. value is one of: string; any
// integer type; bool; time.Time (written RFC 3339 in UTC, with fractional
// seconds only when present); []string; map[string]string (keys sorted) or
// []KV for small mappings such as source.
//
// An existing key keeps its position, the comment at the end of its line,
// the style of a list or mapping (flow [a, b] or block "- a" lines with the
// same indentation) and the quoting style of a quoted string; only its own
// lines change. Duplicates of the key are removed. A new key is appended at
// the end of the front matter, so callers choose the order by the order of
// their Set calls. A document without front matter gets one.
//
// Strings are quoted only when YAML needs it (including YAML 1.1 words such
// as "yes" and "off" that other tools read as booleans). Set refuses, and
// leaves the document unchanged, when the front matter is broken
// (ErrSyntax), the value has an unsupported type or invalid UTF-8
// (ErrValue), or the result would not decode as the field requires
// (ErrType, e.g. created_at set to "yesterday").
func (d *Document) Set(key string, value any) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("set %q: %w", key, err)
	}
	if d.fmErr != nil {
		return fmt.Errorf("set %q: %w", key, d.fmErr)
	}
	v, err := newValue(value)
	if err != nil {
		return fmt.Errorf("set %q: %w", key, err)
	}
	saved := d.save()
	if !d.hasFM {
		d.hasFM = true
		d.open = []byte("---" + d.eol)
		d.close = []byte("---" + d.eol)
		d.fm = nil
	}
	inTree := func() error {
		if err := d.rewriteTree(func(root *yaml.Node) error { return setInTree(root, key, v) }); err != nil {
			return err
		}
		return d.refresh(key)
	}
	wantKeys := d.Keys()
	if !slices.Contains(wantKeys, key) {
		wantKeys = append(wantKeys, key)
	}
	if d.root != nil && !d.lineEditable() {
		err = inTree()
	} else if err = d.setLines(key, v); err == nil {
		err = d.refresh(key)
		if errors.Is(err, ErrSyntax) || (err == nil && !slices.Equal(uniqueKeys(d.Keys()), uniqueKeys(wantKeys))) {
			// The line edit broke the YAML, or moved keys in or out of the
			// top-level mapping: a layout the spans misjudge (yaml.v3 is
			// lenient about some indentation). Re-encode instead.
			d.fm = saved.fm
			d.root = saved.root
			err = inTree()
		}
	}
	if err != nil {
		d.restore(saved)
		return fmt.Errorf("set %q: %w", key, err)
	}
	return nil
}

// Delete removes a top-level key (every occurrence) and its lines; comment
// lines above the key stay. It does nothing when the key is absent or the
// front matter is broken, or when removing the key would break the YAML (an
// anchor used elsewhere).
func (d *Document) Delete(key string) {
	if d.root == nil || d.fmErr != nil || findKey(d.root, key) < 0 {
		return
	}
	saved := d.save()
	inTree := func() error {
		err := d.rewriteTree(func(root *yaml.Node) error {
			for _, i := range slices.Backward(keyIndices(root, key)) {
				root.Content = slices.Delete(root.Content, i, i+2)
			}
			return nil
		})
		if err != nil {
			return err
		}
		return d.refresh("")
	}
	var err error
	if d.lineEditable() {
		lines := newLineIndex(d.fm)
		var edits []edit
		for _, i := range keyIndices(d.root, key) {
			start, end := d.span(lines, i)
			edits = append(edits, edit{lines.start(start), lines.start(end + 1), nil})
		}
		d.fm = applyEdits(d.fm, edits)
		if err = d.refresh(""); err != nil {
			d.fm = saved.fm
			err = inTree()
		}
	} else {
		err = inTree()
	}
	if err != nil {
		d.restore(saved)
	}
}

type savedState struct {
	hasFM             bool
	open, fm, closing []byte
	root              *yaml.Node
	fmErr             error
	meta              Meta
}

func (d *Document) save() savedState {
	return savedState{d.hasFM, d.open, d.fm, d.close, d.root, d.fmErr, d.Meta}
}

func (d *Document) restore(s savedState) {
	d.hasFM, d.open, d.fm, d.close, d.root, d.fmErr, d.Meta = s.hasFM, s.open, s.fm, s.closing, s.root, s.fmErr, s.meta
}

// refresh re-parses the edited front matter. It fails when the edit broke
// the YAML (a safety net: an edit must never produce a file that no longer
// parses) or when the key just set does not decode.
func (d *Document) refresh(key string) error {
	diags := d.decodeFrontMatter(nil, nil)
	if d.fmErr != nil {
		return d.fmErr
	}
	for _, e := range diags {
		if key != "" && e.Field == key && !errors.Is(e, ErrDuplicateKey) {
			return e.Err
		}
	}
	return nil
}

func checkKey(key string) error {
	if key == "" || !utf8.ValidString(key) || strings.ContainsAny(key, "\r\n") {
		return fmt.Errorf("%w: bad key", ErrValue)
	}
	return nil
}

func keyIndices(m *yaml.Node, key string) []int {
	var idx []int
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			idx = append(idx, i)
		}
	}
	return idx
}

// value is a Set argument normalised to what the renderers need.
type value struct {
	kind   yaml.Kind // ScalarNode, SequenceNode or MappingNode
	text   string    // scalar: the value as a string
	tag    string    // scalar: "!!str" for strings (quoted when needed), else written plain
	items  []string  // sequence items
	fields []KV      // mapping entries
	sorted bool      // fields came from a Go map: order is ours to choose
}

func newValue(v any) (value, error) {
	switch v := v.(type) {
	case string:
		return value{kind: yaml.ScalarNode, text: v, tag: "!!str"}, checkText(v)
	case bool:
		return value{kind: yaml.ScalarNode, text: strconv.FormatBool(v), tag: "!!bool"}, nil
	case int:
		return intValue(int64(v)), nil
	case int8:
		return intValue(int64(v)), nil
	case int16:
		return intValue(int64(v)), nil
	case int32:
		return intValue(int64(v)), nil
	case int64:
		return intValue(v), nil
	case uint:
		return value{kind: yaml.ScalarNode, text: strconv.FormatUint(uint64(v), 10), tag: "!!int"}, nil
	case uint8:
		return intValue(int64(v)), nil
	case uint16:
		return intValue(int64(v)), nil
	case uint32:
		return intValue(int64(v)), nil
	case uint64:
		return value{kind: yaml.ScalarNode, text: strconv.FormatUint(v, 10), tag: "!!int"}, nil
	case time.Time:
		return value{kind: yaml.ScalarNode, text: formatTime(v), tag: "!!timestamp"}, nil
	case []string:
		for _, s := range v {
			if err := checkText(s); err != nil {
				return value{}, err
			}
		}
		return value{kind: yaml.SequenceNode, items: slices.Clone(v)}, nil
	case map[string]string:
		fields := make([]KV, 0, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			fields = append(fields, KV{k, v[k]})
		}
		val, err := mapValue(fields)
		val.sorted = true
		return val, err
	case []KV:
		return mapValue(slices.Clone(v))
	}
	return value{}, fmt.Errorf("%w: type %T", ErrValue, v)
}

func intValue(i int64) value {
	return value{kind: yaml.ScalarNode, text: strconv.FormatInt(i, 10), tag: "!!int"}
}

func mapValue(fields []KV) (value, error) {
	for _, f := range fields {
		if err := checkText(f.Key); err != nil {
			return value{}, err
		}
		if err := checkText(f.Value); err != nil {
			return value{}, err
		}
	}
	return value{kind: yaml.MappingNode, fields: fields}, nil
}

func checkText(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: invalid UTF-8", ErrValue)
	}
	return nil
}

// formatTime writes t in UTC, RFC 3339, with fractional seconds only when
// t has them.
func formatTime(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond() != 0 {
		return t.Format(time.RFC3339Nano)
	}
	return t.Format(time.RFC3339)
}

// lineEditable reports whether every top-level key starts its own line, the
// precondition for line edits. Otherwise (a flow mapping, "? key" syntax)
// edits re-encode the tree.
func (d *Document) lineEditable() bool {
	r := d.root
	if r == nil {
		return true
	}
	if r.Style&yaml.FlowStyle != 0 {
		return false
	}
	lines := newLineIndex(d.fm)
	prev := 0
	for i := 0; i+1 < len(r.Content); i += 2 {
		k, v := r.Content[i], r.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Line <= prev || k.Line > lines.n() || v.Line < k.Line {
			return false
		}
		line := lines.line(k.Line)
		if k.Column < 1 || k.Column-1 > len(line) || len(bytes.TrimLeft(line[:k.Column-1], " ")) != 0 {
			return false
		}
		prev = k.Line
	}
	return true
}

// setLines sets key by replacing its lines, or appending new ones.
func (d *Document) setLines(key string, v value) error {
	lines := newLineIndex(d.fm)
	var idx []int
	if d.root != nil {
		idx = keyIndices(d.root, key)
	}
	if len(idx) == 0 {
		indent := ""
		if d.root != nil && len(d.root.Content) > 0 {
			indent = strings.Repeat(" ", d.root.Content[0].Column-1)
		}
		keyText, err := scalarText(key, 0)
		if err != nil {
			return err
		}
		entry, err := d.renderEntry(indent+keyText, v, layout{}, lineComment{})
		if err != nil {
			return err
		}
		at := len(d.fm)
		if end := docEndLine(lines); end > 0 {
			at = lines.start(end) // stay in the first YAML document
		}
		d.fm = applyEdits(d.fm, []edit{{at, at, entry}})
		return nil
	}

	k, old := d.root.Content[idx[0]], resolveAlias(d.root.Content[idx[0]+1])
	if v.sorted && old.Kind == yaml.MappingNode {
		v.fields = orderLike(old, v.fields)
	}
	start, end := d.span(lines, idx[0])
	keyLine := trimEOL(lines.line(start))
	var comment lineComment
	if c := commentStart(keyLine, k.Column-1); c >= 0 {
		text := bytes.TrimLeft(keyLine[c:], " \t")
		comment = lineComment{
			gap:  string(keyLine[c : len(keyLine)-len(text)]),
			text: string(text),
			col:  utf8.RuneCount(keyLine[:len(keyLine)-len(text)]),
		}
	}
	keyText, err := scalarText(k.Value, k.Style)
	if err != nil {
		return err
	}
	entry, err := d.renderEntry(string(keyLine[:k.Column-1])+keyText, v, layoutOf(d.root.Content[idx[0]+1], lines), comment)
	if err != nil {
		return err
	}
	edits := []edit{{lines.start(start), lines.start(end + 1), entry}}
	for _, i := range idx[1:] {
		s, e := d.span(lines, i)
		edits = append(edits, edit{lines.start(s), lines.start(e + 1), nil})
	}
	d.fm = applyEdits(d.fm, edits)
	return nil
}

// orderLike orders fields as the keys of the mapping old, new keys last
// (in their given order), so rewriting a mapping from a Go map keeps the
// file's order.
func orderLike(old *yaml.Node, fields []KV) []KV {
	pos := func(key string) int {
		if i := findKey(old, key); i >= 0 {
			return i
		}
		return len(old.Content)
	}
	slices.SortStableFunc(fields, func(a, b KV) int { return pos(a.Key) - pos(b.Key) })
	return fields
}

// span returns the first and last front-matter line of the entry whose key
// is root.Content[i]: from the key line to the line before the next key,
// without trailing blank lines and outer-level comment lines (those belong
// to the next key or to the file).
func (d *Document) span(lines lineIndex, i int) (start, end int) {
	k := d.root.Content[i]
	start = k.Line
	next := lines.n() + 1
	if i+2 < len(d.root.Content) {
		next = d.root.Content[i+2].Line
	} else if l := docEndLine(lines); l > start {
		next = l
	}
	end = next - 1
	for end > start {
		line := trimEOL(lines.line(end))
		t := bytes.TrimLeft(line, " \t")
		if len(t) == 0 || t[0] == '#' && len(line)-len(t) <= k.Column-1 {
			end--
			continue
		}
		break
	}
	return start, end
}

// docEndLine returns the line of the first "..." document end marker, 0 if
// none. Lines after it are not part of the front matter's mapping.
func docEndLine(lines lineIndex) int {
	for l := 1; l <= lines.n(); l++ {
		if string(bytes.TrimRight(lines.line(l), " \t\r\n")) == "..." {
			return l
		}
	}
	return 0
}

// layout is how an existing value was written, so a new value can follow it.
type layout struct {
	anchor string     // anchor of the old value, kept so aliases still resolve
	kind   yaml.Kind  // kind of the old value
	block  bool       // block list or mapping (one entry per line)
	prefix string     // block: text before each entry ("  - " or "  ")
	style  yaml.Style // scalar: quoting style of a string
}

func layoutOf(old *yaml.Node, lines lineIndex) layout {
	lay := layoutOfValue(resolveAlias(old), lines)
	if old.Kind != yaml.AliasNode {
		lay.anchor = old.Anchor
	}
	return lay
}

func layoutOfValue(old *yaml.Node, lines lineIndex) layout {
	switch old.Kind {
	case yaml.ScalarNode:
		if old.ShortTag() == "!!str" {
			return layout{style: old.Style & (yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle)}
		}
	case yaml.SequenceNode, yaml.MappingNode:
		if old.Style&yaml.FlowStyle != 0 || len(old.Content) == 0 {
			break
		}
		first := old.Content[0]
		if first.Line < 1 || first.Line > lines.n() {
			break
		}
		line := trimEOL(lines.line(first.Line))
		ws := len(line) - len(bytes.TrimLeft(line, " "))
		if old.Kind == yaml.MappingNode {
			return layout{kind: old.Kind, block: true, prefix: string(line[:ws])}
		}
		if ws < len(line) && line[ws] == '-' {
			j := ws + 1
			for j < len(line) && line[j] == ' ' {
				j++
			}
			return layout{kind: old.Kind, block: true, prefix: string(line[:j])}
		}
		return layout{kind: old.Kind, block: true, prefix: "  - "}
	}
	return layout{}
}

// lineComment is the "# comment" at the end of a key's line.
type lineComment struct {
	gap  string // blanks between the value and the '#'
	text string // from the '#' to the end of the line
	col  int    // 0-based column (in runes) of the '#'
}

// after renders the comment after a first line of n runes: at its old column
// when it was aligned there with several blanks and still fits, else after
// the old gap.
func (c lineComment) after(n int) string {
	if c.text == "" {
		return ""
	}
	if len(c.gap) > 1 && !strings.Contains(c.gap, "\t") && n < c.col {
		return strings.Repeat(" ", c.col-n) + c.text
	}
	return c.gap + c.text
}

// renderEntry renders "head: value" lines (with d's line ending) for v,
// following lay, with comment kept at the end of the first line.
func (d *Document) renderEntry(head string, v value, lay layout, comment lineComment) ([]byte, error) {
	var b strings.Builder
	b.WriteString(head)
	b.WriteByte(':')
	if lay.anchor != "" {
		b.WriteString(" &" + lay.anchor)
	}
	first := func(text string) {
		if text != "" {
			b.WriteString(" " + text)
		}
		b.WriteString(comment.after(utf8.RuneCountInString(b.String())) + d.eol)
	}
	switch {
	case v.kind == yaml.ScalarNode:
		text := v.text
		if v.tag == "!!str" {
			var err error
			if text, err = scalarText(v.text, lay.style); err != nil {
				return nil, err
			}
		}
		first(text)
	case lay.block && lay.kind == v.kind && (len(v.items) > 0 || len(v.fields) > 0):
		first("")
		for _, item := range v.items {
			text, err := scalarText(item, 0)
			if err != nil {
				return nil, err
			}
			b.WriteString(lay.prefix + text + d.eol)
		}
		for _, f := range v.fields {
			k, err := scalarText(f.Key, 0)
			if err != nil {
				return nil, err
			}
			val, err := scalarText(f.Value, 0)
			if err != nil {
				return nil, err
			}
			b.WriteString(lay.prefix + k + ": " + val + d.eol)
		}
	default:
		text, err := flowText(v)
		if err != nil {
			return nil, err
		}
		first(text)
	}
	return []byte(b.String()), nil
}

// yaml11Words are plain scalars that YAML 1.2 (and yaml.v3) read as strings
// but YAML 1.1 tools read as booleans: quote them so every reader agrees.
var yaml11Words = []string{"y", "yes", "n", "no", "on", "off"}

// scalarNode builds a string node, forcing double quotes where the plain or
// single-quoted form would be multi-line or ambiguous.
func scalarNode(s string, style yaml.Style) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: style}
	if slices.Contains(yaml11Words, strings.ToLower(s)) ||
		strings.ContainsAny(s, "\n\r\u0085\u2028\u2029") {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// scalarText renders a string as a one-line YAML scalar, letting yaml.v3
// decide the quoting (style asks for a quoting style; 0 means plain when
// possible).
func scalarText(s string, style yaml.Style) (string, error) {
	return encodeLine(scalarNode(s, style))
}

// flowText renders a list or mapping in flow style: [a, b] or {k: v}.
func flowText(v value) (string, error) {
	n := &yaml.Node{Kind: v.kind, Style: yaml.FlowStyle}
	if v.kind == yaml.SequenceNode {
		n.Tag = "!!seq"
		for _, item := range v.items {
			n.Content = append(n.Content, scalarNode(item, 0))
		}
	} else {
		n.Tag = "!!map"
		for _, f := range v.fields {
			n.Content = append(n.Content, scalarNode(f.Key, 0), scalarNode(f.Value, 0))
		}
	}
	return encodeLine(n)
}

func encodeLine(n *yaml.Node) (string, error) {
	out, err := yaml.Marshal(n)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrValue, err)
	}
	s := strings.TrimSuffix(string(out), "\n")
	if strings.ContainsAny(s, "\n\r") {
		return "", fmt.Errorf("%w: %q does not fit on one line", ErrValue, n.Value)
	}
	return s, nil
}

// valueNode builds the YAML node for v (for the tree re-encoding path).
func valueNode(v value) *yaml.Node {
	switch v.kind {
	case yaml.ScalarNode:
		if v.tag == "!!str" {
			return scalarNode(v.text, 0)
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: v.tag, Value: v.text}
	case yaml.SequenceNode:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for _, item := range v.items {
			n.Content = append(n.Content, scalarNode(item, 0))
		}
		return n
	default:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
		for _, f := range v.fields {
			n.Content = append(n.Content, scalarNode(f.Key, 0), scalarNode(f.Value, 0))
		}
		return n
	}
}

func setInTree(root *yaml.Node, key string, v value) error {
	idx := keyIndices(root, key)
	if len(idx) == 0 {
		root.Content = append(root.Content, scalarNode(key, 0), valueNode(v))
		return nil
	}
	for _, i := range slices.Backward(idx[1:]) {
		root.Content = slices.Delete(root.Content, i, i+2)
	}
	root.Content[idx[0]+1] = valueNode(v)
	return nil
}

// rewriteTree applies mutate to the node tree and re-encodes the whole front
// matter. It is the fallback for layouts line edits cannot handle; comments
// survive but formatting may not.
func (d *Document) rewriteTree(mutate func(*yaml.Node) error) error {
	var root *yaml.Node
	if !isBlankYAML(d.fm) { // blank as Parse saw it: yaml.v3 refuses a tab-only line (fuzz find)
		var err error
		if root, _, err = fullYAML(d.fm); err != nil { // with comments, unlike fastYAML's tree
			return err
		}
	}
	if root == nil {
		root = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	if err := mutate(root); err != nil {
		return err
	}
	root.Style &^= yaml.FlowStyle
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("%w: %w", ErrValue, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrValue, err)
	}
	out := buf.Bytes()
	if len(root.Content) == 0 {
		out = nil
	}
	if d.eol == "\r\n" {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	d.fm = out
	return nil
}

// commentStart returns the index in line (without its line ending) of the
// blanks before a trailing "# comment", or -1. Scanning starts at from (the
// key) and skips quoted scalars, so "a #b" in quotes is not a comment.
func commentStart(line []byte, from int) int {
	var quote byte
	tokenStart := true // a quote here opens a quoted scalar
	for i := from; i < len(line); i++ {
		c := line[i]
		if quote != 0 {
			switch {
			case quote == '"' && c == '\\':
				i++
			case c == quote && quote == '\'' && i+1 < len(line) && line[i+1] == '\'':
				i++
			case c == quote:
				quote = 0
			}
			continue
		}
		switch {
		case c == '#' && i > from && (line[i-1] == ' ' || line[i-1] == '\t'):
			j := i
			for j > from && (line[j-1] == ' ' || line[j-1] == '\t') {
				j--
			}
			return j
		case (c == '"' || c == '\'') && tokenStart:
			quote = c
		}
		tokenStart = c == ' ' || c == '\t' || c == '[' || c == '{' || c == ','
	}
	return -1
}

// lineIndex gives access to the lines of a text by 1-based number.
type lineIndex struct {
	b      []byte
	starts []int // starts[i] is the offset of line i+1; starts[n] == len(b)
}

func newLineIndex(b []byte) lineIndex {
	starts := []int{0}
	for i, c := range b {
		if c == '\n' && i+1 < len(b) {
			starts = append(starts, i+1)
		}
	}
	if len(b) == 0 {
		return lineIndex{b: b, starts: starts}
	}
	return lineIndex{b: b, starts: append(starts, len(b))}
}

func (l lineIndex) n() int { return len(l.starts) - 1 }

// start returns the offset of line n (len(b) for n past the end).
func (l lineIndex) start(n int) int {
	if n-1 >= len(l.starts) {
		return len(l.b)
	}
	return l.starts[n-1]
}

// line returns line n with its line ending.
func (l lineIndex) line(n int) []byte { return l.b[l.start(n):l.start(n+1)] }

// edit replaces b[from:to] with text.
type edit struct {
	from, to int
	text     []byte
}

// applyEdits applies non-overlapping edits given in original offsets.
func applyEdits(b []byte, edits []edit) []byte {
	slices.SortFunc(edits, func(x, y edit) int { return x.from - y.from })
	out := make([]byte, 0, len(b)+64)
	at := 0
	for _, e := range edits {
		out = append(out, b[at:e.from]...)
		out = append(out, e.text...)
		at = e.to
	}
	return append(out, b[at:]...)
}

// uniqueKeys drops repeated keys, keeping first occurrences: Set removes
// duplicates of the key it writes.
func uniqueKeys(keys []string) []string {
	out := make([]string, 0, len(keys))
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
