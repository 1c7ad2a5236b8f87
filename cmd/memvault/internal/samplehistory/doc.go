// Package samplehistory replays the sample vault's history
// (sample-vault/history.json) into a new git repository: one commit per
// step, dated and signed as in the sample, with memvault's commit
// messages, so history, why, diff and recall --as-of have a past to show.
// The sample-history command and the demo use it.
package samplehistory
