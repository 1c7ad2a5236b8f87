// Package inject decides what memory reaches an assistant without being
// asked, through the client's own hooks: the digest at session start and
// the memories that answer the prompt at each task. It holds the rules
// (which memories, how many, how long, when nothing at all), so that
// every door that injects (Claude Code's hooks, Cursor, the web view's
// preview) gives the same answer; each door only renders it in its
// client's format.
//
// "Better to give less than to flood the prompt": at most MaxMemories
// memories, each whole up to FullRunes runes and cut to a SummaryRunes
// summary beyond, and nothing when no memory answers the prompt.
// Injected text is data, not instructions: Clean removes control and
// escape characters, and a memory that holds a secret (a hand edit the
// write path never saw) is never injected.
package inject
