package mcpserver

// ServeHelp is `memvault serve --help`.
const ServeHelp = `serve runs an MCP server on standard input and output for Claude Code, Cursor
and other MCP clients. Standard output carries only the protocol; one log
line per tool call goes to standard error (or --log-file). Every write is a
git commit whose Memory-Client trailer names the client (its
clientInfo.name, else "mcp"). The vault is indexed in the background:
initialize is answered at once and the first tool call waits for the index.
Nothing is created on disk until the first write.

Without --vault the project vault is .memory at the git root of the
working directory, else at the git root of the first root the client
reports (MCP roots). The user vault (--user-vault, default ~/.memvault
when it exists) holds preferences that follow the developer across
projects; recall searches both. See docs/mcp.md.

With --http and --tokens FILE (one line per person: token, name, email;
# comments; the file must not be readable by group or others) it is a
team server: a request carries one person's token, and that person
authors its writes. The file is read again when it changes; a session
serves only the token that opened it. During a git merge, rebase or cherry-pick the server
keeps serving (files in conflict as last committed, labelled conflicted)
and refuses writes, saying what to run.

--pull-interval DURATION (e.g. 1m; 0, the default, is off) keeps the
server in step with the remote: at every interval it runs memvault sync's
steps in merge mode (commit pending memory files, fetch, merge through the
memory merge driver, resolve, lint), and with --push pushes the result, so
that the memories written through the server reach the remote. A failed
sync is logged with the step that failed and tried again at the next
interval; while it leaves a merge stopped for a person, writes are refused
as above. See docs/team.md.`
