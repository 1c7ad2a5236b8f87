// Package commitmsg is the format of memvault's commit messages: a subject
// line, the writer's reason as the body, and trailers ("Memory-Id: ...")
// that `memvault history`, why and diff read back, and that git's own tools
// (`git log --grep`, `git interpret-trailers`) understand.
//
//	memory(project): update "Refunds run asynchronously"
//
//	gateway timeouts at 30 s
//
//	Memory-Id: 01M1JYSK001JFGN6A8F2MM0K3R
//	Memory-Layer: project
//	Memory-Client: claude-code
//
// [Message.String] writes a message and [Parse] reads one; every writer and
// every reader in memvault goes through them, so the two cannot drift. A
// reader that tells one memory's story reads with [ParseFor], which finds
// that memory's own message inside a squash merge's (git's `merge --squash`
// and GitHub's "* " list, see [Squashed]). Trailers are read through the
// "(cherry picked from commit ...)" line `git cherry-pick -x` adds.
// String sanitises what would make the text read back differently (a
// newline in the subject or a trailer value, a body line that would pass
// for a Memory-* trailer), so Parse(m.String()) == m for any message String
// leaves unchanged, and String(Parse(s)) is stable.
//
// The package is pure and imports the standard library only.
package commitmsg
