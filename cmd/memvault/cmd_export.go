package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/vault/transfer"
)

func (m *Main) exportCommand() *cobra.Command {
	var format, out string
	var redact bool
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export every memory as JSON Lines or as a folder of Markdown files",
		Long: `export writes the vault's memories, ordered by file path.

--format jsonl (default) writes one JSON object per memory: every
front-matter field, unknown keys under "extra", the file path and the body
exactly as in the file; to standard output, or to --out FILE.

--format markdown copies the memory files, byte for byte and with their
modification times, into --out DIR (which must be empty or absent), keeping
the layer folders.

--redact replaces everything the secret guard finds with [REDACTED:rule].
Either output can be read back with memvault import. See
docs/import-export.md.`,
		Example: `  memvault export > memories.jsonl
  memvault export --redact --out shared.jsonl
  memvault export --format markdown --out /tmp/memories`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			v, err := m.openVault(ctx)
			if err != nil {
				return err
			}
			opts := transfer.ExportOptions{Redact: redact}
			var st transfer.ExportStats
			switch format {
			case "jsonl", "":
				if out == "" || out == "-" {
					st, err = transfer.ExportJSONL(ctx, m.Stdout, v, opts)
					out = "standard output"
				} else {
					st, err = transfer.ExportToFile(out, func(w io.Writer) (transfer.ExportStats, error) {
						return transfer.ExportJSONL(ctx, w, v, opts)
					})
				}
			case "markdown", "md":
				if out == "" {
					return usagef("export --format markdown needs --out DIR")
				}
				st, err = transfer.ExportMarkdown(ctx, out, v, opts)
			default:
				return usagef("--format: %q (want jsonl|markdown)", format)
			}
			if err != nil {
				return err
			}
			msg := fmt.Sprintf("exported %s to %s", clitext.CountMemories(st.Memories), out)
			if redact {
				msg += fmt.Sprintf(" (secrets redacted in %s)", clitext.CountMemories(st.Redacted))
			}
			fmt.Fprintln(m.Stderr, msg)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "jsonl", "jsonl or markdown")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file (jsonl; default standard output) or folder (markdown)")
	cmd.Flags().BoolVar(&redact, "redact", false, "replace secrets with [REDACTED:rule]")
	return cmd
}
