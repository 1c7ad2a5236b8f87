// Package index is memvault's full-text relevance engine.
//
// It turns memories (title, aliases, tags and a plain-text body) into an
// in-memory inverted index and answers free-text queries in Chinese, English
// or a mix of both with field-weighted BM25 (BM25F). The vault package wraps
// it with time and layer ranking, filters and files; this package knows
// nothing about layers, clocks or Markdown.
//
// The analyzer (see [Tokenize]) indexes CJK text as overlapping bigrams and
// Latin text as lightly stemmed lowercase words, and splits identifiers,
// paths, dotted names and versions into their parts while keeping the whole
// form, so "OrderCreated", "order created" and "ops/deploy.sh" all find what
// they should.
//
// Queries are expanded with a curated bilingual software-engineering
// dictionary (terms.txt, embedded) so that "部署" finds "deploy" and
// "how long do login credentials stay valid" finds a note about token
// lifetimes. Expanded terms count less than the words the user typed.
//
// Concurrency: Put and Delete must be serialised by the caller and must not
// run while a Search is in flight; any number of Searches may run at once.
package index
