package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/memvault/memvault/vault"
)

// parseAs parses a call's arguments as the arguments of a tool of type A.
func parseAs[A any](t testing.TB, args string) (A, error) {
	t.Helper()
	spec, err := specOf[A]()
	if err != nil {
		t.Fatal(err)
	}
	var a A
	err = spec.parse(json.RawMessage(args), &a)
	return a, err
}

func ptr[T any](v T) *T { return &v }

// TestParseArguments pins what the parser accepts and how it refuses:
// aliases, one name given twice, unknown arguments, and messages that
// name the argument. Integers must be JSON numbers and booleans JSON
// booleans, lists JSON arrays: a string "5", "true" or "a, b" is refused
// saying so.
func TestParseArguments(t *testing.T) {
	t.Parallel()
	date := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		args    string
		want    recallArgs
		wantErr string // substring; "" means success
	}{
		{name: "empty", args: `{}`},
		{name: "null", args: `null`},
		{name: "nothing", args: ``},
		{name: "canonical", args: `{"query":"部署","limit":3,"tags":["a","b"],"layers":["project","L4"],"as_of":"2026-01-02","include_inactive":true}`,
			want: recallArgs{Query: "部署", Limit: 3, Tags: []string{"a", "b"}, Layers: []vault.Layer{vault.Project, vault.Preference}, AsOf: date, IncludeInactive: true}},
		{name: "aliases", args: `{"q":"deploy","top_k":4,"tags":["a"," b","","c"]}`,
			want: recallArgs{Query: "deploy", Q: "deploy", Limit: 4, TopK: 4, Tags: []string{"a", "b", "c"}}},
		{name: "k alias", args: `{"k":2}`, want: recallArgs{Limit: 2, K: 2}},
		{name: "null is absent", args: `{"limit":null,"query":null}`},
		{name: "a whole number written with a fraction", args: `{"limit":5.0}`, want: recallArgs{Limit: 5}},
		{name: "name and alias", args: `{"query":"a","q":"b"}`, wantErr: `query: given twice (as "query" and "q"); pass it once`},
		{name: "two aliases", args: `{"k":1,"top_k":2}`, wantErr: `limit: given twice (as "k" and "top_k")`},
		{name: "limit too big", args: `{"limit":51}`, wantErr: "limit: 51 is outside 1..50"},
		{name: "limit huge", args: `{"limit":1e308}`, wantErr: "limit: 1e308 is outside 1..50"},
		{name: "limit fraction", args: `{"limit":2.5}`, wantErr: "limit: want a whole number, got 2.5"},
		{name: "limit as a string", args: `{"top_k":"4"}`, wantErr: `top_k: want a JSON number, got the string "4": write it without quotes`},
		{name: "limit word", args: `{"k":"many"}`, wantErr: `k: want a JSON number, got the string "many"`},
		{name: "query number", args: `{"query":5}`, wantErr: "query: want a string, got the number 5"},
		{name: "tag not string", args: `{"tags":["a",1]}`, wantErr: "tags[1]: want a string, got the number 1"},
		{name: "tags object", args: `{"tags":{"a":1}}`, wantErr: "tags: want a list (a JSON array, e.g. [\"a\", \"b\"]), got an object"},
		{name: "tags as one string", args: `{"tags":"a, b,,c"}`, wantErr: `tags: want a list (a JSON array, e.g. ["a", "b"]), got the string "a, b,,c"`},
		{name: "bad layer", args: `{"layers":["L9"]}`, wantErr: `layers[0]: "L9" is not one of transient, short-term, project, preference, meta, L1, L2, L3, L4 or L5`},
		{name: "layer in another case", args: `{"layers":["Project"]}`, wantErr: `layers[0]: "Project" is not one of`},
		{name: "bad time", args: `{"as_of":"yesterday"}`, wantErr: `as_of: "yesterday" is not an RFC3339 instant`},
		{name: "bool as string", args: `{"include_inactive":"true"}`, wantErr: `include_inactive: want true or false (a JSON boolean), got the string "true"`},
		{name: "bad bool", args: `{"include_inactive":"maybe"}`, wantErr: "include_inactive: want true or false"},
		{name: "unknown", args: `{"query":"x","colour":"red"}`,
			wantErr: "colour: unknown argument; this tool accepts as_of, explain, include_inactive, k, layers, limit, q, query, since, tags, top_k"},
		{name: "not an object", args: `[1,2]`, wantErr: "arguments: want a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseAs[recallArgs](t, tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("error = %v, want none", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestParseUpdateArguments checks that update_memory tells a field not
// given from one given empty: an empty instant removes it.
func TestParseUpdateArguments(t *testing.T) {
	t.Parallel()
	got, err := parseAs[updateArgs](t, `{"id":"x","expected_version":2,"reason":"r","expires_at":"","tags":[],"title":"T"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := updateArgs{ID: "x", ExpectedVersion: 2, Reason: "r", ExpiresAt: &time.Time{}, Tags: &[]string{}, Title: ptr("T")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, err := parseAs[updateArgs](t, `{"id":"x","expected_version":0,"reason":"r"}`); err == nil || !strings.Contains(err.Error(), "expected_version: 0 is outside the range (at least 1)") {
		t.Errorf("expected_version 0: %v", err)
	}
}

// TestSchemaAndParserAgree ties each tool's declared input schema, as a
// client lists it, to the parser of its calls: the schema's properties
// are exactly the arguments the parser accepts, each property with a
// value its schema allows is accepted and filled in, and over a corpus of
// calls (testdata/args) the parser accepts only what the schema allows.
// Where the parser is stricter than a JSON schema can say, the test names
// the rule (parserOnly).
func TestSchemaAndParserAgree(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	corpus := argsCorpus(t)
	for name, b := range listedTools(t, ts.c) {
		t.Run(name, func(t *testing.T) {
			spec := ts.args[name]
			if spec == nil {
				t.Fatalf("no argument spec for %s", name)
			}
			var listed struct {
				InputSchema jsonschema.Schema `json:"inputSchema"`
			}
			if err := json.Unmarshal(b, &listed); err != nil {
				t.Fatal(err)
			}
			schema := &listed.InputSchema
			props := slices.Sorted(maps.Keys(schema.Properties))
			if !slices.Equal(props, spec.names()) {
				t.Fatalf("schema properties %v, parser arguments %v", props, spec.names())
			}
			resolved, err := schema.Resolve(nil)
			if err != nil {
				t.Fatal(err)
			}
			required := minimalCall(t, schema)
			for _, name := range props {
				call := withArg(required, name, sample(t, schema.Properties[name]))
				if err := resolved.Validate(decode(t, call)); err != nil {
					t.Fatalf("%s: the sample %s breaks its own schema: %v", name, call, err)
				}
				filled := reflect.New(spec.typ)
				if err := spec.parse(call, filled.Interface()); err != nil {
					t.Errorf("%s: the parser refuses %s, which the schema allows: %v", name, call, err)
					continue
				}
				if f := fieldOf(spec, name); filled.Elem().FieldByIndex(f.index).IsZero() {
					t.Errorf("%s: %s parsed, but the argument was not filled in", name, call)
				}
			}
			unknown := withArg(required, "not_an_argument", json.RawMessage(`1`))
			if err := spec.parse(unknown, reflect.New(spec.typ).Interface()); err == nil || !strings.Contains(err.Error(), "not_an_argument: unknown argument") {
				t.Errorf("the parser took %s: %v", unknown, err)
			}
			if err := resolved.Validate(decode(t, unknown)); err == nil {
				t.Errorf("the schema allows %s", unknown)
			}
			for _, call := range corpus {
				schemaErr := resolved.Validate(withoutNulls(schema, decode(t, call)))
				parseErr := spec.parse(call, reflect.New(spec.typ).Interface())
				switch {
				case parseErr == nil && schemaErr != nil:
					t.Errorf("the parser accepts %s, which the schema refuses: %v", call, schemaErr)
				case parseErr != nil && schemaErr == nil && !parserOnly(parseErr):
					t.Errorf("the parser refuses %s, which the schema allows: %v", call, parseErr)
				}
			}
		})
	}
}

// withoutNulls drops the arguments of a call (properties of schema) that
// are null: the parser takes a null as an argument left out (clients that
// declare optional arguments nullable send them so), which the schema,
// free of type unions, cannot say.
func withoutNulls(schema *jsonschema.Schema, call any) any {
	if m, ok := call.(map[string]any); ok {
		for k, v := range m {
			if _, known := schema.Properties[k]; known && v == nil {
				delete(m, k)
			}
		}
	}
	return call
}

// parserOnly reports the refusals a JSON schema cannot express: one
// argument given under two of its names, and an instant that is neither
// RFC 3339 nor a date.
func parserOnly(err error) bool {
	return strings.Contains(err.Error(), "given twice") || strings.Contains(err.Error(), "is not an RFC3339 instant")
}

// argsCorpus reads the calls under testdata/args: one JSON object per
// line, for every tool (a call names arguments of several tools; each
// tool must refuse the others').
func argsCorpus(t *testing.T) []json.RawMessage {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "args", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus under testdata/args: %v", err)
	}
	var out []json.RawMessage
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.SplitSeq(b, []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				out = append(out, json.RawMessage(line))
			}
		}
	}
	return out
}

// minimalCall is a call with a valid value for each required property.
func minimalCall(t *testing.T, schema *jsonschema.Schema) json.RawMessage {
	call := json.RawMessage(`{}`)
	for _, name := range schema.Required {
		call = withArg(call, name, sample(t, schema.Properties[name]))
	}
	return call
}

// sample is a value prop allows that is not the zero value.
func sample(t *testing.T, prop *jsonschema.Schema) json.RawMessage {
	t.Helper()
	switch {
	case len(prop.Enum) > 0:
		b, _ := json.Marshal(prop.Enum[len(prop.Enum)-1])
		return b
	case prop.Type == "string" && strings.Contains(prop.Description, "RFC3339"):
		return json.RawMessage(`"2026-12-01"`)
	case prop.Type == "string":
		return json.RawMessage(`"x"`)
	case prop.Type == "integer" && prop.Minimum != nil:
		return json.RawMessage(fmt.Sprint(*prop.Minimum))
	case prop.Type == "integer":
		return json.RawMessage(`1`)
	case prop.Type == "boolean":
		return json.RawMessage(`true`)
	case prop.Type == "array":
		return json.RawMessage(`[` + string(sample(t, prop.Items)) + `]`)
	}
	t.Fatalf("no sample for a schema of type %q", prop.Type)
	return nil
}

// withArg returns the JSON object obj with name set to value.
func withArg(obj json.RawMessage, name string, value json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		panic(err)
	}
	m[name] = value
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func decode(t *testing.T, call json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(call, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func fieldOf(s *argSpec, name string) argField {
	f := s.field(name)
	if f.alias != "" {
		return s.field(f.alias)
	}
	return f
}

// FuzzParseArguments feeds arbitrary JSON to the parser of every tool: it
// never panics, never accepts what the tool's schema refuses, and an
// accepted number is within its bounds.
func FuzzParseArguments(f *testing.F) {
	specs := []func() (*argSpec, error){specOf[recallArgs], specOf[rememberArgs], specOf[updateArgs], specOf[forgetArgs],
		specOf[listArgs], specOf[idArgs], specOf[noArgs], specOf[confirmArgs]}
	type tool struct {
		spec     *argSpec
		resolved *jsonschema.Resolved
	}
	var tools []tool
	for _, of := range specs {
		spec, err := of()
		if err != nil {
			f.Fatal(err)
		}
		r, err := spec.schema.Resolve(nil)
		if err != nil {
			f.Fatal(err)
		}
		tools = append(tools, tool{spec, r})
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "args", "*.jsonl"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		for line := range bytes.SplitSeq(b, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		for _, tl := range tools {
			dst := reflect.New(tl.spec.typ)
			if err := tl.spec.parse(data, dst.Interface()); err != nil {
				continue
			}
			if v == nil {
				v = map[string]any{}
			}
			if err := tl.resolved.Validate(withoutNulls(tl.spec.schema, v)); err != nil {
				t.Errorf("%s: the parser accepts %s, which the schema refuses: %v", tl.spec.typ, data, err)
			}
			if a, ok := dst.Interface().(*rememberArgs); ok && a.Importance != 0 && (a.Importance < 1 || a.Importance > 10) {
				t.Errorf("importance %d accepted outside 1..10", a.Importance)
			}
		}
	})
}
