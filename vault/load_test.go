package vault

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/parser"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadHandWrittenDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mod := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	writeFiles(t, dir, map[string]string{
		"project/no-front-matter.md": "# Deploys happen on Tuesdays\n\nNever on Friday.\n",
		"project/partial.md":         "---\ntags: ops, release\nimportance: 7\n---\n# Release checklist\n\nRun the smoke tests.\n",
		"preferences/naming.md":      "---\ntitle: Verb-first function names\n---\nUse getUser, not userGet.\n",
		"meta/wins.md":               "---\nid: custom-id\nlayer: project\ntitle: Layer in front matter wins\n---\nbody #Inline-Tag [[Deploys happen on Tuesdays]]\n",
		"README.md":                  "# not a memory\n",
		".obsidian/workspace.md":     "# not a memory either\n",
		"project/notes.txt":          "not markdown",
	})
	for _, rel := range []string{"project/no-front-matter.md", "project/partial.md", "preferences/naming.md", "meta/wins.md"} {
		if err := os.Chtimes(filepath.Join(dir, rel), mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T00:00:00Z").Now})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id, title  string
		layer      Layer
		importance int
		tags       []string
	}{
		{"project/no-front-matter", "Deploys happen on Tuesdays", Project, 5, nil},
		{"project/partial", "Release checklist", Project, 7, []string{"ops", "release"}},
		{"preferences/naming", "Verb-first function names", Preference, 5, nil},
		{"custom-id", "Layer in front matter wins", Project, 5, []string{"Inline-Tag"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			m, err := v.Get(tt.id)
			if err != nil {
				t.Fatalf("Get: %v (all: %v)", err, v.All())
			}
			if m.Title != tt.title || m.Layer != tt.layer || m.Importance != tt.importance || !slices.Equal(m.Tags, tt.tags) {
				t.Errorf("got title=%q layer=%v importance=%d tags=%v, want %q %v %d %v", m.Title, m.Layer, m.Importance, m.Tags, tt.title, tt.layer, tt.importance, tt.tags)
			}
			if !m.CreatedAt.Equal(mod) || !m.UpdatedAt.Equal(mod) {
				t.Errorf("dates = %v/%v, want the modification time %v", m.CreatedAt, m.UpdatedAt, mod)
			}
			if m.Version != 1 || m.Status != StatusActive {
				t.Errorf("version=%d status=%s, want 1 active", m.Version, m.Status)
			}
		})
	}
	if n := len(v.All()); n != 4 {
		t.Fatalf("loaded %d memories, want 4 (README, dot-folders and .txt skipped)", n)
	}
	m, _ := v.Get("custom-id")
	if got, want := v.Related(m), []Ref{{ID: "project/no-front-matter", Title: "Deploys happen on Tuesdays"}}; !slices.Equal(got, want) {
		t.Errorf("Related = %v, want %v (the [[wiki link]] resolved by title)", got, want)
	}
}

func TestLoadBadFilesAreReportedAndLeftAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"project/good.md":        "---\nid: good\ntitle: A good memory\n---\nFine.\n",
		"project/broken-yaml.md": "---\nid: broken\ntitle: [unclosed\n---\nStill has a body.\n",
		"project/bad-layer.md":   "---\nid: badlayer\ntitle: Odd layer\nlayer: galaxy\n---\nx\n",
		"project/dup.md":         "---\nid: good\ntitle: Same id as good.md\n---\nx\n",
		"project/crlf.md":        "---\r\nid: crlf\r\ntitle: Windows line endings\r\n---\r\nBody\r\n",
		"project/bom.md":         "\ufeff---\nid: bom\ntitle: Starts with a BOM\n---\nBody\n",
		"project/binary.md":      "\x00\x01\x02binary\x00",
	}
	writeFiles(t, dir, files)
	big := bytes.Repeat([]byte("a"), 20<<20)
	writeFiles(t, dir, map[string]string{"project/huge.md": "---\ntitle: huge\n---\n" + string(big)})
	before := map[string][]byte{}
	for rel := range files {
		before[rel], _ = os.ReadFile(filepath.Join(dir, rel))
	}

	v, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("Open must survive bad files: %v", err)
	}
	for _, id := range []string{"good", "badlayer", "crlf", "bom"} {
		if _, err := v.Get(id); err != nil {
			t.Errorf("Get(%s): %v", id, err)
		}
	}
	// Without a committed version that parses, a file whose front matter
	// does not is not served: under its path id it would be another
	// memory (issue 24, finding 2).
	for _, id := range []string{"project/broken-yaml", "broken"} {
		if m, err := v.Get(id); err == nil {
			t.Errorf("broken YAML file served as %s: %+v", id, m)
		}
	}
	if m, _ := v.Get("badlayer"); m.Layer != Project {
		t.Errorf("unknown layer: got %v, want the folder's layer", m.Layer)
	}
	if _, err := v.Get("project/binary"); err == nil {
		t.Errorf("binary file was loaded")
	}
	diags := v.Diagnostics()
	want := map[string]string{ // path -> field or fragment expected in a diagnostic
		"project/broken-yaml.md": "project/broken-yaml.md:3",
		"project/bad-layer.md":   "project/bad-layer.md:4: layer:",
		"project/good.md":        "project/good.md:2: id: duplicate memory id", // dup.md sorts first and keeps the id
		"project/binary.md":      "project/binary.md",
		"project/huge.md":        "project/huge.md",
	}
	for path, frag := range want {
		found := false
		for _, d := range diags {
			if d.Path == path && strings.Contains(d.Error(), frag) {
				found = true
			}
		}
		if !found {
			t.Errorf("no diagnostic for %s containing %q; got %v", path, frag, diags)
		}
	}
	for rel, b := range before {
		after, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil || !bytes.Equal(after, b) {
			t.Errorf("%s changed or vanished after load", rel)
		}
	}
	var errs int
	for _, d := range diags {
		if d.Severity == parser.SeverityError {
			errs++
		}
	}
	if errs == 0 {
		t.Errorf("no error-level diagnostics; want errors for broken, binary, huge and duplicate files")
	}
}

func TestRefreshKeepsLastGoodVersionWhenBroken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"project/a.md": "---\nid: a\ntitle: Retry policy\n---\nRetry three times.\n"})
	v, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"project/a.md": "\x00broken\x00"})
	if err := v.Refresh(t.Context(), []string{"project/a.md"}); err != nil {
		t.Fatal(err)
	}
	m, err := v.Get("a")
	if err != nil || !m.Stale || !strings.Contains(m.Body, "Retry three times") {
		t.Fatalf("after a broken edit: got %+v, %v; want the last good version marked stale", m, err)
	}
	if len(v.Diagnostics()) == 0 {
		t.Fatalf("no diagnostic for the broken file")
	}
	writeFiles(t, dir, map[string]string{"project/a.md": "---\nid: a\ntitle: Retry policy\n---\nRetry five times.\n"})
	if err := v.Refresh(t.Context(), []string{"project/a.md"}); err != nil {
		t.Fatal(err)
	}
	if m, _ := v.Get("a"); m.Stale || !strings.Contains(m.Body, "five") || len(v.Diagnostics()) != 0 {
		t.Fatalf("after the fix: stale=%v body=%q diags=%v", m.Stale, m.Body, v.Diagnostics())
	}
	if err := os.Remove(filepath.Join(dir, "project/a.md")); err != nil {
		t.Fatal(err)
	}
	if err := v.Refresh(t.Context(), []string{"project/a.md"}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Get("a"); err == nil {
		t.Fatalf("deleted file still in the index")
	}
}
