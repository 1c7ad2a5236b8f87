package vault

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/memvault/memvault/parser"
)

// CacheDirCheck is doctor's check of the cache folder memvault refuses
// (CheckCacheDir): what is wrong ("" when nothing) and, with fix, what it
// repaired ("" when nothing): a linked folder replaced with a real one. The
// link usually came with the clone: the fix leaves its removal for the
// next commit.
func (v *Vault) CacheDirCheck(fix bool) (problem, fixed string) {
	err := CheckCacheDir(v.Dir())
	switch {
	case err == nil:
		return "", ""
	case !errors.Is(err, ErrCacheDir):
		return err.Error(), ""
	case !fix:
		return fmt.Sprintf("%v; the index cache is not used; --fix replaces the link with a folder", err), ""
	}
	if ferr := FixCacheDir(v.Dir()); ferr != nil {
		return ferr.Error(), ""
	}
	return "", fmt.Sprintf("replaced the link %s with a folder; if git tracked the link, commit its removal (git rm --cached %s)", CacheDirName, filepath.Join(v.Dir(), CacheDirName))
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
