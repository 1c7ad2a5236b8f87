package demo

// Short, Long and Example are `memvault help demo`.
const (
	Short = "Run a scripted MCP session against a copy of the sample vault"
	Long  = `demo shows memvault working end to end. It replays sample-vault/ and its
history (the fictional project's code included) into a temporary git
repository, starts "memvault serve" there as a child process (as Claude Code
or Cursor would), and drives it over stdio with an MCP client: tools/list, a
recall in Chinese and one in English, a recall that finds the deploy rule
stale because the script it names was renamed, a remember that supersedes
two rival rules (one git commit), memory_history explaining why, and the
memory://context digest. Each step checks its answer; the command exits 0
only when every step behaved.`
	Example = `  go run ./cmd/memvault demo
  memvault demo --keep      # keep the repository and print its path
  memvault demo --json      # one JSON object per step: request, response, check`
)
