// Package merge merges three versions of a memory file (the common
// ancestor, ours and theirs), field by field, as git's merge driver for
// memory files does.
//
// The rules (docs/team.md lists them with their reasons): a field changed
// on one side only takes that side; both sides' list fields (tags,
// aliases, links, supersedes) merge as three-way sets, where additions from
// both sides stay and a removal on either side wins; importance takes the
// higher value, created_at the earlier, updated_at the later; status ranks
// superseded over archived over active; version becomes max(ours, theirs)+1
// when both sides changed it (to the same number too, when the merge is
// neither side's content); expires_at follows the side that moved the
// memory to another layer; keys memvault does not know are merged by the
// same one-side rule; the body is merged line by line against the base
// (diff3).
//
// What both sides changed to different values, and a body whose edits
// overlap, is a conflict: the merged file keeps our value and our body and
// records theirs in a structured "conflict" entry of its front matter, so
// that no conflict marker ever enters a memory, the file always parses and
// keeps its id, and both versions stay readable. The loader reads that
// entry ([Record]) and labels the memory conflicted.
//
// The package is pure, bytes in and bytes out, but for Driver, which reads
// and writes the files git names. It imports the parser and the standard
// library only; the text merge is its own (Myers diff, diff3).
package merge
