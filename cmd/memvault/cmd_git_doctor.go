package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/doctor"
)

func (m *Main) doctorCommand() *cobra.Command {
	var fix, asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the vault and its repository; --fix repairs what it safely can",
		Long: `doctor checks what can stop or spoil memvault's writes: the repository's
state (branch, detached HEAD, a merge or rebase in progress, a leftover
.git/index.lock), the write lock, a write journal left by a process that
stopped before committing, memory files that differ from HEAD (hand edits or
leftovers), files that do not parse, and whether memory files merge through
memvault's merge driver (a fresh clone lacks its registration).

--fix removes .git/index.lock and the branch's .lock when memvault's own
record shows that the memvault process which took them is no longer running,
or when a lock has no such record and no git process works in the
repository (a git killed in a merge; Linux only), and the temporary
.merge_file_* files such a git left,
finishes an interrupted write (commits its files with their original
message), sets up the merge driver (the vault's .gitattributes, this clone's
git config) and commits hand-edited memory files that parse, with the reason
"` + doctor.HandEditReason + `". It never touches a lock of git or of a
running process, an operation in progress or a broken file: those need a
person.
The exit status is 1 while problems remain.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep, err := m.doctor(cmd.Context(), fix)
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(m.Stdout, map[string]any{"checks": rep.Checks, "problems": rep.Problems()}); err != nil {
					return err
				}
			} else {
				for _, c := range rep.Checks {
					fmt.Fprintf(m.Stdout, "%-8s %-9s %s\n", c.Status, c.Name, clitext.IndentRest(c.Detail, strings.Repeat(" ", 19)))
				}
			}
			if n := rep.Problems(); n > 0 {
				hint := ""
				if !fix {
					hint = " (memvault doctor --fix repairs what it safely can)"
				}
				return usagef("doctor: %s%s", clitext.Plural(n, "problem"), hint)
			}
			if !asJSON {
				fmt.Fprintln(m.Stdout, "no problems")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&fix, "fix", false, "finish an interrupted write and commit hand edits")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// doctor opens the vault and its repository, for writing with fix, and
// runs the domain's checks on them.
func (m *Main) doctor(ctx context.Context, fix bool) (doctor.Report, error) {
	dir, err := m.resolveVaultDir()
	if err != nil {
		return doctor.Report{}, err
	}
	store, err := openGit(ctx, dir)
	switch {
	case errors.Is(err, gitstore.ErrNotRepository):
		v, err := m.openVault(ctx)
		if err != nil {
			return doctor.Report{}, err
		}
		return doctor.Run(ctx, v, doctor.Options{})
	case err != nil:
		return doctor.Report{}, fmt.Errorf("open git repository: %w", err)
	}
	store.Close()
	var (
		v *vault.Vault
		g *gitrepo.Repo
	)
	if fix {
		// Open with the committer, which finishes the journal, but leave
		// the journal for doctor to report.
		var wstore *gitstore.Store
		if v, wstore, err = m.openGitVault(ctx, false); err != nil {
			return doctor.Report{}, err
		}
		defer wstore.Close()
		if g, err = gitrepo.New(wstore, dir); err != nil {
			return doctor.Report{}, err
		}
	} else {
		r, err := m.openRepo(ctx)
		if err != nil {
			return doctor.Report{}, err
		}
		defer r.Close()
		g = r.Repo
		if v, err = m.openVault(ctx); err != nil {
			return doctor.Report{}, err
		}
	}
	// Without --fix nothing is committed: an unusable MEMVAULT_AUTHOR is
	// not doctor's business then (openGitVault refused it with --fix).
	author, _ := gitrepo.ParseAuthor(m.Getenv("MEMVAULT_AUTHOR"))
	rep, err := doctor.Run(ctx, v, doctor.Options{Repo: g, Committer: gitrepo.Committer{Store: g.Store(), Author: author, Logger: m.logger, AllowDetached: m.allowDetached}, Fix: fix,
		MergeDriver: gitrepo.MergeDriver{Repo: g, Binary: gitrepo.DriverBinary(m.Getenv)}})
	if err == nil {
		rep.Checks = append(rep.Checks, mergeLeftoverChecks(g.Store(), fix)...)
		rep.Checks = append(rep.Checks, objectsCheck(g.Store()))
	}
	return rep, err
}
