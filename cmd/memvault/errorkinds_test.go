package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/clientconfig"
	"github.com/memvault/memvault/cmd/memvault/internal/demo"
	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/hook"
	"github.com/memvault/memvault/cmd/memvault/internal/teamsync"
	"github.com/memvault/memvault/gitstore"
	mparser "github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/diskwrite"
	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/memory"
	"github.com/memvault/memvault/vault/merge"
	"github.com/memvault/memvault/vault/resolve"
	"github.com/memvault/memvault/vault/staleness"
	"github.com/memvault/memvault/vault/store"
	"github.com/memvault/memvault/vault/transfer"
	"github.com/memvault/memvault/watcher"
)

// sentinels are the module's exported sentinel errors, by package (its
// path in the module) and name. TestEverySentinelHasAKind finds them in
// the source, so a new one fails the test until it is listed here with a
// kind.
var sentinels = map[string]error{
	"cmd/memvault.errNoVault": errNoVault,

	"cmd/memvault/internal/clientconfig.ErrUnknownClient": clientconfig.ErrUnknownClient,
	"cmd/memvault/internal/demo.ErrNoSample":              demo.ErrNoSample,
	"cmd/memvault/internal/gitrepo.ErrBadSince":           gitrepo.ErrBadSince,
	"cmd/memvault/internal/gitrepo.ErrForeignRepository":  gitrepo.ErrForeignRepository,
	"cmd/memvault/internal/hook.ErrRefused":               hook.ErrRefused,
	"cmd/memvault/internal/teamsync.ErrConflicts":         teamsync.ErrConflicts,
	"cmd/memvault/internal/teamsync.ErrDetached":          teamsync.ErrDetached,
	"cmd/memvault/internal/teamsync.ErrInProgress":        teamsync.ErrInProgress,
	"cmd/memvault/internal/teamsync.ErrBrokenCommitted":   teamsync.ErrBrokenCommitted,
	"cmd/memvault/internal/teamsync.ErrNetworkTimeout":    teamsync.ErrNetworkTimeout,

	"gitstore.ErrDetachedHead":        gitstore.ErrDetachedHead,
	"gitstore.ErrHookTaken":           gitstore.ErrHookTaken,
	"gitstore.ErrIndexLocked":         gitstore.ErrIndexLocked,
	"gitstore.ErrNoChange":            gitstore.ErrNoChange,
	"gitstore.ErrNoGitCLI":            gitstore.ErrNoGitCLI,
	"gitstore.ErrNoIdentity":          gitstore.ErrNoIdentity,
	"gitstore.ErrNotAncestor":         gitstore.ErrNotAncestor,
	"gitstore.ErrNotFound":            gitstore.ErrNotFound,
	"gitstore.ErrNotOurHook":          gitstore.ErrNotOurHook,
	"gitstore.ErrNotRepository":       gitstore.ErrNotRepository,
	"gitstore.ErrOperationInProgress": gitstore.ErrOperationInProgress,
	"gitstore.ErrOutsideWorkTree":     gitstore.ErrOutsideWorkTree,
	"gitstore.ErrRefChanged":          gitstore.ErrRefChanged,
	"gitstore.ErrUnsupported":         gitstore.ErrUnsupported,

	"parser.ErrBinary":        mparser.ErrBinary,
	"parser.ErrDuplicateKey":  mparser.ErrDuplicateKey,
	"parser.ErrNoFrontMatter": mparser.ErrNoFrontMatter,
	"parser.ErrSyntax":        mparser.ErrSyntax,
	"parser.ErrTooLarge":      mparser.ErrTooLarge,
	"parser.ErrType":          mparser.ErrType,
	"parser.ErrUnclosed":      mparser.ErrUnclosed,
	"parser.ErrValue":         mparser.ErrValue,

	"vault.ErrAmbiguousID":         vault.ErrAmbiguousID,
	"vault.ErrLayerFolder":         vault.ErrLayerFolder,
	"vault.ErrLinkedFile":          vault.ErrLinkedFile,
	"vault.ErrConflict":            vault.ErrConflict,
	"vault.ErrConflictMarkers":     vault.ErrConflictMarkers,
	"vault.ErrDangling":            vault.ErrDangling,
	"vault.ErrDuplicate":           vault.ErrDuplicate,
	"vault.ErrDuplicateID":         vault.ErrDuplicateID,
	"vault.ErrGitOperation":        vault.ErrGitOperation,
	"vault.ErrHeadersOnly":         vault.ErrHeadersOnly,
	"vault.ErrInvalid":             vault.ErrInvalid,
	"vault.ErrInvalidLayer":        vault.ErrInvalidLayer,
	"vault.ErrMalformedFile":       vault.ErrMalformedFile,
	"vault.ErrNoCommitter":         vault.ErrNoCommitter,
	"vault.ErrNoVault":             vault.ErrNoVault,
	"vault.ErrNotFound":            vault.ErrNotFound,
	"vault/resolve.ErrNotUnmerged": resolve.ErrNotUnmerged,
	"vault.ErrOutsideVault":        vault.ErrOutsideVault,
	"vault.ErrReadOnly":            vault.ErrReadOnly,
	"vault.ErrRefNeverExisted":     vault.ErrRefNeverExisted,
	"vault.ErrSecret":              vault.ErrSecret,
	"vault.ErrStatusDisagrees":     vault.ErrStatusDisagrees,
	"vault.ErrSupersedesSelf":      vault.ErrSupersedesSelf,
	"vault.ErrSupersessionCycle":   vault.ErrSupersessionCycle,
	"vault.ErrUnchanged":           vault.ErrUnchanged,

	"vault/memory.ErrConflictMarkers": memory.ErrConflictMarkers,
	"vault/memory.ErrInvalidLayer":    memory.ErrInvalidLayer,
	"vault/memory.ErrSecret":          memory.ErrSecret,
	"vault/memory.ErrSupersedesSelf":  memory.ErrSupersedesSelf,
	"vault/diskwrite.ErrInvalid":      diskwrite.ErrInvalid,
	"vault/diskwrite.ErrOutsideVault": diskwrite.ErrOutsideVault,

	"vault/history.ErrNoHistory":     history.ErrNoHistory,
	"vault/history.ErrNoMatch":       history.ErrNoMatch,
	"vault/history.ErrNotFound":      history.ErrNotFound,
	"vault/index.ErrNotEmpty":        index.ErrNotEmpty,
	"vault/index.ErrSnapshot":        index.ErrSnapshot,
	"vault/merge.ErrTooLarge":        merge.ErrTooLarge,
	"vault/merge.ErrTooManyKeys":     merge.ErrTooManyKeys,
	"vault/merge.ErrTwoMemories":     merge.ErrTwoMemories,
	"vault/merge.ErrUnmergeable":     merge.ErrUnmergeable,
	"vault/staleness.ErrBadRef":      staleness.ErrBadRef,
	"vault/staleness.ErrClosed":      staleness.ErrClosed,
	"vault/staleness.ErrNotAncestor": staleness.ErrNotAncestor,
	"vault/staleness.ErrSnapshot":    staleness.ErrSnapshot,
	"vault/store.ErrBadCache":        store.ErrBadCache,
	"vault/store.ErrCacheDir":        store.ErrCacheDir,
	"vault/transfer.ErrFormat":       transfer.ErrFormat,
	"vault/transfer.ErrOutput":       transfer.ErrOutput,

	"watcher.ErrChangesClosed": watcher.ErrChangesClosed,
}

// testOnly are the packages only tests import (the import rules say so):
// their errors reach no door.
var testOnly = map[string]bool{"cmd/memvault/internal/browsertest": true}

// errorSource is what the module's non-test source declares: its
// sentinel errors (package-level variables named Err..., and errNoVault
// above), and its error types with the methods they have.
type errorSource struct {
	sentinels []string
	// types maps "pkg.Type" to its method names.
	types map[string]map[string]bool
}

func scanErrors(t *testing.T) errorSource {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	src := errorSource{types: map[string]map[string]bool{}}
	methods := map[string]map[string]bool{}
	hasError := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "sample-vault") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if testOnly[filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, root+string(filepath.Separator))))] {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.GenDecl:
				if decl.Tok != token.VAR {
					continue
				}
				for _, spec := range decl.Specs {
					for _, n := range spec.(*ast.ValueSpec).Names {
						if strings.HasPrefix(n.Name, "Err") || (pkg == "cmd/memvault" && n.Name == "errNoVault") {
							src.sentinels = append(src.sentinels, pkg+"."+n.Name)
						}
					}
				}
			case *ast.FuncDecl:
				if decl.Recv == nil || len(decl.Recv.List) != 1 {
					continue
				}
				typ := decl.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				id, ok := typ.(*ast.Ident)
				if !ok {
					continue
				}
				key := pkg + "." + id.Name
				if methods[key] == nil {
					methods[key] = map[string]bool{}
				}
				methods[key][decl.Name.Name] = true
				if decl.Name.Name == "Error" && decl.Type.Params.NumFields() == 0 {
					hasError[key] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range hasError {
		src.types[key] = methods[key]
	}
	if len(src.sentinels) < 40 || len(src.types) < 10 {
		t.Fatalf("found %d sentinels and %d error types in %s; want the whole module", len(src.sentinels), len(src.types), root)
	}
	return src
}

// TestEverySentinelHasAKind fails when a sentinel error of the module
// has no kind (vault/fault), so both doors would answer it as internal:
// exit status 2, and an MCP error the model cannot act on.
func TestEverySentinelHasAKind(t *testing.T) {
	src := scanErrors(t)
	found := map[string]bool{}
	for _, name := range src.sentinels {
		found[name] = true
		err, ok := sentinels[name]
		if !ok {
			t.Errorf("%s is not in this test's sentinels: list it, with a kind given where it is declared (fault.New, or ErrorKind in an adapter)", name)
			continue
		}
		if k := fault.Of(err); !fault.Known(k) {
			t.Errorf("%s (%q) has no kind (fault.Of = %q)", name, err, k)
		}
	}
	var stale []string
	for name := range sentinels {
		if !found[name] {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	for _, name := range stale {
		t.Errorf("%s is listed here but not declared in the module", name)
	}
}

// TestEveryErrorTypeHasAKind fails when an error type says no kind of
// its own (ErrorKind) and wraps nothing that could (Unwrap).
func TestEveryErrorTypeHasAKind(t *testing.T) {
	src := scanErrors(t)
	var names []string
	for name := range src.types {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		m := src.types[name]
		if !m["ErrorKind"] && !m["Unwrap"] {
			t.Errorf("error type %s has neither ErrorKind nor Unwrap: give it a kind", name)
		}
	}
}
