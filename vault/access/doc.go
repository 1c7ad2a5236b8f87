// Package access keeps a vault's access record: which memories recall
// returned, and when, in this clone. It is advice for `memvault review`
// ("never recalled in N days"), so it lives in the repository's git
// folder (.git/memvault/access-*.jsonl), per clone and never in git: a
// teammate's recalls say nothing about this clone's assistants, and
// access times committed to git would turn every recall into a change.
//
// Recording must cost a recall nothing measurable and must survive
// several processes (a server per client, CLI commands) recording at
// once. Each recall appends one line with all its ids in a single write
// to a file opened with O_APPEND: appends of a few KiB from different
// processes land whole, one after the other, on local file systems (the
// kernel serialises writes to one file). No lock, no read-modify-write:
// nothing to corrupt and nothing to wait for. A line cut short by a crash
// is skipped when read.
//
// Read folds the lines into the last access and a count per memory. The
// file grows by about 40 bytes plus 30 per id per recall; when it passes
// CompactAbove, Read rewrites it as one line per memory (a temporary file
// renamed over it). An append that lands between that read and the rename
// is lost: a recall's worth of advice, which the next recall re-records.
package access
