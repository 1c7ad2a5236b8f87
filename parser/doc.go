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
//
// Documents keep the original bytes. [Document.Format] of an untouched
// document returns exactly the input, and [Document.Set] / [Document.Delete]
// edit only the lines of the key they change, so comments, unknown keys, key
// order, blank lines, a UTF-8 BOM and CRLF line endings survive a rewrite and
// the git diff of an update stays minimal.
//
// The package is pure: no file I/O, no clock. It is the only home of the YAML
// and goldmark libraries in memvault.
package parser
