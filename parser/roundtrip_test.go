package parser

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// op is one edit of a round-trip script.
type op struct {
	verb, key string
	arg       any
}

// apply runs the edit on d.
func (o op) apply(d *Document) error {
	switch o.verb {
	case "delete":
		d.Delete(o.key)
		return nil
	case "setbody":
		d.SetBody([]byte(o.arg.(string)))
		return nil
	}
	return d.Set(o.key, o.arg)
}

// readScript reads an edit script: "set KEY JSON", "settime KEY RFC3339",
// "setkv KEY [[k,v],...]", "delete KEY", "setbody JSON"; '#' starts a
// comment line. JSON numbers become int, arrays []string, objects
// map[string]string.
func readScript(t *testing.T, path string) []op {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ops []op
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		if verb == "setbody" {
			var s string
			if err := json.Unmarshal([]byte(rest), &s); err != nil {
				t.Fatalf("%s: %q: %v", path, line, err)
			}
			ops = append(ops, op{verb: verb, arg: s})
			continue
		}
		key, arg, _ := strings.Cut(rest, " ")
		o := op{verb: verb, key: key}
		var err error
		switch verb {
		case "delete":
		case "settime":
			o.arg, err = time.Parse(time.RFC3339Nano, arg)
		case "setkv":
			var pairs [][2]string
			err = json.Unmarshal([]byte(arg), &pairs)
			var kv []KV
			for _, p := range pairs {
				kv = append(kv, KV{p[0], p[1]})
			}
			o.arg = kv
		case "set":
			o.arg, err = jsonArg(arg)
		default:
			err = fmt.Errorf("unknown verb %q", verb)
		}
		if err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		ops = append(ops, o)
	}
	return ops
}

func jsonArg(s string) (any, error) {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case float64:
		return int(v), nil
	case []any:
		out := []string{}
		for _, x := range v {
			out = append(out, x.(string))
		}
		return out, nil
	case map[string]any:
		out := map[string]string{}
		for k, x := range v {
			out[k] = x.(string)
		}
		return out, nil
	}
	return v, nil
}

func roundTripInputs(t *testing.T) []string {
	t.Helper()
	inputs, err := filepath.Glob("testdata/roundtrip/*.md")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no round-trip inputs: %v", err)
	}
	return inputs
}

func scriptFor(t *testing.T, input string) []op {
	script := strings.TrimSuffix(input, ".md") + ".edits"
	if _, err := os.Stat(script); err != nil {
		script = "testdata/roundtrip/default.edits"
	}
	return readScript(t, script)
}

// TestRoundTrip checks that each odd input formats back to itself untouched,
// and that its edit script gives the golden output, which parses back to the
// same Meta and formats to itself.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, input := range roundTripInputs(t) {
		name := strings.TrimSuffix(filepath.Base(input), ".md")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(input)
			if err != nil {
				t.Fatal(err)
			}
			d, _ := Parse(input, in)
			if d == nil {
				t.Fatal("Parse returned nil")
			}
			if got := d.Format(); !bytes.Equal(got, in) {
				t.Fatalf("untouched Format differs from input:\ngot  %q\nwant %q", got, in)
			}
			for _, o := range scriptFor(t, input) {
				if err := o.apply(d); err != nil {
					t.Fatalf("%s %s: %v", o.verb, o.key, err)
				}
			}
			got := d.Format()

			golden := strings.TrimSuffix(input, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("edited output differs from %s:\n%s", golden, cmp.Diff(string(want), string(got)))
			}

			re, diags := Parse(input, got)
			if re == nil {
				t.Fatalf("edited output does not parse: %v", diags)
			}
			for _, e := range diags {
				if e.Severity == SeverityError {
					t.Errorf("edited output has an error: %v", e)
				}
			}
			if diff := cmp.Diff(d.Meta, re.Meta); diff != "" {
				t.Errorf("Meta of re-parsed output differs from edited document (-edited +reparsed):\n%s", diff)
			}
			if !bytes.Equal(re.Format(), got) {
				t.Errorf("re-parsed output does not format to itself")
			}
		})
	}
}

// TestSetTouchesOnlyItsKey applies each edit of each script alone to a fresh
// document and checks, with a line diff, that only the lines of the edited
// key changed (or, for a new key, that lines were only inserted at the end
// of the front matter).
func TestSetTouchesOnlyItsKey(t *testing.T) {
	t.Parallel()
	for _, input := range roundTripInputs(t) {
		in, err := os.ReadFile(input)
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range scriptFor(t, input) {
			if o.verb == "setbody" {
				continue
			}
			name := fmt.Sprintf("%s/%d_%s_%s", filepath.Base(input), i, o.verb, o.key)
			t.Run(name, func(t *testing.T) {
				d, _ := Parse(input, in)
				if !d.hasFM || !d.lineEditable() {
					t.Skip("no front matter or not line-editable: the whole front matter is written")
				}
				allowed := map[int]bool{} // 0-based file lines of the key's entries
				if d.root != nil {
					lines := newLineIndex(d.fm)
					for _, idx := range keyIndices(d.root, o.key) {
						s, e := d.span(lines, idx)
						for l := s; l <= e; l++ {
							allowed[d.fileLine(l)-1] = true
						}
					}
				}
				// A new key is inserted where the front matter's mapping ends.
				insertAt := d.fileLine(newLineIndex(d.fm).n()+1) - 1
				if end := docEndLine(newLineIndex(d.fm)); end > 0 {
					insertAt = d.fileLine(end) - 1
				}
				if err := o.apply(d); err != nil {
					t.Fatal(err)
				}
				old, new := splitLines(in), splitLines(d.Format())
				for _, ch := range lineDiff(old, new) {
					switch {
					case ch.deleted && !allowed[ch.oldLine]:
						t.Errorf("line %d %q deleted, not a line of %q", ch.oldLine+1, old[ch.oldLine], o.key)
					case !ch.deleted && len(allowed) == 0 && ch.oldLine != insertAt:
						t.Errorf("line %q inserted before old line %d, want %d (end of front matter)", ch.text, ch.oldLine+1, insertAt+1)
					case !ch.deleted && len(allowed) > 0 && !allowed[ch.oldLine] && !allowed[ch.oldLine-1]:
						t.Errorf("line %q inserted before old line %d, away from %q", ch.text, ch.oldLine+1, o.key)
					}
				}
			})
		}
	}
}

func splitLines(b []byte) []string {
	var out []string
	for line := range strings.Lines(string(b)) {
		out = append(out, line)
	}
	return out
}

// change is one deleted old line, or one new line inserted before oldLine.
type change struct {
	deleted bool
	oldLine int
	text    string
}

// lineDiff is a plain LCS line diff; the inputs are small.
func lineDiff(a, b []string) []change {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []change
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, change{oldLine: i, text: b[j]})
			j++
		default:
			out = append(out, change{deleted: true, oldLine: i, text: a[i]})
			i++
		}
	}
	return out
}
