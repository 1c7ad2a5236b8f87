package parser

import (
	"errors"
	"fmt"
	"testing"
)

func TestCopyKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, dst, src, key, want string
	}{
		{
			name: "scalar replaced in place, comment from the source",
			dst:  "---\nid: a\nimportance: 5 # ours\ntitle: T\n---\nbody\n",
			src:  "---\nid: a\nimportance: 8 # theirs\n---\n",
			key:  "importance",
			want: "---\nid: a\nimportance: 8 # theirs\ntitle: T\n---\nbody\n",
		},
		{
			name: "nested value Set cannot write",
			dst:  "---\nid: a\nreview:\n  by: ann\n---\nbody\n",
			src:  "---\nid: a\nreview:\n  by: bo\n  steps:\n    - {n: 1, ok: true}\n---\n",
			key:  "review",
			want: "---\nid: a\nreview:\n  by: bo\n  steps:\n    - {n: 1, ok: true}\n---\nbody\n",
		},
		{
			name: "absent key appended",
			dst:  "---\nid: a\ntitle: T\n---\nbody\n",
			src:  "---\nowner: [ann, bo]\nid: a\n---\n",
			key:  "owner",
			want: "---\nid: a\ntitle: T\nowner: [ann, bo]\n---\nbody\n",
		},
		{
			name: "duplicates removed",
			dst:  "---\ntags: [a]\nid: a\ntags: [b]\n---\n",
			src:  "---\ntags:\n  - c\n---\n",
			key:  "tags",
			want: "---\ntags:\n  - c\nid: a\n---\n",
		},
		{
			name: "line endings follow the destination",
			dst:  "---\r\nid: a\r\ntitle: T\r\n---\r\nbody\r\n",
			src:  "---\ntitle: U\n---\n",
			key:  "title",
			want: "---\r\nid: a\r\ntitle: U\r\n---\r\nbody\r\n",
		},
		{
			name: "no front matter in the destination",
			dst:  "just a note\n",
			src:  "---\nid: a\n---\n",
			key:  "id",
			want: "---\nid: a\n---\njust a note\n",
		},
		{
			name: "flow mapping at the top is re-encoded",
			dst:  "---\n{id: a, title: T}\n---\nbody\n",
			src:  "---\ntitle: U\n---\n",
			key:  "title",
			want: "---\nid: a\ntitle: U\n---\nbody\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, src := mustParse(t, tc.dst), mustParse(t, tc.src)
			if err := d.CopyKey(tc.key, src); err != nil {
				t.Fatal(err)
			}
			if got := string(d.Format()); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			re, diags := Parse("m.md", d.Format())
			for _, e := range diags {
				if e.Severity == SeverityError {
					t.Errorf("re-parse: %v", e)
				}
			}
			if want, got := src.valueText(tc.key), re.valueText(tc.key); got != want {
				t.Errorf("value %q, want %q", got, want)
			}
		})
	}
}

// valueText is the decoded value of key, printed, for comparisons.
func (d *Document) valueText(key string) string {
	v, ok := d.Value(key)
	if !ok {
		return "<absent>"
	}
	return fmt.Sprintf("%v", v)
}

func TestCopyKeyRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, dst, src, key string
		want                error
	}{
		{"missing key", "---\nid: a\n---\n", "---\nid: b\n---\n", "title", ErrValue},
		{"broken source", "---\nid: a\n---\n", "---\nid: [\n---\n", "id", ErrValue},
		{"broken destination", "---\nid: [\n---\n", "---\nid: b\n---\n", "id", ErrSyntax},
		{"alias", "---\nid: a\n---\n", "---\nx: &x 1\ny: *x\n---\n", "y", ErrValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, src := mustParse(t, tc.dst), mustParse(t, tc.src)
			before := string(d.Format())
			if err := d.CopyKey(tc.key, src); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if got := string(d.Format()); got != before {
				t.Errorf("document changed:\n%s", got)
			}
		})
	}
}

// FuzzCopyKey copies a key between arbitrary documents: CopyKey never
// panics, and when it succeeds the result parses, the key has the
// source's value and every other key keeps its own.
func FuzzCopyKey(f *testing.F) {
	f.Add([]byte("---\nid: a\nimportance: 5 # x\n---\nbody\n"), []byte("---\nimportance: 8\n---\n"), "importance")
	f.Add([]byte("---\r\n{id: a}\r\n---\r\n"), []byte("---\nreview:\n  by: [ann]\n---\n"), "review")
	f.Add([]byte("note\n"), []byte("---\ntags:\n  - a\n---\n"), "tags")
	f.Fuzz(func(t *testing.T, dst, src []byte, key string) {
		d, _ := Parse("dst", dst)
		s, _ := Parse("src", src)
		if d == nil || s == nil {
			return
		}
		before := map[string]string{}
		for _, k := range d.Keys() {
			before[k] = d.valueText(k)
		}
		if err := d.CopyKey(key, s); err != nil {
			return
		}
		re, diags := Parse("out", d.Format())
		if re == nil {
			t.Fatalf("result does not parse:\n%s", d.Format())
		}
		for _, e := range diags {
			if e.Severity == SeverityError {
				t.Fatalf("result: %v\n%s", e, d.Format())
			}
		}
		if got, want := re.valueText(key), s.valueText(key); got != want {
			t.Fatalf("%s = %s, want %s\n%s", key, got, want, d.Format())
		}
		for k, v := range before {
			if k != key && re.valueText(k) != v {
				t.Fatalf("%s changed from %s to %s\n%s", k, v, re.valueText(k), d.Format())
			}
		}
	})
}
