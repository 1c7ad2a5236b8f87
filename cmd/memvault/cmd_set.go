package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/memvault/memvault/cmd/memvault/internal/clientconfig"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// userVaultFlags choose the user vault of the CLI commands that work on
// the set of vaults (add, recall), as serve's flags do.
type userVaultFlags struct {
	dir  string
	none bool
}

func (f *userVaultFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.dir, "user-vault", "", "vault of preferences that follow you across projects, in a git repository (default ~/.memvault when it exists)")
	fl.BoolVar(&f.none, "no-user-vault", false, "work on the project vault only")
}

// userVault finds the user vault for a command on the project vault at
// projectDir and opens it with open (a copy of m working on that folder).
// It returns a nil vault when there is none. A default user vault that
// cannot be opened is left out with a warning, as serve does; a named
// one is an error.
func (m *Main) userVault(ctx context.Context, f userVaultFlags, projectDir string, open func(u *Main) (*vault.Vault, error)) (*vault.Vault, error) {
	if f.none {
		return nil, nil
	}
	dir, err := m.userVaultDir(ctx, f.dir, m.logger)
	if err != nil || dir == "" || dir == projectDir {
		return nil, err
	}
	u := *m
	u.vaultDir = dir
	// Its notes (recall --as-of) say which vault they are about.
	u.Stderr = labelled{w: m.Stderr, label: "user vault " + dir + ": "}
	v, err := open(&u)
	if err != nil {
		if f.dir != "" {
			return nil, fmt.Errorf("--user-vault %s: %w", dir, err)
		}
		m.logger.Warn("user vault left out", "vault", dir, "err", err)
		return nil, nil
	}
	return v, nil
}

// openWriteSet opens the project vault for writing, with git, and the
// user vault when there is one, as a set. done releases the repositories.
// With headersOnly the vaults hold headers only (vault.Options.HeadersOnly):
// enough for an add, which then reads no memory body.
func (m *Main) openWriteSet(ctx context.Context, f userVaultFlags, headersOnly bool) (set *vault.Set, done func(), err error) {
	dir, err := m.resolveVaultDir()
	if err != nil {
		return nil, nil, err
	}
	project, store, err := m.openGitVaultWith(ctx, dir, true, headersOnly)
	if err != nil {
		return nil, nil, err
	}
	// The index is decoded while the write is prepared, after the load,
	// which keeps every core busy.
	store.PrefetchIndex()
	stores := []*gitstore.Store{store}
	done = func() {
		for _, s := range stores {
			s.Close()
		}
	}
	user, err := m.userVault(ctx, f, project.Dir(), func(u *Main) (*vault.Vault, error) {
		udir, err := u.resolveVaultDir()
		if err != nil {
			return nil, err
		}
		v, s, err := u.openGitVaultWith(ctx, udir, true, headersOnly)
		if err == nil {
			s.PrefetchIndex()
			stores = append(stores, s)
		}
		return v, err
	})
	if err != nil {
		done()
		return nil, nil, err
	}
	return m.newSet(project, user), done, nil
}

// openReadSet opens the live project vault, which must exist, and the
// user vault when there is one, for reading.
func (m *Main) openReadSet(ctx context.Context, f userVaultFlags) (*vault.Set, error) {
	return m.openLiveSet(ctx, f, m.openExistingVault)
}

// openLiveSet opens the live vaults for reading, the project vault with
// openProject.
func (m *Main) openLiveSet(ctx context.Context, f userVaultFlags, openProject func(context.Context) (*vault.Vault, error)) (*vault.Set, error) {
	project, err := openProject(ctx)
	if err != nil {
		return nil, err
	}
	user, err := m.userVault(ctx, f, project.Dir(), func(u *Main) (*vault.Vault, error) { return u.openVault(ctx) })
	if err != nil {
		return nil, err
	}
	return m.newSet(project, user), nil
}

// newSet is the set of the project vault and the user vault (nil: none)
// at the Main clock.
func (m *Main) newSet(project, user *vault.Vault) *vault.Set {
	set := vault.NewSet(vault.Member{Name: vault.ProjectVault, Vault: project}, vault.Member{Name: vault.UserVault, Vault: user})
	set.Now = m.Now
	return set
}

// openRecallSet opens the vaults a recall reads: the live project and
// user vaults, or, for an as-of in the past (vault.AsOfReadsPast), each
// as recorded then; with at, the project vault as recorded at that commit
// alone (a commit names one repository's past).
func (m *Main) openRecallSet(ctx context.Context, f userVaultFlags, at string, q vault.Query) (*vault.Set, error) {
	// Only the vault the set will read is loaded: the recorded past
	// alone for an as-of before now, the live vault otherwise.
	open := func(on *Main) (*vault.Vault, error) {
		if vault.AsOfReadsPast(q.AsOf, on.Now()) {
			return on.recallVault(ctx, "", q.AsOf)
		}
		return on.openVault(ctx)
	}
	var project *vault.Vault
	var err error
	switch {
	case at != "":
		project, err = m.recallVault(ctx, at, q.AsOf)
	case vault.AsOfReadsPast(q.AsOf, m.Now()):
		project, err = open(m)
	default:
		project, err = m.openExistingVault(ctx)
	}
	if err != nil {
		return nil, err
	}
	var user *vault.Vault
	if at == "" {
		dir, err := m.resolveVaultDir()
		if err != nil {
			return nil, err
		}
		if user, err = m.userVault(ctx, f, dir, open); err != nil {
			return nil, err
		}
	}
	return m.newSet(project, user), nil
}

// setError says what to do about the set's refusals in the CLI's terms;
// f chose the user vault.
func setError(set *vault.Set, f userVaultFlags, err error) error {
	var dup *vault.DuplicateError
	switch {
	case errors.As(err, &dup):
		update := "memvault update"
		if m, ok := set.Member(dup.Vault); ok && dup.Vault == vault.UserVault && f.dir != "" {
			// update finds the memory in the user vault it is given.
			update = "memvault update --user-vault " + clientconfig.ShellQuote(m.Vault.Dir())
		}
		return explained{err: err, msg: fmt.Sprintf("an active memory in the %s vault has the same or a near-identical title: %q (id %s, version %d, %s). "+
			"Nothing was written: to change it, run %s %s --expected-version %d; to replace it, add with --supersedes %s; "+
			"or choose a distinct title", dup.Vault, dup.Title, dup.ID, dup.Version, dup.Path, update, dup.ID, dup.Version, dup.ID)}
	case errors.Is(err, vault.ErrNoVault):
		return fmt.Errorf("%w; pass --user-vault DIR (a git repository) or create %s", err, "~/"+userVaultName)
	}
	return err
}

// explained is an error told in the CLI's terms; errors.Is and As still
// see the error it explains.
type explained struct {
	err error
	msg string
}

func (e explained) Error() string { return e.msg }
func (e explained) Unwrap() error { return e.err }

// labelled marks the CLI's notes ("memvault: ...") about one vault with
// which it is, when a command works on two.
type labelled struct {
	w     io.Writer
	label string
}

func (l labelled) Write(p []byte) (int, error) {
	if _, err := io.WriteString(l.w, strings.ReplaceAll(string(p), "memvault: ", "memvault: "+l.label)); err != nil {
		return 0, err
	}
	return len(p), nil
}
