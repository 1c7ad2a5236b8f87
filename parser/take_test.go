package parser

import (
	"strings"
	"testing"
)

// TestTakeKeys: TakeKeys gives the keys src's values (or removes those src
// lacks) and leaves every other key as it was, in one edit where it can,
// whatever the layout; it reports the keys it cannot take.
func TestTakeKeys(t *testing.T) {
	tests := []struct {
		name, dst, src string
		keys           []string
		want           string // the result's front matter lines; "" to check values only
		refused        []string
	}{
		{"replace, add, delete", "---\nid: a\nimportance: 5 # x\nold: 1\n---\nbody\n", "---\nimportance: 8 # y\nnew: [a, b]\n---\n",
			[]string{"importance", "new", "old"}, "---\nid: a\nimportance: 8 # y\nnew: [a, b]\n---\nbody\n", nil},
		{"duplicates in dst go", "---\nx: 1\ny: 2\nx: 3\n---\n", "---\nx: 9\n---\n", []string{"x"}, "---\nx: 9\ny: 2\n---\n", nil},
		{"flow front matter re-encodes", "---\n{id: a, x: 1}\n---\n", "---\nx: 2\nz: 3\n---\n", []string{"x", "z"}, "", nil},
		{"no front matter", "note\n", "---\ntags:\n  - a\n---\n", []string{"tags"}, "---\ntags:\n  - a\n---\nnote\n", nil},
		{"crlf", "---\r\nid: a\r\n---\r\n", "---\nx: 1\n---\n", []string{"x"}, "---\r\nid: a\r\nx: 1\r\n---\r\n", nil},
		{"an alias is refused", "---\nx: 1\n---\n", "---\na: &k v\nx: *k\n---\n", []string{"x"}, "---\nx: 1\n---\n", []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := Parse("dst", []byte(tt.dst))
			s, _ := Parse("src", []byte(tt.src))
			before := map[string]string{}
			for _, k := range d.Keys() {
				before[k] = d.valueText(k)
			}
			refused := d.TakeKeys(s, tt.keys)
			if strings.Join(refused, ",") != strings.Join(tt.refused, ",") {
				t.Errorf("refused %v, want %v", refused, tt.refused)
			}
			if tt.want != "" && string(d.Format()) != tt.want {
				t.Errorf("result:\n%q\nwant:\n%q", d.Format(), tt.want)
			}
			re, _ := Parse("out", d.Format())
			for _, k := range tt.keys {
				if !strings.Contains(strings.Join(refused, ","), k) && re.valueText(k) != s.valueText(k) {
					t.Errorf("%s = %s, want %s", k, re.valueText(k), s.valueText(k))
				}
			}
			for k, v := range before {
				if !strings.Contains(strings.Join(tt.keys, ","), k) && re.valueText(k) != v {
					t.Errorf("%s changed from %s to %s", k, v, re.valueText(k))
				}
			}
		})
	}
}

// FuzzTakeKeys takes keys between arbitrary documents: TakeKeys never
// panics; the result parses; each key taken has src's value (or is gone
// when src lacks it); a refused key and every key not asked for keep
// their own values.
func FuzzTakeKeys(f *testing.F) {
	f.Add([]byte("---\nid: a\nimportance: 5 # x\nold: 1\n---\nbody\n"), []byte("---\nimportance: 8\nnew: [a]\n---\n"), "importance,new,old")
	f.Add([]byte("---\r\n{id: a, x: 1}\r\n---\r\n"), []byte("---\nreview:\n  by: [ann]\n---\n"), "review,x")
	f.Add([]byte("note\n"), []byte("---\ntags:\n  - a\n---\n"), "tags")
	f.Add([]byte("---\nx: 1\ny: 2\nx: 3\n---\n"), []byte("---\na: &k v\nx: *k\n---\n"), "x,y")
	f.Fuzz(func(t *testing.T, dst, src []byte, keyList string) {
		d, _ := Parse("dst", dst)
		s, _ := Parse("src", src)
		if d == nil || s == nil {
			return
		}
		keys := strings.Split(keyList, ",")
		asked := map[string]bool{}
		for _, k := range keys {
			asked[k] = true
		}
		before := map[string]string{}
		for _, k := range d.Keys() {
			before[k] = d.valueText(k)
		}
		refused := map[string]bool{}
		for _, k := range d.TakeKeys(s, keys) {
			refused[k] = true
		}
		re, diags := Parse("out", d.Format())
		if re == nil {
			t.Fatalf("result does not parse:\n%s", d.Format())
		}
		if len(refused) == len(asked) {
			return // nothing taken: d may be as broken as it came
		}
		for _, e := range diags {
			if e.Severity == SeverityError {
				t.Fatalf("result: %v\n%s", e, d.Format())
			}
		}
		for k := range asked {
			if !refused[k] && re.valueText(k) != s.valueText(k) {
				t.Fatalf("%s = %s, want %s\n%s", k, re.valueText(k), s.valueText(k), d.Format())
			}
		}
		for k, v := range before {
			if (!asked[k] || refused[k]) && re.valueText(k) != v {
				t.Fatalf("%s changed from %s to %s\n%s", k, v, re.valueText(k), d.Format())
			}
		}
	})
}
