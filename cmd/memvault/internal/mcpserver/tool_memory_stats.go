package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// noArgs are the arguments of a tool that takes none.
type noArgs struct{}

func memoryStatsTool() mcp.Tool {
	return mcp.NewTool("memory_stats", append(readOnly("Memory statistics"),
		mcp.WithDescription(`Summarise the memory vaults (the project's, and the user's when one is served): where they are, how many memories per layer and status, the files with problems (broken front matter served from their last good version, secrets), git HEAD, the index's size and age, and on a team server (serve --pull-interval) its last sync round (a failed step, broken memory files left out of the sync, each with its fix). `+
			`Call it to check the vault is reachable or when recall returns surprisingly little. Example: {}`),
		strictOutputSchema[view.Stats]())...)
}

// objectCounter is a Repo that can count its object store
// (cmd/memvault's): memory_stats reports it when it can.
type objectCounter interface {
	// GitObjects counts the object store; nil when it cannot.
	GitObjects() *view.GitObjects
}

func (s *Server) memoryStats(ctx context.Context, vs *openVaults, _ noArgs) (string, any, error) {
	var out view.Stats
	var text string
	for i, m := range vs.Members() {
		// The index age is this process's wall clock, not the ranking
		// clock: it describes the server, not the data.
		st := view.VaultStatsOf(m.Vault, vs.head(ctx, m.Name), time.Now())
		var op *vault.OperationError
		if err := m.Vault.OperationInProgress(ctx); errors.As(err, &op) {
			st.GitOperation, st.WritesRefused = op.Op, op.Error()
		}
		if sl := vs.slot(m.Name); sl != nil {
			if oc, ok := sl.Git.(objectCounter); ok {
				st.GitObjects = oc.GitObjects()
			}
		}
		b, err := json.Marshal(st)
		if err != nil {
			return "", nil, err
		}
		if i == 0 {
			out.VaultStats = st
			text = fmt.Sprintf("%d memories in %s: %s", st.Total, st.Vault, b)
			continue
		}
		out.UserVault = &st
		text += fmt.Sprintf("\nuser vault: %d memories in %s: %s", st.Total, st.Vault, b)
	}
	if s.syncStatus != nil {
		if st := s.syncStatus(); st != nil {
			out.Sync = st
			b, err := json.Marshal(st)
			if err != nil {
				return "", nil, err
			}
			text += fmt.Sprintf("\nteam sync: %s", b)
		}
	}
	return text, out, nil
}
