// Package review builds the report that keeps a vault healthy, for a
// person (memvault review) and an assistant (memory://review): which
// memories need attention and why, in sections a lead can act on:
//
//   - stale: memories whose code moved on (vault/staleness), stale first;
//   - expiring: rules (L3 decisions, L4 preferences) that expire or take
//     effect in the next N days;
//   - rivals: rules in force that look like rivals on one subject (the
//     criteria recall uses for possible_conflict) and are not
//     near-duplicates;
//   - conflicted: files a git merge left in conflict (a conflict record,
//     or markers);
//   - duplicates: near-duplicate memories (titles alike in one layer) and
//     L2 notes on one topic that should become one, each cluster with a
//     suggested merged title;
//   - dangling: links and supersedes naming no memory of the vault, refs
//     that do not parse;
//   - unused: memories no recall returned in N days, from the clone's
//     access record (vault/access).
//
// Build is pure: the memories, their staleness, the conflicted files and
// the access summary come in, with the instant to judge at; no clock, no
// I/O. Both doors gather the inputs and call it, so they report the same.
package review
