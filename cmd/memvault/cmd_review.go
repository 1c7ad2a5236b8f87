package main

import (
	"cmp"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/reviewtext"
	"github.com/memvault/memvault/vault/review"
)

func (m *Main) reviewCommand() *cobra.Command {
	var asJSON, markdown bool
	var days int
	var now string
	cmd := &cobra.Command{Use: "review", Short: reviewtext.Short, Long: reviewtext.Long, Example: reviewtext.Example, Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			at, err := parseTimeFlag("now", now)
			if err != nil || days < 1 || asJSON && markdown {
				return usagef("review: --now %q (%v), --days %d (at least 1), --json and --markdown (one at most)", now, err, days)
			}
			v, err := m.openExistingVault(cmd.Context())
			if err != nil {
				return err
			}
			r, err := gitrepo.ReviewVault(cmd.Context(), v, cmp.Or(at, m.Now()), days)
			if err != nil || asJSON {
				return cmp.Or(err, writeJSON(m.Stdout, r))
			}
			return reviewtext.Write(m.Stdout, r, reviewtext.Where(v.Dir()), markdown)
		}}
	fl := cmd.Flags()
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	fl.BoolVar(&markdown, "markdown", false, "print Markdown, to paste into an issue or a pull request")
	fl.IntVar(&days, "days", review.DefaultDays, "the window, in days, of expiring rules and unused memories")
	fl.StringVar(&now, "now", "", "judge at this RFC3339 instant or date instead of now")
	return cmd
}
