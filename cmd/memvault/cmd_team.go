package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/teamsync"
	"github.com/memvault/memvault/vault/resolve"
)

func (m *Main) resolveCommand() *cobra.Command {
	var ours, theirs, both bool
	cmd := &cobra.Command{
		Use:   "resolve [PATH|ID ...] [--ours|--theirs|--both]",
		Short: "Resolve the memory files a merge left unmerged, by the merge driver's rules",
		Long:  teamsync.ResolveHelp,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := m.resolveVaultDir()
			if err != nil {
				return err
			}
			side, err := teamsync.Side(ours, theirs, both)
			if err != nil {
				return usageError{err}
			}
			rs, err := m.resolve(cmd.Context(), dir, resolve.Options{Side: side, Only: teamsync.Names(dir, args), Now: m.Now})
			teamsync.WriteResolved(m.Stdout, dir, rs, err == nil)
			return err
		},
	}
	cmd.Flags().BoolVar(&ours, "ours", false, "take our side of each file whole")
	cmd.Flags().BoolVar(&theirs, "theirs", false, "take their side of each file whole")
	cmd.Flags().BoolVar(&both, "both", false, "keep both sides as rival memories that link each other (theirs gets a new id)")
	return cmd
}

// resolve resolves the vault's unmerged memory files (resolve.Run).
func (m *Main) resolve(ctx context.Context, dir string, o resolve.Options) ([]resolve.Resolved, error) {
	g, err := needRepoAt(ctx, dir, "resolve")
	if err != nil {
		return nil, err
	}
	defer g.Close()
	return resolve.Run(ctx, dir, gitrepo.MergeIndex{Repo: g.Repo}, o)
}

func (m *Main) syncCommand() *cobra.Command {
	var s teamsync.Syncer
	var merge bool
	cmd := &cobra.Command{
		Use:   "sync [--rebase|--merge] [--remote NAME] [--no-push]",
		Short: "Commit pending memories, fetch, merge through the memory merge driver, resolve, lint, push",
		Long:  teamsync.SyncHelp,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			dir, err := m.resolveVaultDir()
			if err != nil {
				return err
			}
			s.Rebase, s.Progress = s.Rebase && !merge, m.Stderr
			if err := m.syncer(ctx, dir, &s); err != nil {
				return err
			}
			rep, err := s.Run(ctx)
			teamsync.WriteReport(m.Stdout, dir, rep, err)
			return err
		},
	}
	cmd.Flags().BoolVar(&s.Rebase, "rebase", false, "rebase the local commits onto the remote's")
	cmd.Flags().BoolVar(&merge, "merge", false, "merge the remote's commits (the default)")
	cmd.Flags().StringVar(&s.Remote, "remote", "", "the remote to sync with (default: the branch's upstream remote, else origin)")
	cmd.Flags().BoolVar(&s.NoPush, "no-push", false, "stop after the merge")
	networkTimeoutFlag(cmd, &s.NetworkTimeout)
	cmd.MarkFlagsMutuallyExclusive("rebase", "merge")
	return cmd
}

// syncer gives s the steps of a sync of the vault at dir (memvault sync,
// serve --pull-interval).
func (m *Main) syncer(ctx context.Context, dir string, s *teamsync.Syncer) error {
	g, err := needRepoAt(ctx, dir, "sync")
	if err != nil {
		return err
	}
	root, prefix := g.Store().Root(), g.Prefix()
	g.Close()
	s.Git, s.VaultPrefix, s.Driver = teamsync.CLI{Dir: root}, prefix, gitrepo.DriverCommand(gitrepo.DriverBinary(m.Getenv))
	if s.NetworkTimeout == 0 {
		if s.NetworkTimeout, err = networkTimeout(m.Getenv); err != nil {
			return err
		}
	}
	s.Commit = func(ctx context.Context) (string, error) { return teamsync.Fixed(m.doctor(ctx, true)) }
	s.Resolve = func(ctx context.Context) ([]resolve.Resolved, error) {
		return m.resolve(ctx, dir, resolve.Options{Now: m.Now})
	}
	s.Join = func(ctx context.Context, base resolve.Base) ([]resolve.Resolved, error) {
		return resolve.JoinCopies(ctx, dir, base)
	}
	s.Lint = func(ctx context.Context) (teamsync.Lint, error) { return teamsync.LintOf(m.openVaultAt(ctx, dir)) }
	s.Lock = func(ctx context.Context) (context.Context, func(), error) { return gitrepo.Lock(ctx, dir) }
	s.Leftovers = func(ctx context.Context, refs []string, wait bool) ([]string, error) {
		store, err := gitrepo.OpenStore(ctx, dir)
		if err != nil {
			return nil, err
		}
		defer store.Close()
		if wait {
			wctx, cancel := context.WithTimeout(ctx, killedGitWait)
			store.WaitQuiet(wctx)
			cancel()
		}
		return store.ClearKilled(ctx, refs)
	}
	return nil
}

// killedGitWait bounds sync's wait for the git processes of a killed sync
// (the merge driver finishing its file) before it clears their locks; a
// lock still held after it stays, and the step that trips on it says so.
const killedGitWait = 30 * time.Second

// networkTimeoutFlag declares --network-timeout, which bounds each git
// fetch and push of a sync.
func networkTimeoutFlag(cmd *cobra.Command, d *time.Duration) {
	cmd.Flags().DurationVar(d, "network-timeout", 0, fmt.Sprintf("give up a git fetch or push after this long (default $%s, else %s; negative: never)",
		teamsync.NetworkTimeoutEnv, teamsync.DefaultNetworkTimeout))
}

// networkTimeout is $MEMVAULT_NETWORK_TIMEOUT, else the default; 0 in
// the variable means none, which a negative duration says to Syncer.
func networkTimeout(getenv func(string) string) (time.Duration, error) {
	v := getenv(teamsync.NetworkTimeoutEnv)
	if v == "" {
		return teamsync.DefaultNetworkTimeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, usagef("$%s: %v", teamsync.NetworkTimeoutEnv, err)
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
}
