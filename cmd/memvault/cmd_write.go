package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// addMemoryLimit is the heap at which an add collects garbage: it runs
// with collection otherwise off (see addCommand).
const addMemoryLimit = 1 << 30

// writeFlags are the memory fields shared by add and update.
type writeFlags struct {
	content, layer, tags, effectiveAt, expiresAt, supersedes, links, reason, refs string
	importance                                                                    int
	asJSON, acceptRefs                                                            bool
	// scope and user are add's: which vault, and where the user vault is.
	scope string
	user  userVaultFlags
}

func (m *Main) addCommand() *cobra.Command {
	var f writeFlags
	cmd := &cobra.Command{
		Use:   "add TITLE",
		Short: "Add a memory (content from --content or stdin)",
		Long: `add writes a new memory file under its layer's folder and prints its id.
The content comes from --content, or from standard input when --content is
absent. Layers: transient (L1), short-term (L2), project (L3, default),
preference (L4), meta (L5).

Preferences go to the user vault (--user-vault, default ~/.memvault when it
exists and is in a git repository), which follows you across projects,
unless --scope project; everything else goes to the project vault unless
--scope user. add never changes an existing memory: an active memory of the
same layer in that vault with the same or a near-identical title refuses
the add (exit 1), naming its id and version; update it, supersede it with
--supersedes, or choose a distinct title. --supersedes may name memories of
either vault; the write is one commit in the target vault's repository.`,
		Example: `  memvault add "Checkout uses the strategy pattern" --layer project --tags checkout,architecture \
      --importance 8 --content "Promotions will multiply; if/else chains were rejected." --reason "agreed in review"
  echo "Use pytest, not unittest" | memvault add "Tests use pytest" --layer preference`,
		Args: exactArgs(1, "TITLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			// An add holds the vault's headers and exits: most of what it
			// allocates stays live to the end, so collecting costs more
			// than it frees (docs/git.md, "memvault add, second round
			// (2026-12-02, 6c385db)").
			// The memory limit bounds a load that makes garbage (files
			// read again after the header cache went stale) instead.
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(min(debug.SetMemoryLimit(-1), addMemoryLimit)))
			content := f.content
			if !cmd.Flags().Changed("content") {
				c, err := m.readStdin()
				if err != nil {
					return err
				}
				content = c
			}
			if f.importance < 1 || f.importance > 10 {
				return usagef("--importance: %d is outside 1..10", f.importance)
			}
			n := vault.NewMemory{Title: args[0], Content: content, Importance: f.importance, Refs: splitList(f.refs), AcceptRefs: f.acceptRefs}
			var err error
			if n.Layer, err = parseLayerFlag(f.layer); err != nil {
				return err
			}
			n.Tags = splitList(f.tags)
			n.Supersedes = splitList(f.supersedes)
			n.Links = splitList(f.links)
			if n.EffectiveAt, err = parseTimeFlag("effective-at", f.effectiveAt); err != nil {
				return err
			}
			if n.ExpiresAt, err = parseTimeFlag("expires-at", f.expiresAt); err != nil {
				return err
			}
			set, done, err := m.openWriteSet(ctx, f.user, true)
			if err != nil {
				return err
			}
			defer done()
			res, err := set.Remember(ctx, n, f.scope, vault.Author{Reason: f.reason})
			if err != nil {
				return setError(set, f.user, err)
			}
			return m.printWrite(set, res.WriteResult, res.Vault, f.asJSON)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.content, "content", "", "the memory's Markdown body (default: read standard input)")
	fl.StringVar(&f.layer, "layer", "project", "layer: transient|short-term|project|preference|meta or 1-5")
	fl.StringVar(&f.tags, "tags", "", "comma-separated tags")
	fl.IntVar(&f.importance, "importance", 5, "importance 1-10 (8+ never decays)")
	fl.StringVar(&f.effectiveAt, "effective-at", "", "RFC3339 instant or YYYY-MM-DD from which the rule applies")
	fl.StringVar(&f.expiresAt, "expires-at", "", "RFC3339 instant or YYYY-MM-DD when it expires (default: the layer's TTL)")
	fl.StringVar(&f.supersedes, "supersedes", "", "comma-separated ids this memory replaces")
	fl.StringVar(&f.links, "links", "", "comma-separated ids of related memories")
	fl.StringVar(&f.reason, "reason", "", "why this is remembered (the commit message body)")
	fl.StringVar(&f.refs, "refs", "", "comma-separated code the memory is about: paths, dir/, globs, path#Symbol (docs/staleness.md)")
	fl.BoolVar(&f.acceptRefs, "accept-refs", false, "also add the refs proposed from what the content mentions (else only listed as proposed_refs)")
	fl.BoolVar(&f.asJSON, "json", false, `print {"id", "path", "version", "etag", "commit", "superseded", "vault", "proposed_refs"} as JSON`)
	fl.StringVar(&f.scope, "scope", "", "which vault: project or user (default: user for preferences when there is a user vault, else project)")
	f.user.register(fl)
	return cmd
}

// printWrite reports a write to the set's vault called vaultName: the
// id, or its view as JSON.
func (m *Main) printWrite(set *vault.Set, res vault.WriteResult, vaultName string, asJSON bool) error {
	m.noteWrittenTo(set, vaultName)
	if asJSON {
		return writeJSON(m.Stdout, view.WriteOf(res, vaultName))
	}
	fmt.Fprintln(m.Stdout, res.Memory.ID)
	return nil
}

// noteWrittenTo says on stderr when a write went to a vault other than
// the project's, which people would not look in.
func (m *Main) noteWrittenTo(set *vault.Set, vaultName string) {
	if vaultName != vault.ProjectVault {
		u, _ := set.Member(vaultName)
		fmt.Fprintf(m.Stderr, "memvault: written to the %s vault %s\n", vaultName, u.Vault.Dir())
	}
}

// readStdin reads the content of add/update from standard input, refusing
// to wait on an interactive terminal.
func (m *Main) readStdin() (string, error) {
	if f, ok := m.Stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return "", usagef("no content: give --content TEXT or pipe the content on standard input")
		}
	}
	b, err := io.ReadAll(io.LimitReader(m.Stdin, vault.MaxContentBytes+1))
	if err != nil {
		return "", fmt.Errorf("read standard input: %w", err)
	}
	return string(b), nil
}

func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s: want %s, got %d argument(s); see 'memvault %s --help'", cmd.Name(), names, len(args), cmd.Name())
		}
		return nil
	}
}

func parseLayerFlag(s string) (vault.Layer, error) {
	if s == "" {
		return vault.Project, nil
	}
	l, err := vault.ParseLayer(s)
	if err != nil {
		return 0, usagef("--layer: %v", err)
	}
	return l, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseTime accepts RFC3339 instants and plain dates (midnight UTC).
func parseTime(s string) (time.Time, error) { return vault.ParseInstant(s) }

func parseTimeFlag(name, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := parseTime(s)
	if err != nil {
		return t, usagef("--%s: %v", name, err)
	}
	return t, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
