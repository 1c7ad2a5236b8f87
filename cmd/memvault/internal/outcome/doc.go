// Package outcome is the one table from a failure's kind (vault/fault)
// to what each door does with it: the CLI's exit status and what an MCP
// tool error tells the model. Neither door lists sentinel errors.
package outcome
