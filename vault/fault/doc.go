// Package fault names the kinds of failure (invalid input, not found,
// conflict, a refused secret, git state, internal ...) that the domain's
// errors carry, so both doors, the CLI and the MCP server, answer a
// failure from its kind through one table
// (cmd/memvault/internal/outcome) instead of each listing sentinels.
//
// A sentinel gets its kind where it is declared: fault.New in the domain
// and the command's packages, an ErrorKind method returning one of these
// words in the adapters, which do not import the domain. Of reads the
// kind through any wrapping.
package fault
