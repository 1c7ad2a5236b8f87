package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/load"
	"github.com/memvault/memvault/vault/staleness"
)

type recallFlags struct {
	limit           int
	layers, tags    string
	asOf, since     string
	at              string
	includeInactive bool
	explain         bool
	asJSON          bool
	user            userVaultFlags
}

func (m *Main) recallCommand() *cobra.Command {
	var f recallFlags
	cmd := &cobra.Command{
		Use:   "recall QUERY",
		Short: "Find the memories that answer a question, in Chinese or English",
		Long: `recall ranks memories by relevance x layer x time decay x importance and
hides what is not in force: rules whose effective_at has not come, expired
ones, archived and superseded ones (--include-inactive shows them). Results
that look like rival rules are marked as possible conflicts. An empty QUERY
lists the most recent memories. A QUERY is at most 8 KiB and 2,048 distinct
terms (docs/hardening.md); a longer one is refused with exit status 1.

Each result of a query is a strong match (it answers the question) or a
weaker one, kept for what it shares with the question, with the reason;
strong matches come first, and a question no memory answers gets no strong
match. --explain shows, under each result, the query's concepts and how the
memory covers them, the terms it matched (typed in the query, a part of a
typed identifier, or an expansion: dictionary, cc-cedict, learned,
paraphrase, with the word it translates) and the structure rules that moved
it (links, supersession, near-duplicates, ranking across vaults).

recall searches the project vault and the user vault (--user-vault, default
~/.memvault when it exists and is in a git repository) and ranks them
together, as the MCP server's recall does; each JSON result names its
vault. A rule of one vault may supersede a memory of the other. --as-of before now reads each vault as git recorded it then; from
now on it reads the vaults as they are, transient memories included.
--at reads the project vault alone, as recorded at that commit.`,
		Example: `  memvault recall "结算模块怎么设计的"
  memvault recall "how do we deploy" --layers project,preference --json
  memvault recall "order status" --as-of 2026-10-01
  memvault recall "怎么部署" --explain`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q := vault.Query{Limit: f.limit, IncludeInactive: f.includeInactive, Explain: f.explain}
			if len(args) == 1 {
				q.Text = args[0]
			}
			for _, s := range splitList(f.layers) {
				l, err := vault.ParseLayer(s)
				if err != nil {
					return usagef("--layers: %v", err)
				}
				q.Layers = append(q.Layers, l)
			}
			q.Tags = splitList(f.tags)
			var err error
			if q.AsOf, err = parseTimeFlag("as-of", f.asOf); err != nil {
				return err
			}
			if q.Since, err = parseTimeFlag("since", f.since); err != nil {
				return err
			}
			if f.limit < 0 {
				return usagef("--limit: %d is negative", f.limit)
			}
			if m.OneShot != nil {
				m.slowLoad = m.OneShot()
			}
			set, err := m.openRecallSet(cmd.Context(), f.user, f.at, q)
			if err != nil {
				return err
			}
			rs, err := set.Recall(cmd.Context(), q)
			if err != nil {
				return err
			}
			states := staleness.RankSet(cmd.Context(), gitrepo.OpenChecker, set.Members(), rs)
			if q.AsOf.IsZero() && f.at == "" { // a read of the past is not a use; the record is advice and never fails a recall
				_ = gitrepo.RecordAccess(cmd.Context(), set.Members(), rs, m.Now())
			}
			if f.asJSON {
				return writeJSON(m.Stdout, view.RecallWith(rs, states))
			}
			now := q.AsOf
			if now.IsZero() {
				now = m.Now()
			}
			clitext.Results(m.Stdout, rs, now)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.limit, "limit", vault.DefaultLimit, "how many results at most")
	fl.StringVar(&f.layers, "layers", "", "comma-separated layers to search (default: all)")
	fl.StringVar(&f.tags, "tags", "", "comma-separated tags; a result carries at least one")
	fl.StringVar(&f.asOf, "as-of", "", "evaluate effective/expiry/decay at this RFC3339 instant or date; in git, also read the vault as recorded then")
	fl.StringVar(&f.at, "at", "", "read the vault as recorded at this commit (branch, tag, id, HEAD~3)")
	fl.StringVar(&f.since, "since", "", "only memories updated at or after this instant or date")
	fl.BoolVar(&f.includeInactive, "include-inactive", false, "also show archived, superseded, expired and future memories")
	fl.BoolVar(&f.explain, "explain", false, "show why each result ranks where it does: matched terms, where each came from, structure rules")
	fl.BoolVar(&f.asJSON, "json", false, "print JSON")
	f.user.register(fl)
	return cmd
}

func (m *Main) showCommand() *cobra.Command {
	var asJSON bool
	var user userVaultFlags
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print one memory with its fields and body",
		Long: `show prints one memory of the project vault or the user vault (--user-vault,
default ~/.memvault when it exists and is in a git repository), as the MCP
server's get_memory does.`,
		Args: exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := m.openReadSet(cmd.Context(), user)
			if err != nil {
				return err
			}
			in, mem, err := set.Find(args[0])
			if err != nil {
				return err
			}
			related := in.Vault.Related(mem)
			out := view.MemoryWith(mem, in.Name, related, set.SupersededBy(mem.ID), staleness.OfMemory(cmd.Context(), gitrepo.OpenChecker, set.Members(), in.Name, mem))
			if asJSON {
				return writeJSON(m.Stdout, out)
			}
			clitext.Memory(m.Stdout, mem, related, in.Name, out.Staleness)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	user.register(cmd.Flags())
	return cmd
}

func (m *Main) lintCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "lint",
		Short: "Report every problem in the vault's files (exit 1 on errors)",
		Long: `lint prints one line per problem as path:line: field: problem, errors
first marked "error", then warnings. Files are never changed. The exit status
is 1 when there is at least one error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, err := m.openExistingVault(cmd.Context())
			if err != nil {
				return err
			}
			diags := append(v.Diagnostics(), neverExistedRefs(cmd.Context(), v)...)
			diags = append(diags, load.CacheDirDiagnostics(v.Dir())...)
			diags = append(diags, v.LayerFolderMismatches()...)
			links, err := v.LinkDiagnostics(cmd.Context())
			if err != nil {
				return err
			}
			diags = append(diags, links...)
			// Errors first, then warnings; each group by path and line.
			sort.SliceStable(diags, func(i, j int) bool {
				return diags[i].Severity == parser.SeverityError && diags[j].Severity != parser.SeverityError
			})
			errs := 0
			for _, d := range diags {
				sev := "warning"
				if d.Severity == parser.SeverityError {
					sev = "error"
					errs++
				}
				shown := *d
				shown.Path = displayPath(v.Dir(), d.Path)
				fmt.Fprintf(m.Stdout, "%s: %s\n", shown.Error(), sev)
			}
			fmt.Fprintf(m.Stdout, "%d memories, %d errors, %d warnings\n", len(v.All()), errs, len(diags)-errs)
			if errs > 0 {
				return usagef("lint found %d error(s)", errs)
			}
			return nil
		},
	}
}

// neverExistedRefs warns about refs naming a path the repository's
// history never had. A vault outside git, or whose history cannot be
// read, has nothing to say: the rest of lint still runs.
func neverExistedRefs(ctx context.Context, v *vault.Vault) []*vault.Diagnostic {
	g, err := gitrepo.Open(ctx, v.Dir())
	if err != nil {
		return nil
	}
	defer g.Close()
	c := g.Checker()
	defer c.Close()
	never, err := c.NeverExisted(ctx, v.All)
	if err != nil {
		return nil
	}
	return v.NeverExistedRefs(never)
}

// displayPath shows a vault file relative to the working directory when
// it lies below it, so editors and terminals can jump to it.
func displayPath(dir, rel string) string {
	abs := filepath.Join(dir, filepath.FromSlash(rel))
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, abs); err == nil && filepath.IsLocal(r) {
			return r
		}
	}
	return abs
}

func (m *Main) statsCommand() *cobra.Command {
	var asJSON bool
	var user userVaultFlags
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Count memories by layer and status, in the project vault and the user vault",
		Long: `stats summarises the project vault and the user vault (--user-vault, default
~/.memvault when it exists and is in a git repository): memories by layer
and status, the files with problems, git HEAD. --json prints what the MCP
server's memory_stats answers.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			set, err := m.openReadSet(ctx, user)
			if err != nil {
				return err
			}
			members := set.Members()
			out := view.Stats{VaultStats: m.vaultStats(ctx, members[0].Vault)}
			if len(members) > 1 {
				u := m.vaultStats(ctx, members[1].Vault)
				out.UserVault = &u
			}
			if asJSON {
				return writeJSON(m.Stdout, out)
			}
			clitext.Stats(m.Stdout, out.VaultStats)
			if out.UserVault != nil {
				fmt.Fprintln(m.Stdout, "\nuser vault")
				clitext.Stats(m.Stdout, *out.UserVault)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	user.register(cmd.Flags())
	return cmd
}

// vaultStats summarises v with its repository's HEAD, when it has one.
func (m *Main) vaultStats(ctx context.Context, v *vault.Vault) view.VaultStats {
	head := ""
	var objects *view.GitObjects
	if store, err := openGit(ctx, v.Dir()); err == nil {
		if h, err := store.Head(ctx); err == nil {
			head = h
		}
		objects = gitObjectsOf(store)
		store.Close()
	}
	out := view.VaultStatsOf(v, head, m.Now())
	out.GitObjects = objects
	return out
}
