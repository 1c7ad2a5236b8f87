package parser_test

import (
	"fmt"
	"time"

	"github.com/memvault/memvault/parser"
)

func ExampleDocument_Set() {
	src := []byte(`---
id: 01JDX3Q8W7ABCDEFGHJKMNPQRS
title: Checkout uses the strategy pattern
importance: 8      # 1..10
tags:
  - checkout
x-reviewed-by: ana # unknown keys survive
---
Body.
`)
	doc, diags := parser.Parse("checkout.md", src)
	if len(diags) > 0 {
		fmt.Println(diags)
		return
	}
	_ = doc.Set("importance", 9)
	_ = doc.Set("tags", []string{"checkout", "architecture"})
	_ = doc.Set("updated_at", time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	fmt.Print(string(doc.Format()))
	// Output:
	// ---
	// id: 01JDX3Q8W7ABCDEFGHJKMNPQRS
	// title: Checkout uses the strategy pattern
	// importance: 9      # 1..10
	// tags:
	//   - checkout
	//   - architecture
	// x-reviewed-by: ana # unknown keys survive
	// updated_at: 2026-12-01T08:00:00Z
	// ---
	// Body.
}

func ExampleNew() {
	doc := parser.New([]byte("# Retry budget\n\nRetries stop after 3 attempts.\n"))
	_ = doc.Set("id", "01JDX3Q8W7ABCDEFGHJKMNPQRS")
	_ = doc.Set("title", doc.Body.Heading)
	_ = doc.Set("layer", "project")
	_ = doc.Set("source", []parser.KV{{Key: "client", Value: "cli"}, {Key: "kind", Value: "manual"}})
	fmt.Print(string(doc.Format()))
	// Output:
	// ---
	// id: 01JDX3Q8W7ABCDEFGHJKMNPQRS
	// title: Retry budget
	// layer: project
	// source: {client: cli, kind: manual}
	// ---
	// # Retry budget
	//
	// Retries stop after 3 attempts.
}
