package docscheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// TestRepositoryLinksResolve checks every relative link of README.md and
// docs/*.md: the file exists, and an #anchor into a Markdown file names one
// of its headings.
func TestRepositoryLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not at %s: %v", root, err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, "docs/"+filepath.Base(d))
	}
	if len(files) < 5 {
		t.Fatalf("found only %v: is the test run from its package folder?", files)
	}
	problems, err := Check(os.DirFS(root), files)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}

	// Prose and comments name docs too ("see docs/git.md"): every Go file
	// outside tests (whose fixtures name made-up docs) and every doc.
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || (strings.HasPrefix(d.Name(), ".") && p != root)) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	problems, err = CheckMentions(os.DirFS(root), files)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"The index cache", "the-index-cache"},
		{"A load from the files: bodies spooled, a soft memory limit", "a-load-from-the-files-bodies-spooled-a-soft-memory-limit"},
		{"The add process, third round: process start (2026-12-02)", "the-add-process-third-round-process-start-2026-12-02"},
		{"`memvault add`: the header cache", "memvault-add-the-header-cache"},
		{"Git's lock files", "gits-lock-files"},
		{"snake_case and 1.5 ms", "snake_case-and-15-ms"},
		{"结算 模块", "结算-模块"},
		{"The cache folder (`.memory/.cache`)", "the-cache-folder-memorycache"},
	}
	for _, tt := range tests {
		if got := Slug(headingText(tt.heading)); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

func TestAnchors(t *testing.T) {
	doc := "# Title\n\n## Figures\n\n```\n# not a heading\n```\n\n### Figures\n\n#not-a-heading\n\n## [Linked](x.md) heading ##\n" +
		"\n````md\n```go\n# not a heading either\n```\n````\n\n## After fences\n"
	got := Anchors(doc)
	for _, want := range []string{"title", "figures", "figures-1", "linked-heading", "after-fences"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	for _, not := range []string{"not-a-heading", "notaheading", "not-a-heading-either"} {
		if got[not] {
			t.Errorf("anchor %q from a line that is no heading", not)
		}
	}
}

func TestCheck(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md": {Data: []byte(strings.Join([]string{
			"# Read me",
			"[ok](docs/a.md) [ok anchor](docs/a.md#second-part) [self](#read-me)",
			"[web](https://example.com/x.md) [mail](mailto:x@example.com) [out](../elsewhere.md)",
			"[missing](docs/DESIGN.md) ![missing image](docs/shot.png)",
			"[bad anchor](docs/a.md#no-such-part) [bad self](#nowhere)",
			"`[in code](nowhere.md)`",
			"```",
			"[in a fence](nowhere.md)",
			"```",
			"[ref]: docs/gone.md",
			"[dir](docs/) [go file](vault/x.go#L3)",
		}, "\n"))},
		"docs/a.md":  {Data: []byte("# A\n\n## Second part\n\n[up](../README.md#read-me) [sibling](b.md)\n")},
		"vault/x.go": {Data: []byte("package x\n")},
	}
	got, err := Check(fsys, []string{"README.md", "docs/a.md"})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, p := range got {
		lines = append(lines, p.String())
	}
	want := []string{
		`README.md:4: link "docs/DESIGN.md": docs/DESIGN.md does not exist`,
		`README.md:4: link "docs/shot.png": docs/shot.png does not exist`,
		`README.md:5: link "docs/a.md#no-such-part": docs/a.md has no heading with anchor #no-such-part`,
		`README.md:5: link "#nowhere": README.md has no heading with anchor #nowhere`,
		`README.md:10: link "docs/gone.md": docs/gone.md does not exist`,
		`docs/a.md:5: link "b.md": docs/b.md does not exist`,
	}
	if !slices.Equal(lines, want) {
		t.Errorf("Check found\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestCheckMentions(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md":   {Data: []byte("# Read me\n")},
		"docs/git.md": {Data: []byte("# Git\n\n## The write path\n")},
		"vault/a.go": {Data: []byte(strings.Join([]string{
			"package a",
			"",
			"// See docs/git.md and docs/DESIGN.md;",
			"// not ../shared/docs/STYLE.md nor x/docs/y.md.",
			`// (docs/git.md, "The write path"), docs/git.md ("The write path"), docs/git.md#the-write-path`,
			`// (docs/git.md, "The read path"), docs/git.md#figures`,
			`// (docs/git.md, "The write`,
			`// path") and (docs/git.md, "The`,
			"\t// wrong path\")",
		}, "\n"))},
	}
	got, err := CheckMentions(fsys, []string{"vault/a.go"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{
		{File: "vault/a.go", Line: 3, Link: "docs/DESIGN.md", Why: "docs/DESIGN.md does not exist"},
		{File: "vault/a.go", Line: 6, Link: "docs/git.md#the-read-path", Why: "docs/git.md has no heading with anchor #the-read-path"},
		{File: "vault/a.go", Line: 6, Link: "docs/git.md#figures", Why: "docs/git.md has no heading with anchor #figures"},
		{File: "vault/a.go", Line: 8, Link: "docs/git.md#the-wrong-path", Why: "docs/git.md has no heading with anchor #the-wrong-path"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("CheckMentions = %v, want %v", got, want)
	}
}
