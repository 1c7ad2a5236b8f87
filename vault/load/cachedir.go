package load

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/store"
)

// CacheDirName is the folder, inside the vault, that holds the index
// cache (see store.DirName).
const CacheDirName = store.DirName

// CacheDirCheck is doctor's check of the cache folder of the vault at dir
// that memvault refuses (store.CheckDir): what is wrong ("" when nothing)
// and, with fix, what it repaired ("" when nothing): a linked folder
// replaced with a real one. The link usually came with the clone: the fix
// leaves its removal for the next commit.
func CacheDirCheck(dir string, fix bool) (problem, fixed string) {
	err := store.CheckDir(dir)
	switch {
	case err == nil:
		return "", ""
	case !errors.Is(err, store.ErrCacheDir):
		return err.Error(), ""
	case !fix:
		return fmt.Sprintf("%v; the index cache is not used; --fix replaces the link with a folder", err), ""
	}
	if ferr := store.FixDir(dir); ferr != nil {
		return ferr.Error(), ""
	}
	return "", fmt.Sprintf("replaced the link %s with a folder; if git tracked the link, commit its removal (git rm --cached %s)", CacheDirName, filepath.Join(dir, CacheDirName))
}

// CacheDirDiagnostics is what lint says about the cache folder of the
// vault at dir: an error when memvault refuses it (see store.CheckDir),
// nothing else.
func CacheDirDiagnostics(dir string) []*parser.Error {
	err := store.CheckDir(dir)
	if err == nil {
		return nil
	}
	return []*parser.Error{{Path: CacheDirName, Severity: parser.SeverityError,
		Err: fmt.Errorf("%w; the index cache is not used (memvault doctor --fix replaces a link with a folder)", err)}}
}
