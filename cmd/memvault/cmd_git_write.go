package main

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
)

// updateFlags are the fields update may change; only flags given on the
// command line become part of the patch.
type updateFlags struct {
	writeFlags
	title string
	// expected is --expected-version: a version number or an etag.
	expected        string
	resolveConflict bool
}

func (m *Main) updateCommand() *cobra.Command {
	var f updateFlags
	cmd := &cobra.Command{
		Use:   "update ID",
		Short: "Change some fields of a memory (one commit)",
		Long: `update changes only the fields given on the command line, bumps the
memory's version and updated_at, and commits the file with --reason as the
commit message body. --content - reads the new body from standard input.
An empty --effective-at or --expires-at removes the field.

A memory a git merge left with a conflict record (docs/team.md): setting a
field the record lists decides it, and its entry goes; --resolve-conflict
removes the whole record (the memory as it is, with this update's changes,
is the decision).

With --expected-version N the update is refused (exit 1) unless the memory
is still at version N, so a change made since you read it is never
overwritten. --expected-version also takes the etag that show --json,
recall --json and a write's --json give ("2-5f1c0e9a7b3d"): then the
update is refused unless the memory still has exactly that content, which
a version cannot promise after a git merge (both branches may have raised
it to the same number). The memory may be in the project vault or the user vault
(--user-vault, default ~/.memvault when it exists).`,
		Example: `  memvault update 01M1JYSK001JFGN6A8F2MM0K3R --importance 9 --reason "bit us twice in review"
  cat body.md | memvault update 01M1JYSK001JFGN6A8F2MM0K3R --content - --expected-version 2 --reason "partial refunds"`,
		Args: exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			fl := cmd.Flags()
			var p vault.Patch
			if fl.Changed("title") {
				p.Title = &f.title
			}
			if fl.Changed("content") {
				content := f.content
				if content == "-" {
					c, err := m.readStdin()
					if err != nil {
						return err
					}
					content = c
				}
				p.Content = &content
			}
			if fl.Changed("layer") {
				l, err := parseLayerFlag(f.layer)
				if err != nil {
					return err
				}
				p.Layer = &l
			}
			if fl.Changed("tags") {
				tags := splitList(f.tags)
				p.Tags = &tags
			}
			if fl.Changed("importance") {
				p.Importance = &f.importance
			}
			for _, t := range []struct {
				name, val string
				dst       **time.Time
			}{{"effective-at", f.effectiveAt, &p.EffectiveAt}, {"expires-at", f.expiresAt, &p.ExpiresAt}} {
				if !fl.Changed(t.name) {
					continue
				}
				v, err := parseTimeFlag(t.name, t.val)
				if err != nil {
					return err
				}
				*t.dst = &v
			}
			for name, dst := range map[string]**[]string{"supersedes": &p.Supersedes, "links": &p.Links, "refs": &p.Refs} {
				if fl.Changed(name) {
					ids := splitList(fl.Lookup(name).Value.String())
					*dst = &ids
				}
			}
			p.AcceptRefs, p.ResolveConflict = f.acceptRefs, f.resolveConflict
			if p == (vault.Patch{}) {
				return usagef("update: nothing to change; give at least one of --title, --content, --tags, --importance, --layer, --effective-at, --expires-at, --supersedes, --links, --refs, --accept-refs, --resolve-conflict")
			}
			version, etag, err := parseExpected(f.expected)
			if err != nil {
				return err
			}
			p.ExpectedETag = etag
			set, done, err := m.openWriteSet(ctx, f.user, false)
			if err != nil {
				return err
			}
			defer done()
			in, _, err := set.Find(args[0])
			if err != nil {
				return err
			}
			res, err := in.Vault.Update(ctx, args[0], version, p, vault.Author{Reason: f.reason, Client: "cli"})
			if err != nil {
				return err
			}
			return m.printWrite(set, res, in.Name, f.asJSON)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.title, "title", "", "new title (one line)")
	fl.StringVar(&f.content, "content", "", "new Markdown body; - reads standard input")
	fl.StringVar(&f.layer, "layer", "", "move to layer: transient|short-term|project|preference|meta or 1-5")
	fl.StringVar(&f.tags, "tags", "", "comma-separated tags, replacing the current ones")
	fl.IntVar(&f.importance, "importance", 0, "importance 1-10 (8+ never decays)")
	fl.StringVar(&f.effectiveAt, "effective-at", "", "RFC3339 instant or YYYY-MM-DD from which the rule applies; empty removes it")
	fl.StringVar(&f.expiresAt, "expires-at", "", "RFC3339 instant or YYYY-MM-DD when it expires; empty removes it")
	fl.StringVar(&f.supersedes, "supersedes", "", "comma-separated ids this memory replaces (they are marked superseded)")
	fl.StringVar(&f.links, "links", "", "comma-separated ids of related memories")
	fl.StringVar(&f.refs, "refs", "", "comma-separated code the memory is about, replacing the current refs; empty removes them (docs/staleness.md)")
	fl.BoolVar(&f.acceptRefs, "accept-refs", false, "also add the refs proposed from what the new title or content mentions (else only listed as proposed_refs)")
	fl.BoolVar(&f.resolveConflict, "resolve-conflict", false, "remove the conflict record a git merge left in the memory: what it holds after this update is the decision")
	fl.StringVar(&f.expected, "expected-version", "", "refuse the update unless the memory is at this version, or has this etag (show --json)")
	fl.StringVar(&f.reason, "reason", "", "why the memory changes (the commit message body)")
	fl.BoolVar(&f.asJSON, "json", false, `print {"id", "path", "version", "etag", "commit", "superseded", "vault", "proposed_refs"} as JSON`)
	f.user.register(fl)
	return cmd
}

// parseExpected reads --expected-version: "" expects nothing, a whole
// number a version, and an etag ("<version>-<hex>") that exact content.
func parseExpected(s string) (version int, etag string, err error) {
	switch n, nerr := strconv.Atoi(s); {
	case s == "":
		return 0, "", nil
	case nerr == nil && n < 0:
		return 0, "", usagef("--expected-version: %d is negative", n)
	case nerr == nil:
		return n, "", nil
	case vault.IsETag(s):
		return 0, s, nil
	}
	return 0, "", usagef("--expected-version: %q is neither a version number nor an etag such as 2-5f1c0e9a7b3d (show --json gives it)", s)
}

func (m *Main) forgetCommand() *cobra.Command {
	var reason string
	var remove, asJSON bool
	var user userVaultFlags
	cmd := &cobra.Command{
		Use:   "forget ID --reason TEXT",
		Short: "Archive a memory, or delete its file with --delete (one commit)",
		Long: `forget marks a memory archived: recall stops returning it, its file and
history stay. With --delete the file is removed. Either way the change is
one commit whose body is --reason, which is required. The memory may be in
the project vault or the user vault (--user-vault, default ~/.memvault when
it exists).`,
		Example: `  memvault forget 01KTQNVG84SZE65GGT73J028CM --reason "the MVP order model is history"
  memvault forget 01KTQNVG84SZE65GGT73J028CM --delete --reason "duplicate of 01M1JYSK..."`,
		Args: exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			set, done, err := m.openWriteSet(ctx, user, false)
			if err != nil {
				return err
			}
			defer done()
			in, _, err := set.Find(args[0])
			if err != nil {
				return err
			}
			res, err := in.Vault.Forget(ctx, args[0], remove, vault.Author{Reason: reason, Client: "cli"})
			if err != nil {
				return err
			}
			m.noteWrittenTo(set, in.Name)
			if asJSON {
				return writeJSON(m.Stdout, view.ForgetOf(args[0], res, remove, in.Name))
			}
			verb := "archived"
			if remove {
				verb = "deleted"
			}
			fmt.Fprintf(m.Stdout, "%s %s (%s)\n", verb, res.Memory.ID, res.Memory.Title)
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why the memory is forgotten (required; the commit message body)")
	cmd.Flags().BoolVar(&remove, "delete", false, "delete the file instead of archiving it")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	user.register(cmd.Flags())
	return cmd
}

func (m *Main) restoreCommand() *cobra.Command {
	var to, reason string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "restore ID --to COMMIT --reason TEXT",
		Short: "Bring a memory back to its version at a commit (one new commit)",
		Long: `restore reads the memory as it was at COMMIT and writes that version back
as a new commit: its version keeps increasing and updated_at moves, so
history shows the restore as what it is. A memory deleted since is created
again with its old id.`,
		Example: `  memvault history 01KTQNVG84SZE65GGT73J028CM
  memvault restore 01KTQNVG84SZE65GGT73J028CM --to 3f2a9c1 --reason "the refund rollout was reverted"`,
		Args: exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			id := args[0]
			if to == "" {
				return usagef("restore: --to COMMIT is required (see memvault history %s)", id)
			}
			v, store, err := m.openGitVault(ctx, true)
			if err != nil {
				return err
			}
			defer store.Close()
			g, err := m.needRepo(ctx, "restore")
			if err != nil {
				return err
			}
			defer g.Close()
			now, _ := v.Get(id) // nil when deleted since
			old, rev, err := g.past(m.Now).MemoryAt(ctx, id, to, now)
			var re *history.RevisionError
			if errors.As(err, &re) {
				return usagef("--to %s: no such commit", to)
			}
			if err != nil {
				return err
			}
			by := vault.Author{Reason: reason, Client: "cli"}
			if by.Reason == "" {
				by.Reason = fmt.Sprintf("restore the version of %s", shortHash(rev))
			}
			res, err := v.Restore(ctx, old, by)
			if errors.Is(err, vault.ErrUnchanged) {
				return usagef("restore: %s already matches its version at %s", id, shortHash(rev))
			}
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(m.Stdout, view.WriteOf(res, vault.ProjectVault))
			}
			fmt.Fprintf(m.Stdout, "restored %s (%s) to its version at %s; now version %d\n",
				res.Memory.ID, res.Memory.Title, shortHash(rev), res.Memory.Version)
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the commit whose version to bring back")
	cmd.Flags().StringVar(&reason, "reason", "", "why (the commit message body)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
