// Package index is memvault's full-text relevance engine.
//
// It turns memories (title, aliases, tags and a plain-text body) into an
// in-memory inverted index and answers free-text queries in Chinese, English
// or a mix of both with field-weighted BM25 (BM25F). The vault package wraps
// it with time and layer ranking, filters and files; this package knows
// nothing about layers, clocks or Markdown.
//
// # Analysis
//
// [Tokenize] is the analyzer used for both documents and queries. CJK text
// becomes overlapping bigrams (a lone character stays a unigram), after
// Chinese function and question words (的, 了, 什么, 怎么...) split the run.
// Latin text becomes lowercase words with a light Porter-style stemmer
// (plurals, -ed, -ing, final y and e). Identifiers keep their whole form and
// add their parts: "OrderCreated" gives order, creat and ordercreated;
// "ops/deploy.sh" gives ops, deploy, sh, deploy.sh and ops/deploy.sh;
// versions such as 3.8.0 stay whole (and also answer to 3.8). Full-width
// ASCII is folded. A small English stop list is dropped.
//
// # Scoring
//
// Relevance is BM25F over four fields (title weight 3, aliases 2.5, tags
// 2.5, body 1; k1 1.2), with per-field length normalisation, multiplied by
// the query's coverage. Each query term weighs 1, except identifier parts
// typed inside a larger identifier (0.5), lone CJK characters (0.3) and
// expansions.
//
// Queries are expanded from three sources. terms.txt is an embedded,
// curated bilingual software-engineering dictionary (about 760 synonym
// groups and Chinese and English paraphrase families; its header documents
// the format): an expansion weighs 0.5, or 0.8 when the typed word occurs
// in no document; one-way paraphrase families (question words leading to
// answer words) weigh 0.3. cedict.tab is a general Chinese-English word
// list pruned from CC-CEDICT (cedict.txt.gz; see gen/cedict and
// CEDICT-LICENSE.txt), compiled into sorted tables that lookups search in
// place, so a process pays nothing to load it: a Chinese word's senses
// weigh 0.4 and a
// one-word English sense's Chinese words 0.3, only those the index
// contains. And the index learns translations from its own documents (see
// cooc.go): for a typed word that neither dictionary translated, the terms
// of the other script that go with it in the short fields (title, aliases,
// tags) of the documents whose short fields contain it, weighing 0.5 x
// their confidence. A multi-token expansion shares its weight (divided by
// the square root of the number of tokens). In indexes of 5000 documents
// or more, expansions that occur in over 5% of them are skipped; at most
// 32 expansion terms are used.
//
// The query is also split into concepts: a typed word, an identifier and
// its parts, a dictionary word and the bigrams inside it, or a CJK bigram
// no dictionary word covers (one that crosses a dictionary word's edge, or
// occurs nowhere, counts half). A document covers a concept when it
// contains any of its terms, typed or translated (a multi-token
// translation only when it contains all its tokens; a Chinese word of
// several bigrams is covered in part by each); coverage is the
// idf-weighted share of concepts covered, and relevance is BM25F x
// coverage, so a document that answers the whole question outranks one
// that repeats one of its words. [Index.Explain] shows all of this for one
// document. docs/ranking.md gives every constant and why.
//
// # Results
//
// [Index.Search] returns [Hit] values sorted by Score (after Query.Weight)
// and then by ID. Hit.Relevance is the score above; it grows with the
// number and rarity of matched terms, so it is only comparable within one
// query. Hit.Coverage, Matched and Concepts say how much of the query the
// document covers. Hit.Norm divides the BM25F part by the relevance an
// ideal document would get (every typed term once in its title and once in
// its body), capped at 1; typed terms that no document contains still
// count against it. Hit.Terms lists the index terms the document matched,
// for [Snippet].
//
// # Concurrency and cost
//
// Put, PutBatch, PutPrepared, Trim and Delete must be serialised by the caller and must not run
// while a Search is in flight; any number of Searches may run at once.
// Replacing or deleting a document retires its slot; retired slots are
// dropped from the postings by a compaction once they reach a fifth of all
// slots, so updates never scan posting lists in the common case. PutBatch
// gives the same index as Put in order, for bulk loads: it analyses chunks
// of documents ahead on other CPUs and inserts each chunk into the four
// hash shards of the vocabulary in parallel. A loader that reads documents
// on several goroutines can instead analyse them there with a [Preparer]
// and insert each with [Index.PutPrepared], or into a new index through a
// [Bulk], which holds postings back and adds them in batches sorted by
// term (far fewer cache misses), then call [Index.Trim] to give back the
// posting lists' spare capacity. [Index.WriteTo] and
// [Index.ReadFrom] save and load a validated, checksummed snapshot, so a
// large vault can reload its index instead of rebuilding it.
package index
