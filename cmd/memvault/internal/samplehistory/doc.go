// Package samplehistory replays the sample vault's history
// (sample-vault/history.json) into a new git repository: one commit per
// step, dated and signed as in the sample, with memvault's commit
// messages, so history, why, diff and recall --as-of have a past to show.
// Code steps commit the fictional project's code (services/, ops/, ...)
// in between, so the memories' refs point at files with a history: some
// memories are stale on the replayed history for real reasons (a renamed
// script, a rewritten module), others fresh.
// The sample-history command and the demo use it.
package samplehistory
