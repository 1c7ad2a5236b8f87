// Package secret finds credentials in text before they reach git.
//
// [Scan] runs a table of rules over a byte slice and reports where each
// secret starts, by rule name, line and column, without ever carrying the
// secret itself: a [Finding] is safe to print, log and return to a client.
// [Redact] replaces what Scan finds with "[REDACTED:rule]".
//
// Each rule names keywords; a rule's regular expression runs only when one
// of its keywords occurs in the input (case-insensitively), so text without
// any keyword costs one pass over its bytes. Rules may add an entropy
// threshold and a validator that rejects placeholders ("${DB_PASSWORD}",
// "<password>", "***") and documented examples ("AKIAIOSFODNN7EXAMPLE").
//
// Scan also searches a normalised form of the text, so that a secret
// written to evade a pattern is found: invisible characters removed,
// characters whose NFKC form is ASCII folded to it (full-width, mathematical,
// circled letters), Cyrillic and Greek look-alikes read as Latin letters,
// string escapes and HTML character references decoded. Findings are
// reported at their place in the text as written.
//
// A line containing the allow marker "memvault:allow-secret" suppresses the
// findings on that line and on the line after it, for known false positives.
//
// The package is pure: no I/O, no global mutable state, standard library only.
package secret
