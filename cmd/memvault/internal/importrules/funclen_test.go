package importrules

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the most lines of code a function of the module may
// have (issue 25: a long function is several steps; make each a function).
// Lines inside composite literals do not count, so data tables (the
// secret rules, a test's cases) stay whole.
const maxFuncLines = 150

// longFuncs are the functions known to be longer, each waiting on its
// own change; the test fails on any other, and on an entry that is no
// longer long (remove it).
var longFuncs = map[string]bool{}

// codeLines counts a function's lines outside composite literals.
func codeLines(fset *token.FileSet, fd *ast.FuncDecl) int {
	first, last := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
	inLit := map[int]bool{}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		cl, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		// The lines between the braces: the opening and closing lines
		// hold code too.
		for l := fset.Position(cl.Lbrace).Line + 1; l < fset.Position(cl.Rbrace).Line; l++ {
			inLit[l] = true
		}
		return false
	})
	return last - first + 1 - len(inLit)
}

// funcName names a function as longFuncs does, after its file.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	var recv func(ast.Expr) string
	recv = func(e ast.Expr) string {
		switch x := e.(type) {
		case *ast.StarExpr:
			return "*" + recv(x.X)
		case *ast.IndexExpr:
			return recv(x.X)
		case *ast.IndexListExpr:
			return recv(x.X)
		case *ast.Ident:
			return x.Name
		}
		return "?"
	}
	return "(" + recv(fd.Recv.List[0].Type) + ")." + fd.Name.Name
}

// longFunctions lists the functions of a Go file longer than max lines of
// code, as "name (n lines)".
func longFunctions(fset *token.FileSet, f *ast.File, max int) map[string]int {
	out := map[string]int{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			if n := codeLines(fset, fd); n > max {
				out[funcName(fd)] = n
			}
		}
	}
	return out
}

func TestLongFunctions(t *testing.T) {
	long := func(stmts int) string {
		return "package p\nfunc f() {\n" + strings.Repeat("\tx++\n", stmts) + "}\n"
	}
	table := func(rows int) string {
		return "package p\nfunc table() []int {\n\treturn []int{\n" + strings.Repeat("\t\t1,\n", rows) + "\t}\n}\n"
	}
	tests := []struct {
		name string
		src  string
		want map[string]int
	}{
		{"short", long(5), map[string]int{}},
		{"at the limit", long(8), map[string]int{}},
		{"over the limit", long(9), map[string]int{"f": 11}},
		{"a data table", table(50), map[string]int{}},
		{"a method", "package p\ntype T struct{}\nfunc (t *T) m() {\n" + strings.Repeat("\tx++\n", 9) + "}\n", map[string]int{"(*T).m": 11}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "p.go", tt.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := longFunctions(fset, f, 10)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("longFunctions = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestNoLongFunctions holds the module's non-test code to maxFuncLines per
// function.
func TestNoLongFunctions(t *testing.T) {
	root := moduleRoot(t)
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for name, n := range longFunctions(fset, f, maxFuncLines) {
			key := filepath.ToSlash(rel) + " " + name
			seen[key] = true
			if !longFuncs[key] {
				t.Errorf("%s: %d lines of code, more than %d: make its steps functions", key, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range longFuncs {
		if !seen[key] {
			t.Errorf("%s is no longer over %d lines: remove it from longFuncs", key, maxFuncLines)
		}
	}
}
