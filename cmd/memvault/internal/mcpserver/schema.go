package mcpserver

import (
	"embed"
	"encoding/json"
	"reflect"

	"github.com/mark3labs/mcp-go/mcp"
)

// strictOutputSchema declares T's JSON schema as the tool's output
// schema, with the nullable slices ("type": ["null", "array"]) the
// generator writes for Go slices narrowed to their one type: the tools
// never return null there, and strict clients reject type unions.
//
// The schema is the one generated into schemas/ for T (see
// outputSchemaFile), read as it is: generating the nine tools' schemas by
// reflection took a server's start-up ~10 ms of CPU and a few hundred
// thousand allocations before it could answer initialize (issue 25).
// TestOutputSchemasAreCurrent fails when a file differs from what
// outputSchemaOf[T] gives now (go test -run TestOutputSchemasAreCurrent
// -update rewrites them); a type without a file gets its schema generated
// here, and TestEveryToolSchemaIsGenerated fails.
func strictOutputSchema[T any]() mcp.ToolOption {
	return func(t *mcp.Tool) {
		b, err := schemaFiles.ReadFile(outputSchemaFile[T]())
		if err != nil {
			if b = outputSchemaOf[T](); b == nil {
				return
			}
		}
		t.OutputSchema = mcp.ToolOutputSchema{}
		t.RawOutputSchema = b
	}
}

//go:embed schemas
var schemaFiles embed.FS

// outputSchemaFile is the file in schemas/ that holds T's output schema.
func outputSchemaFile[T any]() string {
	return "schemas/" + reflect.TypeFor[T]().String() + ".json"
}

// outputSchemaOf generates T's output schema (see strictOutputSchema), or
// returns nil if mcp-go cannot.
func outputSchemaOf[T any]() []byte {
	var t mcp.Tool
	mcp.WithOutputSchema[T]()(&t)
	b, err := json.Marshal(t.OutputSchema)
	if err != nil {
		return nil
	}
	var schema any
	if err := json.Unmarshal(b, &schema); err != nil {
		return nil
	}
	dropNullTypes(schema)
	if b, err = json.Marshal(schema); err != nil {
		return nil
	}
	return b
}

// dropNullTypes rewrites "type": ["null", X] to "type": X throughout a
// decoded JSON schema.
func dropNullTypes(node any) {
	switch n := node.(type) {
	case map[string]any:
		if types, ok := n["type"].([]any); ok {
			var keep []any
			for _, ty := range types {
				if ty != "null" {
					keep = append(keep, ty)
				}
			}
			if len(keep) == 1 {
				n["type"] = keep[0]
			}
		}
		for _, v := range n {
			dropNullTypes(v)
		}
	case []any:
		for _, v := range n {
			dropNullTypes(v)
		}
	}
}

// readOnly and write annotate a tool truthfully: whether it changes the
// vault, whether what it changes is lost (destructive), whether calling
// it twice does what calling it once does (idempotent). None reaches
// beyond the vaults (closed world).
func readOnly(title string) []mcp.ToolOption {
	return []mcp.ToolOption{mcp.WithTitleAnnotation(title), mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false), mcp.WithIdempotentHintAnnotation(true), mcp.WithOpenWorldHintAnnotation(false)}
}

func write(title string, destructive, idempotent bool) []mcp.ToolOption {
	return []mcp.ToolOption{mcp.WithTitleAnnotation(title), mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(destructive), mcp.WithIdempotentHintAnnotation(idempotent), mcp.WithOpenWorldHintAnnotation(false)}
}
