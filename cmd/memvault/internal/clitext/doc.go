// Package clitext writes the CLI's text for people: recall results, a
// memory, a history, why's story, a diff for a pull request, an import
// report, init's next steps. Each function takes domain values (or their
// views) and a writer; the commands decide what to show and call one.
// The JSON both doors print is the view package's; the MCP server writes
// its own text for models.
package clitext
