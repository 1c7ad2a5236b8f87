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
// 2.5, body 1; k1 1.2), with per-field length normalisation. Each query term
// weighs 1, except identifier parts typed inside a larger identifier (0.5),
// lone CJK characters (0.3) and dictionary expansions.
//
// Queries are expanded with terms.txt, an embedded, curated bilingual
// software-engineering dictionary (about 760 synonym groups and Chinese and
// English paraphrase families; its header documents the format). An
// expansion weighs 0.5, shared among its tokens when it has several (divided
// by the square root of their number), or 0.8 when the typed word it
// replaces occurs in no document, since then only the translation can find
// anything; one-way paraphrase families (question words such as 为什么 or
// "how long" leading to answer words) weigh 0.3. In indexes of 5000 documents or more, expansions that occur in
// over 5% of them are skipped; at most 32 expansion terms are used.
//
// # Results
//
// [Index.Search] returns [Hit] values sorted by Score (after Query.Weight)
// and then by ID. Hit.Relevance is the raw BM25F score; it grows with the
// number and rarity of matched terms, so it is only comparable within one
// query. Hit.Norm divides it by the relevance an ideal document would get
// (every typed term once in its title and once in its body), capped at 1;
// typed terms that no document contains still count against it. On the
// shared dev corpus the median correct hit has Norm 0.98 and 90% have more
// than 0.43, while the best hit for an off-topic query ("how to cook rice",
// "明天天气怎么样") lies between 0.16 and 0.53: a threshold near 0.25 drops
// most noise, and near 0.5 keeps mostly confident matches. Hit.Terms lists
// the index terms the document matched, for [Snippet].
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
