package mcpserver

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// generatedSchemas lists the tools' output types with their generators:
// the files in schemas/ (see strictOutputSchema).
var generatedSchemas = []struct {
	file string
	gen  func() []byte
}{
	{outputSchemaFile[view.Recall](), outputSchemaOf[view.Recall]},
	{outputSchemaFile[view.Write](), outputSchemaOf[view.Write]},
	{outputSchemaFile[view.Memory](), outputSchemaOf[view.Memory]},
	{outputSchemaFile[view.Forget](), outputSchemaOf[view.Forget]},
	{outputSchemaFile[view.Confirm](), outputSchemaOf[view.Confirm]},
	{outputSchemaFile[view.Stats](), outputSchemaOf[view.Stats]},
	{outputSchemaFile[view.History](), outputSchemaOf[view.History]},
}

// TestOutputSchemasAreCurrent compares each file in schemas/ with the
// schema its type gives now; -update rewrites them.
func TestOutputSchemasAreCurrent(t *testing.T) {
	for _, g := range generatedSchemas {
		t.Run(g.file, func(t *testing.T) {
			want := g.gen()
			if want == nil {
				t.Fatal("no schema generated")
			}
			if *update {
				if err := os.WriteFile(filepath.FromSlash(g.file), want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := schemaFiles.ReadFile(g.file)
			if err != nil {
				t.Fatalf("%v (go test -run TestOutputSchemasAreCurrent -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is not what the type gives now; go test -run TestOutputSchemasAreCurrent -update rewrites it", g.file)
			}
		})
	}
}

// TestEveryToolSchemaIsGenerated checks that every tool's output schema
// is one of the files, so that no tool generates its schema at start-up,
// and that every file is one a tool uses.
func TestEveryToolSchemaIsGenerated(t *testing.T) {
	files := map[string]string{}
	ents, err := schemaFiles.ReadDir("schemas")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := schemaFiles.ReadFile("schemas/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		files[string(b)] = e.Name()
	}
	used := map[string]bool{}
	for name, tool := range New(Config{}).mcp.ListTools() {
		f, ok := files[string(tool.Tool.RawOutputSchema)]
		if !ok {
			t.Errorf("tool %s: its output schema is not one of schemas/; add its type to generatedSchemas and run go test -run TestOutputSchemasAreCurrent -update", name)
		}
		used[f] = true
	}
	for _, f := range files {
		if !used[f] {
			t.Errorf("schemas/%s: no tool uses it", f)
		}
	}
}
