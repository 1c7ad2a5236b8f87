package view

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// jsonField is a struct field with a JSON name, where it is declared.
type jsonField struct {
	goName, jsonName, where string
}

// jsonFields lists the JSON-named fields of the structs of a Go file.
func jsonFields(fset *token.FileSet, f *ast.File, where string) []jsonField {
	var out []jsonField
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return true
		}
		for _, fl := range st.Fields.List {
			if fl.Tag == nil {
				continue
			}
			tag, err := strconv.Unquote(fl.Tag.Value)
			if err != nil {
				continue
			}
			name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			for _, id := range fl.Names {
				out = append(out, jsonField{id.Name, name, where + "." + ts.Name.Name})
			}
		}
		return true
	})
	return out
}

// renamed finds the Go field names that carry another JSON name somewhere
// than in a view: a view mirroring a domain struct under other names, or
// two views disagreeing. It returns, per Go name, the JSON names and
// where each is declared.
func renamed(views, others []jsonField) map[string][]string {
	inView := map[string]bool{}
	for _, f := range views {
		inView[f.goName] = true
	}
	names := map[string]map[string][]string{}
	for _, f := range slices.Concat(views, others) {
		if !inView[f.goName] {
			continue
		}
		if names[f.goName] == nil {
			names[f.goName] = map[string][]string{}
		}
		names[f.goName][f.jsonName] = append(names[f.goName][f.jsonName], f.where)
	}
	out := map[string][]string{}
	for goName, byJSON := range names {
		if len(byJSON) < 2 {
			continue
		}
		for j, where := range byJSON {
			out[goName] = append(out[goName], j+" ("+strings.Join(where, ", ")+")")
		}
		slices.Sort(out[goName])
	}
	return out
}

// sameGoNameOtherThing are Go field names that mean different things in a
// view and in a domain struct, each JSON name true to its own.
var sameGoNameOtherThing = map[string]bool{
	// SyncStatus.Broken lists the files a sync left unparsable
	// (broken_files); history.MemoryChange.Broken says the memory's head
	// version does not parse (broken).
	"Broken": true,
	// history.MemoryChange.Body says whether a diff changed the body
	// (body_changed); elsewhere Body is the body.
	"Body": true,
}

func TestRenamed(t *testing.T) {
	views := []jsonField{{"Errors", "parse_errors", "view.VaultStats"}, {"ID", "id", "view.Memory"}}
	tests := []struct {
		name   string
		others []jsonField
		want   []string
	}{
		{"the same names", []jsonField{{"ID", "id", "vault.Memory"}, {"Errors", "parse_errors", "vault.Stats"}}, nil},
		{"a field views lack", []jsonField{{"Rivals", "rivals", "review.Report"}}, nil},
		{"a mirror under another name", []jsonField{{"Errors", "errors", "vault.Stats"}},
			[]string{"Errors: errors (vault.Stats), parse_errors (view.VaultStats)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for goName, js := range renamed(views, tt.others) {
				got = append(got, goName+": "+strings.Join(js, ", "))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("renamed = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOneNamePerField holds the views and the domain to one vocabulary: a
// field of a view (what both doors print) and a domain struct field of
// the same Go name carry the same JSON name, so a document, a log or a
// client never meets one thing under two names.
func TestOneNamePerField(t *testing.T) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	read := func(dir string) []jsonField {
		var out []jsonField
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") ||
				strings.Contains(filepath.ToSlash(p), "/testdata/") {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			out = append(out, jsonFields(fset, f, f.Name.Name)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	views, domain := read("cmd/memvault/internal/view"), read("vault")
	if len(views) == 0 || len(domain) == 0 {
		t.Fatalf("found %d view fields, %d domain fields: not the module's source", len(views), len(domain))
	}
	for goName, js := range renamed(views, domain) {
		if !sameGoNameOtherThing[goName] {
			t.Errorf("%s has two JSON names: %s; use the view's", goName, strings.Join(js, ", "))
		}
	}
}
