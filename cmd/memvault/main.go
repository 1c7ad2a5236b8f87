// Command memvault is the long-term memory of AI coding assistants, kept
// as Markdown in the project's git repository: a CLI for people and an MCP
// server for assistants.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/memvault/memvault/cmd/memvault/internal/memlimit"
)

func main() {
	memlimit.Apply(os.Getenv)
	stopProfiles := startProfiles(os.Getenv, os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	m := NewMain(os.Stdin, os.Stdout, os.Stderr)
	m.OneShot = func() func() { return memlimit.OneShot(os.Getenv) }
	code := m.Run(ctx, os.Args[1:])
	stop()
	stopProfiles()
	os.Exit(code)
}
