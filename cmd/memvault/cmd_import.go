package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/transfer"
)

func (m *Main) importCommand() *cobra.Command {
	var format, layer, reason string
	var skip []string
	var dryRun, asJSON, verbose bool
	cmd := &cobra.Command{
		Use:   "import FILE|DIR",
		Short: "Import memories from an export, an MCP memory.jsonl or Markdown notes, as one commit",
		Long: `import reads memories from:

  - memvault's own JSONL export (same ids, fields and bodies);
  - the knowledge graph file of the MCP memory server (memory.jsonl): one
    memory per entity, relations as links and a Relations section;
  - a Markdown file or a folder of notes: a Cline memory bank
    (activeContext.md and progress.md go to short-term, the rest to
    project), CLAUDE.md/AGENTS.md split at "##" sections, other notes one
    memory each; a folder laid out like a vault (a markdown export) is
    read as the vault reads it.

The format is detected; --format forces it. Every memory passes the secret
guard: one holding a secret is skipped and reported by rule and position.
Files that hold credentials are never opened (.env*, *.pem, *.key, id_rsa*,
secrets/, .aws/, .ssh/, ...; --skip adds patterns), symbolic links are not
followed, and malformed lines or oversized items are reported with their
file and line and skipped. Everything imported lands in one commit;
importing the same source again skips what is already there. --dry-run
shows what would happen and writes nothing. See docs/import-export.md.

The exit status is 3 when items of the source were refused (a secret, a
malformed line, an invalid or oversized item), after the rest was imported;
files left unread by a pattern, links not followed and items already
imported unchanged do not count.`,
		Example: `  memvault import ~/.mcp/memory.jsonl --dry-run
  memvault import memory-bank/
  memvault import CLAUDE.md --layer preference
  memvault import notes/ --skip 'drafts/' --skip '*.private.md'`,
		Args: exactArgs(1, "FILE or DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			f, err := transfer.ParseFormat(format)
			if err != nil {
				return usageError{fmt.Errorf("--format: %w", err)}
			}
			opts := transfer.ReadOptions{Format: f, Skip: skip}
			if layer != "" {
				if opts.Layer, err = parseLayerFlag(layer); err != nil {
					return err
				}
			}
			if dir, err := m.resolveVaultDir(); err == nil {
				opts.Exclude = []string{dir} // never import the vault into itself
			}
			src, err := transfer.Read(ctx, args[0], opts)
			if err != nil {
				return usageError{err}
			}
			var v *vault.Vault
			if dryRun {
				v, err = m.openVault(ctx)
			} else {
				var store *gitstore.Store
				v, store, err = m.openGitVault(ctx, true)
				if err == nil {
					defer store.Close()
				}
			}
			if err != nil {
				return err
			}
			if reason == "" {
				reason = fmt.Sprintf("Imported from %s (%s).", filepath.Base(filepath.Clean(args[0])), src.Format)
			}
			bar := clitext.NewProgress(m.Stderr, "importing")
			rep, err := transfer.Import(ctx, v, src, vault.Author{Reason: reason}, transfer.ImportOptions{DryRun: dryRun, Progress: bar.Set})
			bar.Done()
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(m.Stdout, importJSON(rep, src)); err != nil {
					return err
				}
			} else {
				clitext.Import(m.Stdout, rep, src, verbose || dryRun)
			}
			if n := rep.Refused(); n > 0 {
				return skippedError{n}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "auto", "auto, jsonl (memvault export), mcp-memory or markdown")
	cmd.Flags().StringVar(&layer, "layer", "", "put every memory in this layer (default: chosen per format and file)")
	cmd.Flags().StringArrayVar(&skip, "skip", nil, "also skip files or folders/ matching this pattern (repeatable)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show what would be imported and skipped; write nothing")
	cmd.Flags().StringVar(&reason, "reason", "", "why, for the commit message (default names the source)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "list every imported memory")
	return cmd
}

type importReportJSON struct {
	Source   string             `json:"source"`
	Format   string             `json:"format"`
	DryRun   bool               `json:"dry_run"`
	Commit   string             `json:"commit,omitempty"`
	Imported []importedJSON     `json:"imported"`
	Skipped  []transfer.Problem `json:"skipped"`
}

type importedJSON struct {
	Pos   string   `json:"pos"`
	ID    string   `json:"id"`
	Title string   `json:"title"`
	Layer string   `json:"layer"`
	Path  string   `json:"path"`
	Notes []string `json:"notes,omitempty"`
}

func importJSON(rep transfer.Report, src *transfer.Source) importReportJSON {
	out := importReportJSON{Source: src.Name, Format: string(src.Format), DryRun: rep.DryRun, Commit: rep.Commit,
		Imported: []importedJSON{}, Skipped: []transfer.Problem{}}
	for _, im := range rep.Imported {
		out.Imported = append(out.Imported, importedJSON{im.Pos, im.Memory.ID, im.Memory.Title, im.Memory.Layer.String(), im.Memory.Path, im.Notes})
	}
	out.Skipped = append(out.Skipped, rep.Skipped...)
	return out
}
