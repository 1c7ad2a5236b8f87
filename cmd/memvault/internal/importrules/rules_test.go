package importrules

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// std tells standard-library import paths apart: their first element has
// no dot, unlike every module path.
func std(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// moduleRoot is the folder of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(gomod)))
}

// moduleGraph lists the module's packages with `go list`.
func moduleGraph(t *testing.T) []Package {
	t.Helper()
	root := moduleRoot(t)
	cmd := exec.Command("go", "list", "-json=ImportPath,Standard,Imports,TestImports,XTestImports", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath                         string
			Standard                           bool
			Imports, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs = append(pkgs, Package{Path: p.ImportPath, Standard: p.Standard, Imports: p.Imports,
			TestImports: append(p.TestImports, p.XTestImports...)})
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list found %d packages; want the whole module", len(pkgs))
	}
	return pkgs
}

func TestModuleFollowsImportRules(t *testing.T) {
	for _, v := range Check(Rules, moduleGraph(t), std) {
		t.Errorf("%s", v)
	}
}

func TestCheckReportsViolations(t *testing.T) {
	m := func(p string) string { return Module + "/" + p }
	tests := []struct {
		name string
		pkg  Package
		want []string
	}{
		{"domain imports an adapter", Package{Path: m("vault"), Imports: []string{"fmt", m("parser"), m("gitstore")}},
			[]string{m("gitstore")}},
		{"domain subpackage imports a third-party library", Package{Path: m("vault/transfer"), Imports: []string{"go.yaml.in/yaml/v3"}},
			[]string{"go.yaml.in/yaml/v3", "go.yaml.in/yaml/v3"}}, // two rules: domain-only and YAML's home
		{"domain test imports the MCP library", Package{Path: m("vault/index"), TestImports: []string{"github.com/mark3labs/mcp-go/client"}},
			[]string{"github.com/mark3labs/mcp-go/client"}},
		{"domain test may use go-cmp", Package{Path: m("vault"), TestImports: []string{"github.com/google/go-cmp/cmp"}}, nil},
		{"the storage engine imports the domain", Package{Path: m("vault/store"), Imports: []string{m("vault/fault"), m("vault")}},
			[]string{m("vault")}},
		{"the storage engine's tests import the index", Package{Path: m("vault/store"), TestImports: []string{m("vault/index")}},
			[]string{m("vault/index")}},
		{"parser imports the domain", Package{Path: m("parser"), Imports: []string{m("vault")}}, []string{m("vault")}},
		{"adapter imports the domain", Package{Path: m("watcher"), Imports: []string{m("vault")}}, []string{m("vault")}},
		{"adapter imports another adapter", Package{Path: m("gitstore"), Imports: []string{m("watcher")}}, []string{m("watcher")}},
		{"go-git outside gitstore", Package{Path: m("cmd/memvault"), Imports: []string{"github.com/go-git/go-git/v5"}},
			[]string{"github.com/go-git/go-git/v5"}},
		{"go-git in gitstore", Package{Path: m("gitstore"), Imports: []string{"github.com/go-git/go-git/v5/plumbing"}}, nil},
		{"cobra outside the command", Package{Path: m("cmd/memvault/internal/demo"), Imports: []string{"github.com/spf13/cobra"}},
			[]string{"github.com/spf13/cobra"}},
		{"the command wires everything", Package{Path: m("cmd/memvault"), Imports: []string{m("gitstore"), m("vault"), m("watcher"), "github.com/spf13/cobra"}}, nil},
		{"go-diff outside vault/history", Package{Path: m("cmd/memvault"), Imports: []string{"github.com/sergi/go-diff/diffmatchpatch"}},
			[]string{"github.com/sergi/go-diff/diffmatchpatch"}},
		{"go-diff in vault/history", Package{Path: m("vault/history"), Imports: []string{"github.com/sergi/go-diff/diffmatchpatch"}}, nil},
		{"mcp-go's server outside the MCP package", Package{Path: m("cmd/memvault"), TestImports: []string{"github.com/mark3labs/mcp-go/server"}},
			[]string{"github.com/mark3labs/mcp-go/server"}},
		{"mcp-go's client outside it", Package{Path: m("cmd/memvault/internal/demo"), Imports: []string{"github.com/mark3labs/mcp-go/client"}}, nil},
		{"the MCP package imports git", Package{Path: m("cmd/memvault/internal/mcpserver"), Imports: []string{"github.com/mark3labs/mcp-go/server", m("gitstore")}},
			[]string{m("gitstore")}},
		{"the MCP package's tests use the watcher", Package{Path: m("cmd/memvault/internal/mcpserver"), TestImports: []string{m("watcher")}},
			[]string{m("watcher")}},
		{"chromedp outside browsertest", Package{Path: m("cmd/memvault/internal/webui"), TestImports: []string{"github.com/chromedp/chromedp"}},
			[]string{"github.com/chromedp/chromedp"}},
		{"chromedp in browsertest", Package{Path: m("cmd/memvault/internal/browsertest"), Imports: []string{"github.com/chromedp/chromedp", "github.com/chromedp/cdproto/css"}}, nil},
		{"the binary imports browsertest", Package{Path: m("cmd/memvault/internal/webui"), Imports: []string{m("cmd/memvault/internal/browsertest")}},
			[]string{m("cmd/memvault/internal/browsertest")}},
		{"a test imports browsertest", Package{Path: m("cmd/memvault/internal/webui"), TestImports: []string{m("cmd/memvault/internal/browsertest")}}, nil},
		{"standard library is always allowed", Package{Path: m("parser"), Imports: []string{"fmt", "unicode/utf8"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := Check(Rules, []Package{tt.pkg}, std)
			var got []string
			for _, v := range vs {
				got = append(got, v.Import)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("violations %v, want imports %v", vs, tt.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"vault/...", Module + "/vault", true},
		{"vault/...", Module + "/vault/index", true},
		{"vault/...", Module + "/vaultx", false},
		{"vault", Module + "/vault/index", false},
		{"github.com/go-git/...", "github.com/go-git/go-git/v5", true},
		{"github.com/go-git/...", "github.com/go-gitx/y", false},
		{"...", "anything", true},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.path); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}
