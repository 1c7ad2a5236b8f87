package commitmsg

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the want.json sections of testdata/squash")

// squashResult is what a golden archive pins: the squashed messages, and
// the message each memory the text names reads as.
type squashResult struct {
	Squashed []Message          `json:"squashed"`
	For      map[string]Message `json:"for"`
}

var memoryIDLine = regexp.MustCompile(`(?m)^\s*Memory-Id:\s*(\S+)`)

// TestSquashGolden reads real messages (testdata/squash/gen.sh makes the
// git ones with the git CLI) and GitHub's list form: each memory gets
// its own reason and client.
func TestSquashGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/squash/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(ar.Files) == 0 || ar.Files[0].Name != "message" {
				t.Fatalf("%s: the first section must be message", file)
			}
			msg := string(ar.Files[0].Data)
			got := squashResult{Squashed: Squashed(msg), For: map[string]Message{}}
			for _, m := range memoryIDLine.FindAllStringSubmatch(msg, -1) {
				got.For[m[1]] = ParseFor(msg, m[1])
			}
			data, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, '\n')
			if *update {
				ar.Files = append(ar.Files[:1], txtar.File{Name: "want.json", Data: data})
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if len(ar.Files) < 2 || ar.Files[1].Name != "want.json" {
				t.Fatalf("%s has no want.json section (run with -update)", file)
			}
			if d := cmp.Diff(string(ar.Files[1].Data), string(data)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseFor(t *testing.T) {
	const a, b = "01KAAAAAAAAAAAAAAAAAAAAAAA", "01KBBBBBBBBBBBBBBBBBBBBBBB"
	item := func(title, reason, id, client string) string {
		return Write{Verb: "add", Layer: "project", Title: title, ID: id, Reason: reason, Client: client}.Message().String()
	}
	github := "PR (#1)\n\n* " + item("A", "why a", a, "cursor") + "\n* " + item("B", "why b", b, "cli")
	gitForm := "Squashed commit of the following:\n\ncommit 5fc1303097045a954b053dd4f5988ef4aca03aba\nAuthor: A <a@x>\nDate:   now\n\n" +
		indent(item("B", "why b", b, "cli")) + "\ncommit c4b4b16826c2e9ee2491fd8fb6cc0818b6ab1517\nAuthor: A <a@x>\nDate:   then\n\n" + indent(item("A", "why a", a, "cursor"))
	tests := []struct {
		name, msg, id      string
		reason, client, su string
	}{
		{"github first", github, a, "why a", "cursor", `memory(project): add "A"`},
		{"github second", github, b, "why b", "cli", `memory(project): add "B"`},
		{"git first", gitForm, a, "why a", "cursor", `memory(project): add "A"`},
		{"git second", gitForm, b, "why b", "cli", `memory(project): add "B"`},
		{"git with text added below", gitForm + "\nreviewed by Bob\n", a, "why a", "cursor", `memory(project): add "A"`},
		{"a memory no item names reads the whole message", github, "01KZ", Parse(github).Body, "cli", "PR (#1)"},
		{"a plain commit", item("A", "why a", a, "cursor"), a, "why a", "cursor", `memory(project): add "A"`},
		{"cherry-picked", item("A", "why a", a, "cursor") + "(cherry picked from commit 5fc1303097045a954b053dd4f5988ef4aca03aba)\n", a, "why a", "cursor", `memory(project): add "A"`},
		{"a reason beginning with a list item", "memory(project): add \"A\"\n\n* one\n\n* two\n\nMemory-Id: " + a + "\nMemory-Client: cli\n", a, "* one\n\n* two", "cli", `memory(project): add "A"`},
		{"CRLF", strings.ReplaceAll(github, "\n", "\r\n"), b, "why b", "cli", `memory(project): add "B"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ParseFor(tt.msg, tt.id)
			if m.Body != tt.reason || m.Get(KeyClient) != tt.client || m.Subject != tt.su {
				t.Errorf("ParseFor(%s) = subject %q, reason %q, client %q; want %q, %q, %q", tt.id, m.Subject, m.Body, m.Get(KeyClient), tt.su, tt.reason, tt.client)
			}
		})
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// FuzzSquashed reads arbitrary text as a squash: it never panics, every
// item is a message Parse reads back the same, and ParseFor of an id
// returns an item naming it or the whole message.
func FuzzSquashed(f *testing.F) {
	files, _ := filepath.Glob("testdata/squash/*.txtar")
	for _, file := range files {
		if ar, err := txtar.ParseFile(file); err == nil && len(ar.Files) > 0 {
			f.Add(string(ar.Files[0].Data), "01KAAAAAAAAAAAAAAAAAAAAAAA")
		}
	}
	f.Add("s\n\n* memory(x): y\n\n  Memory-Id: a\n\n---\n", "a")
	f.Add("commit abcdef0\nAuthor: x\n\n    s\n\n    Memory-Id: a\ncommit 1234567\nMerge: a b\n", "a")
	f.Fuzz(func(t *testing.T, msg, id string) {
		items := Squashed(msg)
		for _, it := range items {
			if strings.Contains(it.Subject, "\n") {
				t.Errorf("item subject %q has a newline", it.Subject)
			}
			if diff := cmp.Diff(Parse(it.String()), Parse(Parse(it.String()).String())); diff != "" {
				t.Errorf("an item does not read back stably (-first +second):\n%s", diff)
			}
		}
		got := ParseFor(msg, id)
		if id != "" && slices.Contains(got.Values(KeyID), id) {
			return
		}
		if diff := cmp.Diff(Parse(msg), got); diff != "" && !slices.ContainsFunc(items, func(m Message) bool { return cmp.Equal(m, got) }) {
			t.Errorf("ParseFor returned neither an item nor the whole message:\n%s", diff)
		}
	})
}
