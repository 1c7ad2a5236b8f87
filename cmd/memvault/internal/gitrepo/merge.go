package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/memvault/memvault/cmd/memvault/internal/clientconfig"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/mergesetup"
	"github.com/memvault/memvault/vault/resolve"
)

// MergeDriver is the memvault merge driver's setup in the clone holding a
// vault: the vault's .gitattributes (which git applies) and the clone's
// merge.memvault.driver.
type MergeDriver struct {
	Repo *Repo
	// Binary is the memvault the driver runs: an absolute path, or
	// "memvault" to find it on PATH.
	Binary string
}

var _ mergesetup.Repo = MergeDriver{}

// MergeDriver implements mergesetup.Repo. Git's own answer counts:
// the attribute of a memory path (existing or not), wherever a
// .gitattributes sets it.
func (m MergeDriver) MergeDriver(ctx context.Context) (attribute, registered bool, err error) {
	probe := m.Repo.repoRel(vault.Project.Dir() + "/merge-driver-probe.md")
	val, err := m.Repo.store.Attribute(ctx, probe, "merge")
	if err != nil {
		return false, false, err
	}
	cmd, err := m.Repo.store.MergeDriver(ctx, vault.MergeDriverName)
	if err != nil {
		return false, false, err
	}
	return val == vault.MergeDriverName, cmd != "" && driverRuns(cmd), nil
}

// driverRuns reports whether the program of a registered driver command is
// there: a binary moved or removed since it was registered leaves git
// running nothing. A command it cannot read (someone's own) counts as
// there.
func driverRuns(cmd string) bool {
	prog, ok := firstWord(cmd)
	if !ok || prog == "" {
		return true
	}
	if !strings.ContainsRune(prog, filepath.Separator) {
		_, err := exec.LookPath(prog)
		return err == nil
	}
	_, err := os.Stat(prog)
	return err == nil
}

// firstWord reads the first word of a shell command as the shell would,
// for the quoting DriverCommand writes: single quotes and backslashes.
// ok is false for anything else (double quotes, expansions).
func firstWord(cmd string) (word string, ok bool) {
	var b strings.Builder
	for i := 0; i < len(cmd); i++ {
		switch c := cmd[i]; c {
		case ' ', '\t':
			return b.String(), true
		case '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(cmd[i+1 : i+1+j])
			i += j + 1
		case '\\':
			if i+1 < len(cmd) {
				i++
				b.WriteByte(cmd[i])
			}
		case '"', '$', '`':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// RegisterMergeDriver implements mergesetup.Repo.
func (m MergeDriver) RegisterMergeDriver(ctx context.Context) error {
	return m.Repo.store.SetMergeDriver(ctx, vault.MergeDriverName, "memvault memory files, field by field", DriverCommand(m.Binary))
}

// Ensure registers the driver unless the clone registers one that runs,
// and reports whether it did.
func (m MergeDriver) Ensure(ctx context.Context) (bool, error) {
	cmd, err := m.Repo.store.MergeDriver(ctx, vault.MergeDriverName)
	if err != nil || (cmd != "" && driverRuns(cmd)) {
		return false, err
	}
	return true, m.RegisterMergeDriver(ctx)
}

// DriverBinary is the memvault git's merge driver runs: this binary, or
// "memvault" on PATH when this one is a temporary build of go run (getenv
// reads the environment).
func DriverBinary(getenv func(string) string) string {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil || clientconfig.TemporaryBuild(exe, getenv) {
		return "memvault"
	}
	return exe
}

// DriverCommand is the merge.memvault.driver command running bin: git
// passes the base, ours, theirs and the path, and runs it with the shell.
func DriverCommand(bin string) string {
	return "'" + strings.ReplaceAll(bin, "'", `'\''`) + "' merge-driver %O %A %B %P"
}

// HeadFiles reads a vault's files as committed at HEAD (vault.Committed),
// opening the repository only when asked: only a file holding conflict
// markers is.
type HeadFiles struct {
	Dir   string          // the vault folder
	Store *gitstore.Store // nil: opened and closed at each call
}

var _ vault.CommittedReader = HeadFiles{}

// ReadCommitted implements vault.CommittedReader.
func (h HeadFiles) ReadCommitted(ctx context.Context, rel string) ([]byte, error) {
	s := h.Store
	if s == nil {
		var err error
		if s, err = OpenStore(ctx, h.Dir); err != nil {
			return nil, err
		}
		defer s.Close()
	}
	return s.ReadFile(ctx, "", filepath.Join(h.Dir, filepath.FromSlash(rel)))
}

// MergeIndex is the index of a merge in progress in the repository
// holding a vault (resolve.MergeIndex), read and staged with the git
// command.
type MergeIndex struct{ Repo *Repo }

var _ resolve.MergeIndex = MergeIndex{}

// Unmerged implements resolve.MergeIndex.
func (m MergeIndex) Unmerged(ctx context.Context) ([]resolve.Unmerged, error) {
	files, err := m.Repo.store.UnmergedFiles(ctx, m.Repo.repoRel(""))
	if err != nil {
		return nil, err
	}
	out := make([]resolve.Unmerged, 0, len(files))
	for _, f := range files {
		if rel, ok := m.Repo.vaultRel(f.Path); ok {
			out = append(out, resolve.Unmerged{Path: rel, Base: f.Base, Ours: f.Ours, Theirs: f.Theirs})
		}
	}
	return out, nil
}

// Stage implements resolve.MergeIndex.
func (m MergeIndex) Stage(ctx context.Context, rels []string) error {
	paths := make([]string, len(rels))
	for i, rel := range rels {
		paths[i] = m.Repo.repoRel(rel)
	}
	return m.Repo.store.StageWorkTree(ctx, paths)
}
