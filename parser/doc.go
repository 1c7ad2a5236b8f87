// Package parser converts memory files between bytes and documents.
//
// A memory file is Markdown with a YAML front matter block:
//
//	---
//	id: 01JDX3Q8W7...
//	title: Checkout uses the strategy pattern
//	layer: project
//	tags: [checkout, architecture]
//	---
//	Body: the decision and **why** (Markdown).
//
// [Parse] splits the front matter from the body, decodes the YAML node tree
// into a typed [Meta] and walks the Markdown body with goldmark into a [Body]
// (first H1, plain text for indexing, links, Obsidian wiki links and inline
// tags). It never stops at the first problem: it returns a [Document] plus
// diagnostics ([*Error]) for everything it survived, and a nil Document only
// for input that cannot be a memory at all (binary, not UTF-8, too large).
// [SeverityError] means the front matter as a whole is unusable (absent,
// not closed, not YAML, not a mapping); [SeverityWarning] means one field was
// dropped (wrong type, duplicate key: the first occurrence wins). Unknown
// keys are not diagnostics; the parser does not judge values (an unknown
// layer or an importance of 42 is the vault's call, with [Document.FieldLine]
// for the line).
//
// Documents keep the original bytes. [Document.Format] of an untouched
// document returns exactly the input. [Document.Set] and [Document.Delete]
// edit only the lines of the key they change, guided by the node tree:
// comments, unknown keys, key order, blank lines, a UTF-8 BOM and CRLF line
// endings survive, the comment at the end of an edited key's line is kept
// (at its column when it was aligned), lists keep their flow or block style
// and a quoted string its quotes. New keys are appended at the end of the
// front matter in the order they are set. Comments inside a replaced value
// (between block list items) go with it. Front matter that line edits
// cannot handle (a flow mapping at the top, "? key" syntax) is re-encoded
// whole by yaml.v3 instead. Every edit is re-parsed before it is accepted.
//
// Most front matter is a flat mapping of one-line values; a small scanner
// parses that subset (several times faster than yaml.v3, which dominated
// Parse; docs/performance.md, "Figures behind the code's comments") and
// hands anything else to yaml.v3. A differential test and a fuzz target
// hold the two to the same node trees. The body gets the same treatment:
// bodies made of what notes commonly use (headings, paragraphs, "- " and
// "1. " items, code spans, simple emphasis, plain links, wiki links, plain
// fences) are walked in one pass without building goldmark's tree,
// anything else goes to goldmark, and a differential test and a fuzz
// target check that the fast walk yields goldmark's [Body]. Bulk
// loads pass a [Scratch] so that Parse reuses its working memory.
//
// Hostile input is bounded: aliases are never expanded (and more than 100
// are refused), nesting deeper than 32 levels is refused, warnings are capped
// at 100, and goldmark, which is quadratic on some inputs, sees at most the
// first 256 KiB of the body with very long lines wrapped.
//
// The package is pure: no file I/O, no clock. It is the only home of the YAML
// and goldmark libraries in memvault.
package parser
