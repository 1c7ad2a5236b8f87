// Package view holds the JSON shapes memvault shows of its concepts: a
// memory, a recall result, a write, a forget, the vault statistics. The CLI's
// --json output and the MCP tools' structured content are the same values of
// the same types, so the two doors never name one number two ways.
//
// Views are data only: each is built from domain values by one function
// here, and each door renders its own text around it.
package view
