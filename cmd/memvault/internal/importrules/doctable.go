package importrules

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Row is one line of the package table in docs/architecture.md: a
// package, and the project packages it says the package imports.
type Row struct {
	// Line is the row's line number in the document, for messages.
	Line int
	// Package names the package: its path relative to Module, or the last
	// element of its path when that names one package only.
	Package string
	// Imports lists the imports the row states, as names or patterns
	// ("vault/..."); Everything is set for "everything", and an empty
	// Imports with Everything unset means "none".
	Imports    []string
	Everything bool
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// ParseTable reads the package table of docs/architecture.md: the first
// Markdown table whose header's first cell is "package" and whose last
// cell starts with "imports". Each row's first cell holds the package in
// backticks; its last cell holds the imports in backticks, or "none" or
// "everything".
func ParseTable(doc string) ([]Row, error) {
	var rows []Row
	in := false
	for i, line := range strings.Split(doc, "\n") {
		cells := tableCells(line)
		switch {
		case !in && len(cells) >= 2 && strings.EqualFold(cells[0], "package") &&
			strings.HasPrefix(strings.ToLower(cells[len(cells)-1]), "imports"):
			in = true
		case in && cells == nil:
			if len(rows) > 0 {
				return rows, nil
			}
		case in && strings.Trim(cells[0], "-: ") == "":
			// the header's separator line
		case in:
			r, err := parseRow(cells, i+1)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no package table (a header row starting \"| package |\" and ending \"| imports ... |\")")
	}
	return rows, nil
}

func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
		return nil
	}
	cells := strings.Split(line[1:len(line)-1], "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func parseRow(cells []string, line int) (Row, error) {
	name := codeSpan.FindStringSubmatch(cells[0])
	if name == nil {
		return Row{}, fmt.Errorf("line %d: the first cell names no package in backticks: %q", line, cells[0])
	}
	r := Row{Line: line, Package: name[1]}
	last := cells[len(cells)-1]
	switch strings.ToLower(last) {
	case "none":
		return r, nil
	case "everything":
		r.Everything = true
		return r, nil
	}
	for _, m := range codeSpan.FindAllStringSubmatch(last, -1) {
		r.Imports = append(r.Imports, m[1])
	}
	if len(r.Imports) == 0 {
		return Row{}, fmt.Errorf("line %d: the imports cell is neither \"none\", \"everything\" nor a list of packages in backticks: %q", line, last)
	}
	return r, nil
}

// CompareTable checks rows against pkgs (the module's packages, as go
// list reports them) and returns what the table gets wrong: a package it
// does not list, a row naming no package or several, a project import the
// row does not state, and a stated import the package does not have.
func CompareTable(rows []Row, pkgs []Package) []string {
	var paths []string
	for _, p := range pkgs {
		if project(p.Path) && !p.Standard {
			paths = append(paths, p.Path)
		}
	}
	resolve := func(name string) (string, error) {
		if base, ok := strings.CutSuffix(name, "/..."); ok {
			full, err := resolveName(base, paths)
			return full + "/...", err
		}
		return resolveName(name, paths)
	}
	var out []string
	listed := map[string]bool{}
	for _, r := range rows {
		pkg, err := resolve(r.Package)
		if err != nil {
			out = append(out, fmt.Sprintf("line %d: %v", r.Line, err))
			continue
		}
		listed[pkg] = true
		if r.Everything {
			continue
		}
		var stated []string
		for _, name := range r.Imports {
			full, err := resolve(name)
			if err != nil {
				out = append(out, fmt.Sprintf("line %d (%s): %v", r.Line, r.Package, err))
				continue
			}
			stated = append(stated, full)
		}
		imports := projectImports(pkgs, pkg)
		for _, imp := range imports {
			if !slices.ContainsFunc(stated, func(s string) bool { return Match(s, imp) }) {
				out = append(out, fmt.Sprintf("line %d (%s): imports %s, which the row does not state", r.Line, r.Package, rel(imp)))
			}
		}
		for _, s := range stated {
			if !slices.ContainsFunc(imports, func(imp string) bool { return Match(s, imp) }) {
				out = append(out, fmt.Sprintf("line %d (%s): states %s, which it does not import", r.Line, r.Package, rel(s)))
			}
		}
	}
	for _, p := range paths {
		if !listed[p] {
			out = append(out, fmt.Sprintf("package %s has no row", rel(p)))
		}
	}
	sort.Strings(out)
	return out
}

// resolveName turns a row's name into a package's full path: a path
// relative to Module, or a last element that names one package only.
func resolveName(name string, paths []string) (string, error) {
	if full := Module + "/" + name; slices.Contains(paths, full) {
		return full, nil
	}
	var found []string
	for _, p := range paths {
		if strings.HasSuffix(p, "/"+name) && !strings.Contains(name, "/") {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("%q names no package of the module", name)
	}
	return "", fmt.Errorf("%q names several packages (%s): write its path", name, strings.Join(found, ", "))
}

func projectImports(pkgs []Package, path string) []string {
	for _, p := range pkgs {
		if p.Path != path {
			continue
		}
		var out []string
		for _, imp := range p.Imports {
			if project(imp) && imp != path {
				out = append(out, imp)
			}
		}
		return out
	}
	return nil
}

func rel(path string) string {
	return strings.TrimPrefix(path, Module+"/")
}
