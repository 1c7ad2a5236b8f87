// Package sincetext renders what changed in a vault since a point
// (vault/since) as Markdown: the section memory://context opens with,
// and what `memvault digest` prints. Both doors use it, so a session and
// a person read the same lines.
package sincetext
