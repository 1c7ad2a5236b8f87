package importrules

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Module is memvault's module path; rules name project packages relative
// to it ("vault/...").
const Module = "github.com/memvault/memvault"

// Package is one package of the import graph, as `go list` reports it.
type Package struct {
	// Path is the import path.
	Path string
	// Imports are the imports of the package's non-test files.
	Imports []string
	// TestImports are the imports of its _test.go files, in-package and
	// external.
	TestImports []string
	// Standard is set for packages of the standard library.
	Standard bool
}

// Rule forbids some imports to some packages.
type Rule struct {
	// Name says what the rule protects, as docs/architecture.md words it.
	Name string
	// Applies lists the packages the rule holds for, as patterns (see
	// Match); Except lists packages exempt from it.
	Applies, Except []string
	// Deny lists the imports the rule refuses, as patterns.
	Deny []string
	// Only, when set, refuses every import of a non-standard package that
	// matches none of its patterns.
	Only []string
	// Tests extends the rule to the packages' test files, which may also
	// import TestAllow (test helpers such as go-cmp and txtar).
	Tests     bool
	TestAllow []string
}

// Violation is one import a rule refuses.
type Violation struct {
	Rule, Package, Import string
	Test                  bool
}

func (v Violation) String() string {
	where := v.Package
	if v.Test {
		where += " (tests)"
	}
	return fmt.Sprintf("%s imports %s: %s", where, v.Import, v.Rule)
}

// Rules are the import rules of docs/architecture.md ("Import rules"):
// the domain imports no adapter, and each third-party library has one home.
var Rules = []Rule{
	{
		Name:    "the domain imports parser, filechange, its own subpackages and the standard library only",
		Applies: []string{"vault/..."},
		// vault/history diffs memory bodies with go-diff (the issue that
		// made the package named it as go-diff's one home).
		// filechange is the change vocabulary it shares with gitstore.
		Only:  []string{"parser", "filechange", "vault/...", "github.com/sergi/go-diff/..."},
		Tests: true,
		// ulid is the reference the id tests compare vault's own ULIDs with.
		TestAllow: []string{"github.com/google/go-cmp/...", "github.com/rogpeppe/go-internal/txtar", "github.com/oklog/ulid/..."},
	},
	{
		// The storage engine is generic over the memory type: a rule
		// about memories cannot hide in it.
		Name:    "the storage engine knows files, not memories: vault/store imports no domain package but vault/fault",
		Applies: []string{"vault/store"},
		Only:    []string{"parser", "vault/fault"},
		Tests:   true,
	},
	{
		Name:    "parser imports no project package",
		Applies: []string{"parser"},
		Deny:    []string{"..."},
	},
	{
		// Both sides of the domain/adapter line import it, so it must
		// import neither.
		Name:    "filechange imports no project package",
		Applies: []string{"filechange"},
		Deny:    []string{"..."},
	},
	{
		Name:    "adapters never import the domain or each other",
		Applies: []string{"gitstore", "watcher"},
		Deny:    []string{"vault/...", "parser", "cmd/...", "gitstore", "watcher"},
	},
	{
		Name:    "go-git lives in gitstore",
		Applies: []string{"..."},
		Except:  []string{"gitstore"},
		Deny:    []string{"github.com/go-git/..."},
		Tests:   true,
	},
	{
		Name:    "fsnotify lives in watcher",
		Applies: []string{"..."},
		Except:  []string{"watcher"},
		Deny:    []string{"github.com/fsnotify/..."},
		Tests:   true,
	},
	{
		Name:    "goldmark and YAML live in parser",
		Applies: []string{"..."},
		Except:  []string{"parser"},
		Deny:    []string{"github.com/yuin/goldmark/...", "go.yaml.in/yaml/...", "gopkg.in/yaml.v3"},
	},
	{
		Name:    "go-diff lives in vault/history",
		Applies: []string{"..."},
		Except:  []string{"vault/history"},
		Deny:    []string{"github.com/sergi/go-diff/..."},
		Tests:   true,
	},
	{
		Name:    "only the MCP package imports mcp-go's server",
		Applies: []string{"..."},
		Except:  []string{"cmd/memvault/internal/mcpserver"},
		Deny:    []string{"github.com/mark3labs/mcp-go/server/..."},
		Tests:   true,
	},
	{
		Name:    "the MCP server knows no git or file watcher: cmd/memvault wires them in",
		Applies: []string{"cmd/memvault/internal/mcpserver"},
		Deny:    []string{"gitstore", "watcher", "github.com/go-git/...", "github.com/fsnotify/..."},
		Tests:   true,
	},
	{
		Name:    "chromedp lives in browsertest",
		Applies: []string{"..."},
		Except:  []string{"cmd/memvault/internal/browsertest"},
		Deny:    []string{"github.com/chromedp/..."},
		Tests:   true,
	},
	{
		// Its tests import it; the binary must not carry a browser driver.
		Name:    "browsertest is for tests only",
		Applies: []string{"..."},
		Deny:    []string{"cmd/memvault/internal/browsertest"},
	},
	{
		Name:    "cobra lives in the command",
		Applies: []string{"..."},
		Except:  []string{"cmd/memvault"},
		Deny:    []string{"github.com/spf13/cobra/...", "github.com/spf13/pflag/..."},
	},
}

// Match reports whether path matches pattern. A pattern ending in "/..."
// matches that package and everything below it; "..." alone matches
// everything. Patterns without a dot in their first element name project
// packages relative to Module.
func Match(pattern, path string) bool {
	if pattern == "..." {
		return true
	}
	full := pattern
	first, _, _ := strings.Cut(pattern, "/")
	if !strings.Contains(first, ".") {
		full = Module + "/" + pattern
	}
	if base, ok := strings.CutSuffix(full, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == full
}

func matchAny(patterns []string, path string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return Match(p, path) })
}

// project reports whether path is a package of this module.
func project(path string) bool {
	return path == Module || strings.HasPrefix(path, Module+"/")
}

// Check applies rules to pkgs (the module's own packages; std tells the
// standard library's import paths apart) and returns every violation,
// sorted.
func Check(rules []Rule, pkgs []Package, std func(string) bool) []Violation {
	var out []Violation
	for _, p := range pkgs {
		for _, r := range rules {
			if !matchAny(r.Applies, p.Path) || matchAny(r.Except, p.Path) {
				continue
			}
			check := func(imports []string, test bool) {
				for _, imp := range imports {
					if imp == p.Path || imp == "C" || std(imp) {
						continue
					}
					denied := false
					if len(r.Deny) > 0 {
						for _, d := range r.Deny {
							// "..." in Deny means every project package.
							if (d == "..." && project(imp)) || (d != "..." && Match(d, imp)) {
								denied = true
							}
						}
					}
					if len(r.Only) > 0 && !matchAny(r.Only, imp) && !(test && matchAny(r.TestAllow, imp)) {
						denied = true
					}
					if denied {
						out = append(out, Violation{Rule: r.Name, Package: p.Path, Import: imp, Test: test})
					}
				}
			}
			check(p.Imports, false)
			if r.Tests {
				check(p.TestImports, true)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return slices.CompactFunc(out, func(a, b Violation) bool { return a == b })
}
