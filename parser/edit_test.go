package parser

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mustParse(t *testing.T, src string) *Document {
	t.Helper()
	d, _ := Parse("m.md", []byte(src))
	if d == nil {
		t.Fatalf("Parse(%q) = nil", src)
	}
	return d
}

func TestSetScalarsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"plain", "yes", "No", "off", "y", "null", "~", "", "3", "3.5", "true", "2026-01-01",
		"a: b", "a #b", "#x", "- x", "[x]", "{x}", "*a", "&a", "!a", "%a", "@a", "`a", "|", ">",
		" lead", "trail ", "tab\tin", "multi\nline", "cr\rx", "it's", `say "hi"`, `back\slash`,
		"结算策略", "结算：策略 # 注释", "emoji 🎉", "\u00a0nbsp", "a\u2028b", "---", "...", "? q",
	} {
		t.Run(s, func(t *testing.T) {
			d := mustParse(t, "---\nid: a\ntitle: old # keep\n---\nbody\n")
			if err := d.Set("title", s); err != nil {
				t.Fatal(err)
			}
			if err := d.Set("tags", []string{s, "x"}); err != nil {
				t.Fatal(err)
			}
			out := d.Format()
			re, diags := Parse("m.md", out)
			if len(diags) != 0 {
				t.Fatalf("re-parse diagnostics %v\n%s", diags, out)
			}
			if re.Meta.Title != s {
				t.Errorf("title = %q, want %q\n%s", re.Meta.Title, s, out)
			}
			wantTags := []string{s, "x"}
			switch s {
			case "", "#x", " lead", "trail ", "\u00a0nbsp":
				wantTags = nil // tags are trimmed (Unicode spaces too) and lose a leading '#'
			}
			if wantTags != nil && !cmp.Equal(re.Meta.Tags, wantTags) {
				t.Errorf("tags = %q, want %q\n%s", re.Meta.Tags, wantTags, out)
			}
			if !bytes.Contains(out, []byte(" # keep\n")) {
				t.Errorf("line comment lost:\n%s", out)
			}
		})
	}
}

func TestSetValueTypes(t *testing.T) {
	t.Parallel()
	d := New([]byte("body\n"))
	when := time.Date(2026, 11, 30, 18, 2, 11, 0, time.FixedZone("CST", 8*3600))
	steps := []struct {
		key   string
		value any
	}{
		{"id", "01JDX3Q8W7ABCDEFGHJKMNPQRS"},
		{"importance", 7},
		{"version", uint8(2)},
		{"flag", true},
		{"created_at", when},
		{"updated_at", when.Add(250 * time.Millisecond)},
		{"tags", []string{}},
		{"links", []string{"a", "b"}},
		{"source", map[string]string{"kind": "manual", "client": "cli"}},
		{"yes", "key needs quotes"},
	}
	for _, s := range steps {
		if err := d.Set(s.key, s.value); err != nil {
			t.Fatalf("Set(%q, %v): %v", s.key, s.value, err)
		}
	}
	want := "---\nid: 01JDX3Q8W7ABCDEFGHJKMNPQRS\nimportance: 7\nversion: 2\nflag: true\n" +
		"created_at: 2026-11-30T10:02:11Z\nupdated_at: 2026-11-30T10:02:11.25Z\ntags: []\nlinks: [a, b]\n" +
		"source: {client: cli, kind: manual}\n\"yes\": key needs quotes\n---\nbody\n"
	if got := string(d.Format()); got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
	wantMeta := Meta{
		ID: "01JDX3Q8W7ABCDEFGHJKMNPQRS", Importance: ptr(7), Version: ptr(2),
		CreatedAt: utc("2026-11-30T10:02:11Z"), UpdatedAt: utc("2026-11-30T10:02:11.25Z"),
		Links: []string{"a", "b"}, Source: Source{Client: "cli", Kind: "manual"},
	}
	if diff := cmp.Diff(wantMeta, d.Meta); diff != "" {
		t.Errorf("Meta (-want +got):\n%s", diff)
	}
}

func TestSetRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		src   string
		key   string
		value any
		want  error
	}{
		{"broken front matter", "---\na: b: c\n---\n", "title", "x", ErrSyntax},
		{"unsupported type", "---\nid: a\n---\n", "title", 1.5, ErrValue},
		{"nil", "---\nid: a\n---\n", "title", nil, ErrValue},
		{"invalid UTF-8", "---\nid: a\n---\n", "title", "\xff", ErrValue},
		{"invalid UTF-8 item", "---\nid: a\n---\n", "tags", []string{"\xff"}, ErrValue},
		{"empty key", "---\nid: a\n---\n", "", "x", ErrValue},
		{"key with newline", "---\nid: a\n---\n", "a\nb", "x", ErrValue},
		{"value that does not decode", "---\nid: a\ncreated_at: 2026-01-01\n---\n", "created_at", "yesterday", ErrType},
		{"list for a string field", "---\nid: a\n---\n", "title", []string{"a"}, ErrType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustParse(t, tt.src)
			before := d.Meta
			err := d.Set(tt.key, tt.value)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Set error = %v, want %v", err, tt.want)
			}
			if got := string(d.Format()); got != tt.src {
				t.Errorf("document changed after a refused Set:\n%s", got)
			}
			if diff := cmp.Diff(before, d.Meta); diff != "" {
				t.Errorf("Meta changed after a refused Set:\n%s", diff)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, key, want string
	}{
		{"middle key", "---\nid: a\n# about the title\ntitle: t\nstatus: active\n---\nb\n", "title", "---\nid: a\n# about the title\nstatus: active\n---\nb\n"},
		{"block list", "---\nid: a\ntags:\n  - x\n  - y\n\nstatus: s\n---\n", "tags", "---\nid: a\n\nstatus: s\n---\n"},
		{"duplicates", "---\nid: a\nid: b\nt: c\nid: d\n---\n", "id", "---\nt: c\n---\n"},
		{"last key", "---\nid: a\n---\n", "id", "---\n---\n"},
		{"missing key", "---\nid: a\n---\n", "title", "---\nid: a\n---\n"},
		{"anchor used elsewhere", "---\na: &x 1\nb: *x\n---\n", "a", "---\na: &x 1\nb: *x\n---\n"},
		{"broken front matter", "---\na: b: c\n---\n", "a", "---\na: b: c\n---\n"},
		{"no front matter", "text\n", "a", "text\n"},
		{"crlf", "---\r\nid: a\r\ntitle: t\r\n---\r\n", "title", "---\r\nid: a\r\n---\r\n"},
		{"flow root", "---\n{id: a, title: t}\n---\n", "title", "---\nid: a\n---\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustParse(t, tt.src)
			d.Delete(tt.key)
			if got := string(d.Format()); got != tt.want {
				t.Errorf("after Delete:\n%q\nwant\n%q", got, tt.want)
			}
			if d.FieldLine(tt.key) != 0 && tt.src != tt.want {
				t.Errorf("key still present after Delete")
			}
		})
	}
}

func TestSetLayouts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, key string
		value          any
		want           string
	}{
		{"crlf new key", "---\r\nid: a\r\n---\r\nb\r\n", "title", "t", "---\r\nid: a\r\ntitle: t\r\n---\r\nb\r\n"},
		{"crlf block list", "---\r\ntags:\r\n  - a\r\n---\r\n", "tags", []string{"x", "z"}, "---\r\ntags:\r\n  - x\r\n  - z\r\n---\r\n"},
		{"block list to empty", "---\ntags:\n- a\n---\n", "tags", []string{}, "---\ntags: []\n---\n"},
		{"block map kept", "---\nsource:\n    client: a\n    kind: b\n---\n", "source", []KV{{"client", "c"}}, "---\nsource:\n    client: c\n---\n"},
		{"list replaces scalar", "---\ntags: a, b\n---\n", "tags", []string{"c"}, "---\ntags: [c]\n---\n"},
		{"quote style kept", "---\ntitle: 'old'\n---\n", "title", "it's", "---\ntitle: 'it''s'\n---\n"},
		{"anchor kept", "---\nt: &x old\nu: *x\n---\n", "t", "new", "---\nt: &x new\nu: *x\n---\n"},
		{"aligned comment", "---\ntitle: a long old value   # note\n---\n", "title", "short", "---\ntitle: short              # note\n---\n"},
		{"comment after longer value", "---\ntitle: ab  # note\n---\n", "title", "a much longer value", "---\ntitle: a much longer value  # note\n---\n"},
		{"comment after block key", "---\ntags: # the tags\n  - a\n---\n", "tags", []string{"b"}, "---\ntags: # the tags\n  - b\n---\n"},
		{"indented mapping", "---\n  id: a\n---\n", "title", "t", "---\n  id: a\n  title: t\n---\n"},
		{"multi-line value replaced", "---\nnote: |\n  a\n  b\n\nnext: 1\n---\n", "note", "c", "---\nnote: c\n\nnext: 1\n---\n"},
		{"before document end", "---\nid: a\n...\n---\n", "title", "t", "---\nid: a\ntitle: t\n...\n---\n"},
		{"only comments", "---\n# hello\n---\n", "id", "a", "---\n# hello\nid: a\n---\n"},
		{"closing at end of file", "---\nid: a\n---", "title", "t", "---\nid: a\ntitle: t\n---"},
		{"no front matter, BOM", "\ufeff# T\n", "id", "a", "\ufeff---\nid: a\n---\n# T\n"},
		{"unclosed front matter", "---\nid: a\n", "id", "b", "---\nid: b\n---\n---\nid: a\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustParse(t, tt.src)
			if err := d.Set(tt.key, tt.value); err != nil {
				t.Fatal(err)
			}
			if got := string(d.Format()); got != tt.want {
				t.Errorf("after Set:\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestSetBody(t *testing.T) {
	t.Parallel()
	d := mustParse(t, "---\nid: a\n---")
	d.SetBody([]byte("# New body\n"))
	if got, want := string(d.Format()), "---\nid: a\n---\n# New body\n"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
	if d.Body.Heading != "New body" {
		t.Errorf("Heading = %q", d.Body.Heading)
	}
	re := mustParse(t, string(d.Format()))
	if string(re.BodyBytes()) != "# New body\n" {
		t.Errorf("re-parsed body = %q", re.BodyBytes())
	}
}
