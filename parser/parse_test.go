package parser

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// canonical is the example memory from the file format description.
const canonical = `---
id: 01JDX3Q8W7ABCDEFGHJKMNPQRS
title: Checkout uses the strategy pattern
layer: project               # 1..5 or transient|short-term|project|preference|meta
importance: 8                # 1..10
tags: [checkout, architecture]
aliases: [结算策略]
created_at: 2026-11-30T10:02:11Z
updated_at: 2026-11-30T10:02:11Z
effective_at: 2026-11-30T10:02:11Z
expires_at: 2026-12-07T10:02:11Z
status: active               # active | archived | superseded
supersedes: [01JDW0000000000000000000AA]
links: [01JDV0000000000000000000BB]
source: {client: claude-code, kind: manual}
version: 3
---
Body: the decision and **why** (Markdown).
`

func ptr[T any](v T) *T { return &v }

func utc(s string) *time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return &t
}

// diag is the part of an *Error a test cares about.
type diag struct {
	Err      error
	Line     int
	Field    string
	Severity Severity
}

func diagsOf(errs []*Error) []diag {
	var out []diag
	for _, e := range errs {
		out = append(out, diag{Err: sentinel(e.Err), Line: e.Line, Field: e.Field, Severity: e.Severity})
	}
	return out
}

// sentinel maps an error to the package sentinel it wraps.
func sentinel(err error) error {
	for _, s := range []error{ErrTooLarge, ErrBinary, ErrNoFrontMatter, ErrUnclosed, ErrSyntax, ErrType, ErrDuplicateKey, ErrValue} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}

var cmpSentinels = cmp.Comparer(func(a, b error) bool { return a == b })

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		opts      Options
		wantNil   bool
		wantMeta  Meta
		wantDiags []diag
		wantBody  string // BodyBytes; "-" means the whole input
	}{
		{
			name: "canonical",
			in:   canonical,
			wantMeta: Meta{
				ID: "01JDX3Q8W7ABCDEFGHJKMNPQRS", Title: "Checkout uses the strategy pattern",
				Layer: "project", Status: "active", Importance: ptr(8), Version: ptr(3),
				Tags: []string{"checkout", "architecture"}, Aliases: []string{"结算策略"},
				Supersedes: []string{"01JDW0000000000000000000AA"}, Links: []string{"01JDV0000000000000000000BB"},
				CreatedAt: utc("2026-11-30T10:02:11Z"), UpdatedAt: utc("2026-11-30T10:02:11Z"),
				EffectiveAt: utc("2026-11-30T10:02:11Z"), ExpiresAt: utc("2026-12-07T10:02:11Z"),
				Source: Source{Client: "claude-code", Kind: "manual"},
			},
			wantBody: "Body: the decision and **why** (Markdown).\n",
		},
		{
			name:      "no front matter",
			in:        "# Hello\n\nJust text.\n",
			wantDiags: []diag{{Err: ErrNoFrontMatter, Line: 1}},
			wantBody:  "-",
		},
		{
			name:      "empty file",
			in:        "",
			wantDiags: []diag{{Err: ErrNoFrontMatter, Line: 1}},
			wantBody:  "",
		},
		{
			name:      "only delimiter",
			in:        "---",
			wantDiags: []diag{{Err: ErrUnclosed, Line: 1}},
			wantBody:  "-",
		},
		{
			name:      "only delimiter line",
			in:        "---\n",
			wantDiags: []diag{{Err: ErrUnclosed, Line: 1}},
			wantBody:  "-",
		},
		{
			name:      "no closing delimiter",
			in:        "---\nid: a\ntitle: never closed\n\nBody text.\n",
			wantDiags: []diag{{Err: ErrUnclosed, Line: 1}},
			wantBody:  "-",
		},
		{
			name:     "empty front matter",
			in:       "---\n---\nbody\n",
			wantBody: "body\n",
		},
		{
			name:     "only comments",
			in:       "---\n# nothing yet\n\n---\nbody\n",
			wantBody: "body\n",
		},
		{
			name:     "closing delimiter at end of file",
			in:       "---\nid: a\n---",
			wantMeta: Meta{ID: "a"},
			wantBody: "",
		},
		{
			name:     "delimiters with trailing blanks",
			in:       "--- \nid: a\n---\t\nbody",
			wantMeta: Meta{ID: "a"},
			wantBody: "body",
		},
		{
			name:      "broken yaml: missing colon",
			in:        "---\nid: a\ntitle: ok\nbad line without colon\nlayer: project\n---\nbody\n",
			wantDiags: []diag{{Err: ErrSyntax, Line: 4}},
			wantBody:  "body\n",
		},
		{
			name:      "broken yaml: unclosed flow list",
			in:        "---\nid: a\ntags: [a, b\nlayer: project\n---\nbody\n",
			wantDiags: []diag{{Err: ErrSyntax, Line: 3}},
			wantBody:  "body\n",
		},
		{
			name:      "broken yaml: first line",
			in:        "---\na: b: c\n---\nbody\n",
			wantDiags: []diag{{Err: ErrSyntax, Line: 2}},
			wantBody:  "body\n",
		},
		{
			name:      "broken yaml: tab indentation",
			in:        "---\nid: a\n\ttitle: x\n---\n",
			wantDiags: []diag{{Err: ErrSyntax, Line: 3}},
			wantBody:  "",
		},
		{
			name:      "broken yaml: unknown anchor",
			in:        "---\nid: a\n\ntitle: *nope\n---\n",
			wantDiags: []diag{{Err: ErrSyntax, Line: 4}},
			wantBody:  "",
		},
		{
			name:      "front matter not a mapping",
			in:        "---\n- a\n- b\n---\nbody\n",
			wantDiags: []diag{{Err: ErrSyntax, Line: 2}},
			wantBody:  "body\n",
		},
		{
			name: "wrong types",
			in: "---\nid: a\nimportance: high\ntags: 3\ncreated_at: \"yesterday\"\nversion: [1]\ntitle: {a: b}\n" +
				"source: manual\nlayer: project\n---\n",
			wantMeta: Meta{ID: "a", Layer: "project"},
			wantDiags: []diag{
				{Err: ErrType, Line: 3, Field: "importance", Severity: SeverityWarning},
				{Err: ErrType, Line: 4, Field: "tags", Severity: SeverityWarning},
				{Err: ErrType, Line: 5, Field: "created_at", Severity: SeverityWarning},
				{Err: ErrType, Line: 6, Field: "version", Severity: SeverityWarning},
				{Err: ErrType, Line: 7, Field: "title", Severity: SeverityWarning},
				{Err: ErrType, Line: 8, Field: "source", Severity: SeverityWarning},
			},
			wantBody: "",
		},
		{
			name:     "bad list items are dropped",
			in:       "---\ntags:\n  - ok\n  - [nested]\n  - {a: b}\n  - 2024\n  -\n---\n",
			wantMeta: Meta{Tags: []string{"ok", "2024"}},
			wantDiags: []diag{
				{Err: ErrType, Line: 4, Field: "tags", Severity: SeverityWarning},
				{Err: ErrType, Line: 5, Field: "tags", Severity: SeverityWarning},
			},
			wantBody: "",
		},
		{
			name:     "duplicate keys: first wins",
			in:       "---\nid: a\ntitle: one\nid: b\n---\n",
			wantMeta: Meta{ID: "a", Title: "one"},
			wantDiags: []diag{
				{Err: ErrDuplicateKey, Line: 4, Field: "id", Severity: SeverityWarning},
			},
			wantBody: "",
		},
		{
			name:     "lenient values",
			in:       "---\nimportance: \"8\"\nlayer: 3\ntags: \"#go, testing，测试, \"\naliases: 结算, 策略\nsupersedes: A,B\ntitle:\nstatus: ~\n---\n",
			wantMeta: Meta{Importance: ptr(8), Layer: "3", Tags: []string{"go", "testing", "测试"}, Aliases: []string{"结算, 策略"}, Supersedes: []string{"A", "B"}},
			wantBody: "",
		},
		{
			name: "date forms",
			in: "---\ncreated_at: 2026-11-30\nupdated_at: 2026-11-30T10:02:11\neffective_at: 2026-11-30 10:02:11.5\n" +
				"expires_at: 2026-12-07T18:02:11+08:00\n---\n",
			wantMeta: Meta{
				CreatedAt: utc("2026-11-30T00:00:00Z"), UpdatedAt: utc("2026-11-30T10:02:11Z"),
				EffectiveAt: utc("2026-11-30T10:02:11.5Z"), ExpiresAt: utc("2026-12-07T10:02:11Z"),
			},
			wantBody: "",
		},
		{
			name:     "quoted dates",
			in:       "---\ncreated_at: \"2026-11-30T10:02:11Z\"\nupdated_at: '2026-11-30'\n---\n",
			wantMeta: Meta{CreatedAt: utc("2026-11-30T10:02:11Z"), UpdatedAt: utc("2026-11-30T00:00:00Z")},
			wantBody: "",
		},
		{
			name:     "block lists, block source, anchors",
			in:       "---\ntags:\n- a\n- &t b\naliases:\n  - *t\nsource:\n  client: cli\n  kind: auto\n---\n",
			wantMeta: Meta{Tags: []string{"a", "b"}, Aliases: []string{"b"}, Source: Source{Client: "cli", Kind: "auto"}},
			wantBody: "",
		},
		{
			name:     "indented mapping",
			in:       "---\n  id: a\n  title: t\n---\n",
			wantMeta: Meta{ID: "a", Title: "t"},
			wantBody: "",
		},
		{
			name:     "BOM",
			in:       "\ufeff---\nid: a\n---\nbody\n",
			wantMeta: Meta{ID: "a"},
			wantBody: "body\n",
		},
		{
			name:      "BOM without front matter",
			in:        "\ufeffbody\n",
			wantDiags: []diag{{Err: ErrNoFrontMatter, Line: 1}},
			wantBody:  "body\n",
		},
		{
			name:     "CRLF",
			in:       "---\r\nid: a\r\ntags:\r\n  - x\r\n  - y\r\n---\r\nline one\r\nline two\r\n",
			wantMeta: Meta{ID: "a", Tags: []string{"x", "y"}},
			wantBody: "line one\r\nline two\r\n",
		},
		{
			name:      "CRLF broken yaml line",
			in:        "---\r\nid: a\r\ntitle: ok\r\nno colon here\r\n---\r\n",
			wantDiags: []diag{{Err: ErrSyntax, Line: 4}},
			wantBody:  "",
		},
		{
			// Aliases are never expanded, so the bomb is just 72 small nodes.
			name:     "billion laughs",
			in:       "---\n" + aliasBomb() + "tags: *a\n---\n",
			wantMeta: Meta{Tags: []string{"lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"}},
			wantBody: "",
		},
		{
			name:      "too many aliases",
			in:        "---\na: &a x\nb: [" + strings.Repeat("*a, ", 101) + "]\n---\n",
			wantDiags: []diag{{Err: ErrSyntax, Line: 3}},
			wantBody:  "",
		},
		{
			name:      "deep nesting",
			in:        "---\nx: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n---\n",
			wantDiags: []diag{{Err: ErrSyntax, Line: 2}},
			wantBody:  "",
		},
		{
			name:      "very deep nesting",
			in:        "---\nx: " + strings.Repeat("[", 20000) + "\n---\n",
			wantDiags: []diag{{Err: ErrSyntax, Line: 2}},
			wantBody:  "",
		},
		{
			name:      "NUL byte",
			in:        "---\nid: a\n---\nbody\x00\x01\x02",
			wantNil:   true,
			wantDiags: []diag{{Err: ErrBinary, Line: 4}},
		},
		{
			name:      "invalid UTF-8",
			in:        "---\nid: a\n---\n\xff\xfe",
			wantNil:   true,
			wantDiags: []diag{{Err: ErrBinary, Line: 4}},
		},
		{
			name:      "over the default limit",
			in:        "---\nid: a\n---\n" + strings.Repeat("x", 20<<20),
			wantNil:   true,
			wantDiags: []diag{{Err: ErrTooLarge}},
		},
		{
			name:      "over a custom limit",
			in:        canonical,
			opts:      Options{MaxFileSize: 100},
			wantNil:   true,
			wantDiags: []diag{{Err: ErrTooLarge}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, diags := tt.opts.Parse("m.md", []byte(tt.in))
			if diff := cmp.Diff(tt.wantDiags, diagsOf(diags), cmpSentinels); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%v", diff, diags)
			}
			for _, e := range diags {
				if e.Path != "m.md" {
					t.Errorf("diagnostic path = %q, want m.md", e.Path)
				}
			}
			if tt.wantNil {
				if d != nil {
					t.Fatalf("got a document, want nil")
				}
				return
			}
			if d == nil {
				t.Fatalf("got nil document")
			}
			if diff := cmp.Diff(tt.wantMeta, d.Meta); diff != "" {
				t.Errorf("Meta (-want +got):\n%s", diff)
			}
			wantBody := tt.wantBody
			if wantBody == "-" {
				wantBody = strings.TrimPrefix(tt.in, "\ufeff")
			}
			if got := string(d.BodyBytes()); got != wantBody {
				t.Errorf("BodyBytes = %q, want %q", got, wantBody)
			}
			if got := d.Format(); !bytes.Equal(got, []byte(tt.in)) {
				t.Errorf("Format of untouched document differs from input:\ngot  %q\nwant %q", got, tt.in)
			}
		})
	}
}

// aliasBomb is the "billion laughs" document.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for i := 'b'; i <= 'i'; i++ {
		b.WriteString(string(i) + ": &" + string(i) + " [")
		for j := range 9 {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString("*" + string(i-1))
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func TestParseDoesNotAliasInput(t *testing.T) {
	t.Parallel()
	in := []byte("---\nid: a\n---\nbody\n")
	d, _ := Parse("m.md", in)
	copy(in, "XXXXXXXXXXXXXXXXXX")
	if got := string(d.Format()); got != "---\nid: a\n---\nbody\n" {
		t.Errorf("Format after caller changed its buffer = %q", got)
	}
}

func TestFieldLine(t *testing.T) {
	t.Parallel()
	d, _ := Parse("m.md", []byte("\ufeff---\n# comment\nid: a\n\ntitle: t\nsource:\n  client: c\n  kind: k\n---\n"))
	for key, want := range map[string]int{"id": 3, "title": 5, "source": 6, "source.kind": 8, "missing": 0, "id.x": 0, "source.x": 0} {
		if got := d.FieldLine(key); got != want {
			t.Errorf("FieldLine(%q) = %d, want %d", key, got, want)
		}
	}
	if got, want := d.Keys(), []string{"id", "title", "source"}; !cmp.Equal(got, want) {
		t.Errorf("Keys() = %q, want %q", got, want)
	}
	nofm, _ := Parse("m.md", []byte("text"))
	if got := nofm.FieldLine("id"); got != 0 {
		t.Errorf("FieldLine without front matter = %d, want 0", got)
	}
}

func TestErrorString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Path: "a.md", Line: 3, Field: "importance", Err: ErrType}, "a.md:3: importance: wrong type"},
		{&Error{Path: "a.md", Err: ErrTooLarge}, "a.md: file too large"},
		{&Error{Path: "a.md", Line: 1, Err: ErrNoFrontMatter}, "a.md:1: no front matter"},
		{&Error{Path: "a.md", Field: "tags", Err: ErrType}, "a.md: tags: wrong type"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			if !errors.Is(tt.err, tt.err.Err) {
				t.Errorf("errors.Is(err, %v) = false", tt.err.Err)
			}
		})
	}
	_, diags := Parse("a.md", []byte("---\nimportance: high\n---\n"))
	if len(diags) != 1 {
		t.Fatalf("got %d diagnostics, want 1", len(diags))
	}
	if got, want := diags[0].Error(), `a.md:2: importance: wrong type: want an integer, got "high"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := diags[0].Severity.String(); got != "warning" {
		t.Errorf("Severity = %q, want warning", got)
	}
}

// TestParseConcurrent checks (under -race) that Parse, and the shared
// goldmark parser, are safe for concurrent use.
func TestParseConcurrent(t *testing.T) {
	t.Parallel()
	in := []byte(canonical + "\n# H\n\n[[a]] [l](http://x) #t `c`\n")
	want, _ := Parse("m.md", in)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				d, _ := Parse("m.md", in)
				if !cmp.Equal(d.Body, want.Body) || !cmp.Equal(d.Meta, want.Meta) {
					t.Errorf("concurrent Parse gave a different result")
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestParseSkipBody(t *testing.T) {
	t.Parallel()
	in := []byte(canonical + "\n# Heading\n")
	d, diags := Options{SkipBody: true}.Parse("m.md", in)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if !cmp.Equal(d.Body, Body{}) {
		t.Errorf("Body = %+v, want empty", d.Body)
	}
	if d.Meta.ID == "" || !bytes.Equal(d.Format(), in) {
		t.Errorf("SkipBody changed Meta or Format")
	}
}
