package vault

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memvault/memvault/parser"
)

// LinkedFile is a memory file of the vault that is a symbolic link. The
// loader never reads one (issue 27, finding 11): a link committed by a
// teammate could point anywhere (a key outside the repository, another
// memory, whose id it would then carry twice), and no write can update
// it. Lint and doctor name each with its target and the fix.
type LinkedFile struct {
	Path   string // vault-relative, with slashes
	Target string // as the link says, unresolved
}

// errLinked is the loader's error for a memory file that is a symbolic
// link. It matches fs.ErrNotExist: to the loader the memory is not
// there (a running vault drops a file that became a link).
var errLinked = fmt.Errorf("%w: not read (memvault lint): %w", ErrLinkedFile, fs.ErrNotExist)

// Fix says what to do about the link.
func (l LinkedFile) Fix() string {
	return "memvault does not load linked memory files: replace the link by a copy of the file it names, or remove it (git rm), then commit"
}

// String is "path is a symbolic link to target; fix".
func (l LinkedFile) String() string {
	return fmt.Sprintf("%s is a symbolic link to %s; %s", l.Path, l.Target, l.Fix())
}

// LinkedFiles lists the vault's memory files that are symbolic links, in
// path order, looking where the loader looks: dot-files and dot-folders
// are skipped and linked folders are not entered.
func (v *Vault) LinkedFiles(ctx context.Context) ([]LinkedFile, error) {
	root := v.dir
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	var out []LinkedFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && os.IsNotExist(err) {
				return filepath.SkipDir
			}
			return nil // an unreadable folder: the load reports what it can
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == root {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || d.Type()&fs.ModeSymlink == 0 || !IsMemoryPath(filepath.ToSlash(rel)) {
			return nil
		}
		target, err := os.Readlink(p)
		if err != nil {
			target = "(unreadable: " + err.Error() + ")"
		}
		out = append(out, LinkedFile{Path: filepath.ToSlash(rel), Target: target})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list linked memory files in %s: %w", v.dir, err)
	}
	return out, nil
}

// LinkDiagnostics is LinkedFiles as lint warnings.
func (v *Vault) LinkDiagnostics(ctx context.Context) ([]*Diagnostic, error) {
	links, err := v.LinkedFiles(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Diagnostic, 0, len(links))
	for _, l := range links {
		out = append(out, &Diagnostic{Path: l.Path, Field: "link", Severity: parser.SeverityWarning,
			Err: fmt.Errorf("%w: a symbolic link to %s; %s", ErrLinkedFile, l.Target, l.Fix())})
	}
	return out, nil
}
