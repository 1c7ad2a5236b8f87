package main

import (
	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/evalrun"
)

func (m *Main) evalCommand() *cobra.Command {
	var k int
	var asJSON, verbose bool
	cmd := &cobra.Command{
		Use:   "eval CORPUS.json",
		Short: "Measure recall quality on a labelled corpus",
		Long: `eval loads the corpus's memories into a temporary vault through the normal
write path, runs every query through recall, and prints Recall@1, Recall@k and
MRR@10 overall, per query kind and per language. A query counts as found at
rank r when any of its gold memories is at rank r. strong_recall@1 and
strong_recall@5 count a gold memory only when recall marks it a strong
match. Overall and per-language figures cover the answerable queries; the
queries no memory answers (kind none, no gold) are reported apart, as the
share that got no strong result (abstain).`,
		Example: `  memvault eval ../shared/eval/dev-v1.json
  memvault eval ../shared/eval/dev-v1.json --json`,
		Args: exactArgs(1, "CORPUS.json"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if k < 1 || k > 10 {
				return usagef("--k: %d is outside 1..10", k)
			}
			c, err := evalrun.ReadCorpus(args[0])
			if err != nil {
				return usageError{err}
			}
			misses := m.Stderr
			if !verbose {
				misses = nil
			}
			rep, err := evalrun.Run(cmd.Context(), c, k, m.Now, misses)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(m.Stdout, rep.JSON())
			}
			rep.Print(m.Stdout)
			return nil
		},
	}
	cmd.Flags().IntVar(&k, "k", 5, "the k of Recall@k")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "list the queries whose gold memory is not ranked first (on stderr)")
	return cmd
}
