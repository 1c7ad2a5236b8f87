package vault

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/memvault/memvault/parser"
)

// cacheDir reports a cache folder memvault refuses (CheckCacheDir) and,
// with Fix, replaces a linked one with a real folder. The link usually
// came with the clone: the fix leaves its removal for the next commit.
func (r *doctorRun) cacheDir() {
	err := CheckCacheDir(r.v.Dir())
	switch {
	case err == nil:
		return
	case !errors.Is(err, ErrCacheDir):
		r.add("cache", CheckProblem, "%v", err)
		return
	case !r.Fix:
		r.add("cache", CheckProblem, "%v; the index cache is not used; --fix replaces the link with a folder", err)
		return
	}
	if ferr := FixCacheDir(r.v.Dir()); ferr != nil {
		r.add("cache", CheckProblem, "%v", ferr)
		return
	}
	r.add("cache", CheckFixed, "replaced the link %s with a folder; if git tracked the link, commit its removal (git rm --cached %s)", CacheDirName, filepath.Join(r.v.Dir(), CacheDirName))
}

// CacheDirDiagnostics is what lint says about the vault's cache folder:
// an error when memvault refuses it (see CheckCacheDir), nothing else.
func (v *Vault) CacheDirDiagnostics() []*Diagnostic {
	err := CheckCacheDir(v.Dir())
	if err == nil {
		return nil
	}
	return []*Diagnostic{{Path: CacheDirName, Severity: parser.SeverityError,
		Err: fmt.Errorf("%w; the index cache is not used (memvault doctor --fix replaces a link with a folder)", err)}}
}
