package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
)

func TestToolArgs(t *testing.T) {
	type got struct {
		query  string
		limit  int
		tags   []string
		layers []vault.Layer
		asOf   time.Time
		incl   bool
	}
	read := func(raw map[string]any) (got, error) {
		a := newToolArgs(raw)
		var g got
		g.query, _ = a.str("query", false, "q")
		g.limit, _ = a.integer("limit", 1, 50, false, "k", "top_k")
		g.tags, _ = a.list("tags")
		g.layers = a.layers("layers")
		g.asOf, _ = a.instant("as_of")
		g.incl = a.boolean("include_inactive")
		return g, a.done()
	}
	tests := []struct {
		name    string
		args    string
		want    got
		wantErr string // substring; "" means success
	}{
		{name: "empty", args: `{}`},
		{name: "canonical", args: `{"query":"部署","limit":3,"tags":["a","b"],"layers":["project","L4"],"as_of":"2026-01-02","include_inactive":true}`,
			want: got{query: "部署", limit: 3, tags: []string{"a", "b"}, layers: []vault.Layer{vault.Project, vault.Preference},
				asOf: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), incl: true}},
		{name: "aliases", args: `{"q":"deploy","top_k":"4","tags":"a, b,,c"}`, want: got{query: "deploy", limit: 4, tags: []string{"a", "b", "c"}}},
		{name: "k alias", args: `{"k":2}`, want: got{limit: 2}},
		{name: "bool as string", args: `{"include_inactive":"true"}`, want: got{incl: true}},
		{name: "name and alias", args: `{"query":"a","q":"b"}`, wantErr: "query: given twice"},
		{name: "limit too big", args: `{"limit":51}`, wantErr: "limit: 51 is outside 1..50"},
		{name: "limit fraction", args: `{"limit":2.5}`, wantErr: "limit: want a whole number"},
		{name: "limit word", args: `{"k":"many"}`, wantErr: `k: want a whole number, got "many"`},
		{name: "query number", args: `{"query":5}`, wantErr: "query: want a string, got a number"},
		{name: "tag not string", args: `{"tags":["a",1]}`, wantErr: "tags[1]: want a string"},
		{name: "tags object", args: `{"tags":{"a":1}}`, wantErr: "tags: want a list of strings"},
		{name: "bad layer", args: `{"layers":["L9"]}`, wantErr: "layers:"},
		{name: "bad time", args: `{"as_of":"yesterday"}`, wantErr: "as_of:"},
		{name: "bad bool", args: `{"include_inactive":"maybe"}`, wantErr: "include_inactive: want true or false"},
		{name: "unknown", args: `{"query":"x","colour":"red"}`, wantErr: "colour: unknown argument"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var raw map[string]any
			if err := json.Unmarshal([]byte(tc.args), &raw); err != nil {
				t.Fatal(err)
			}
			g, err := read(raw)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("error = %v, want none", err)
			}
			if g.query != tc.want.query || g.limit != tc.want.limit || !slices.Equal(g.tags, tc.want.tags) ||
				!slices.Equal(g.layers, tc.want.layers) || !g.asOf.Equal(tc.want.asOf) || g.incl != tc.want.incl {
				t.Errorf("got %+v, want %+v", g, tc.want)
			}
		})
	}
}

// FuzzToolArgs feeds arbitrary JSON objects to the argument reader of every
// tool: it must never panic, and an accepted remember must pass the
// vault's own validation bounds.
func FuzzToolArgs(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "mcpargs", "*.json"))
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"title":"t","content":"c","importance":"7","tags":"a,b","layer":"L2"}`))
	f.Add([]byte(`{"q":"x","k":1e308,"layers":"project,meta"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var raw map[string]any
		if json.Unmarshal(data, &raw) != nil {
			return
		}
		a := newToolArgs(raw)
		a.str("title", true)
		a.str("content", true)
		a.layer("layer")
		a.list("tags")
		imp, ok := a.integer("importance", 1, 10, false)
		a.instant("effective_at")
		a.layers("layers")
		a.boolean("delete")
		if err := a.done(); err == nil && ok && (imp < 1 || imp > 10) {
			t.Errorf("importance %d accepted outside 1..10", imp)
		}
	})
}
