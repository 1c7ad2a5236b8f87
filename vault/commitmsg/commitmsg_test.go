package commitmsg

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, msg string
		want      Message
	}{
		{"memvault commit", "memory(project): add \"X\"\n\nwhy it matters\n\nMemory-Id: 01A\nMemory-Client: cursor\n",
			Message{`memory(project): add "X"`, "why it matters", []Trailer{{"Memory-Id", "01A"}, {"Memory-Client", "cursor"}}}},
		{"no reason", "memory(project): add \"X\"\n\nMemory-Id: 01A\n", Message{`memory(project): add "X"`, "", []Trailer{{"Memory-Id", "01A"}}}},
		{"no trailers", "fix: typo\n\nA longer explanation\nover two lines.\n", Message{"fix: typo", "A longer explanation\nover two lines.", nil}},
		{"subject only", "hello", Message{Subject: "hello"}},
		{"empty", "", Message{}},
		{"blank lines only", "\n\n\n", Message{}},
		{"two paragraphs and trailers", "s\n\np1\n\np2\n\nMemory-Supersedes: a\nMemory-Supersedes: b\n",
			Message{"s", "p1\n\np2", []Trailer{{"Memory-Supersedes", "a"}, {"Memory-Supersedes", "b"}}}},
		{"CRLF", "s\r\n\r\nwhy\r\n\r\nKey: v\r\n", Message{"s", "why", []Trailer{{"Key", "v"}}}},
		{"a last paragraph with prose is body", "s\n\nwhy\n\nMemory-Id: 01A\nand prose\n", Message{"s", "why\n\nMemory-Id: 01A\nand prose", nil}},
		{"a key with a blank is not a trailer", "s\n\nnot a key: v\n", Message{"s", "not a key: v", nil}},
		{"value keeps its colons", "s\n\nSee: http://x/y\n", Message{"s", "", []Trailer{{"See", "http://x/y"}}}},
		{"subject straight above the body", "s\nbody\n", Message{"s", "body", nil}},
		{"cherry-pick -x joins the trailers", "s\n\nwhy\n\nMemory-Id: 01A\n(cherry picked from commit 5fc1303097045a954b053dd4f5988ef4aca03aba)\n",
			Message{"s", "why", []Trailer{{"Memory-Id", "01A"}}}},
		{"cherry-pick -x alone is body", "s\n\nwhy\n\n(cherry picked from commit 5fc1303)\n", Message{"s", "why\n\n(cherry picked from commit 5fc1303)", nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Parse(tt.msg)); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.msg, diff)
			}
		})
	}
}

func TestGetAndValues(t *testing.T) {
	m := Parse("s\n\nMemory-Id: a\nmemory-id: b\nMemory-Client: cli\n")
	if got := m.Get(KeyID); got != "a" {
		t.Errorf("Get(Memory-Id) = %q, want a", got)
	}
	if got := m.Values(KeyID); !cmp.Equal(got, []string{"a", "b"}) {
		t.Errorf("Values(Memory-Id) = %q, want [a b] (keys compare case-insensitively)", got)
	}
	if got := m.Get(KeySupersedes); got != "" {
		t.Errorf("Get of a missing key = %q", got)
	}
}

// TestStringFormats pins the bytes of the messages memvault writes: they
// are in every vault's git history and the README shows them.
func TestStringFormats(t *testing.T) {
	tests := []struct {
		name string
		m    Message
		want string
	}{
		{"write with a reason",
			Write{Verb: "supersede", Layer: "project", Title: "API 错误：使用真实 HTTP 状态码", ID: "01M8", Reason: "  review decided  ", Client: "claude-code",
				Supersedes: []string{"01A", "01B"}}.Message(),
			"memory(project): supersede \"API 错误：使用真实 HTTP 状态码\"\n\nreview decided\n\nMemory-Id: 01M8\nMemory-Layer: project\nMemory-Client: claude-code\nMemory-Supersedes: 01A\nMemory-Supersedes: 01B\n"},
		{"write without a reason",
			Write{Verb: "add", Layer: "preference", Title: "Use pytest", ID: "01P", Client: "cli"}.Message(),
			"memory(preference): add \"Use pytest\"\n\nMemory-Id: 01P\nMemory-Layer: preference\nMemory-Client: cli\n"},
		{"batch",
			Message{Subject: "memory: import 2 memories from memory.jsonl", Body: "move in",
				Trailers: []Trailer{{KeyID, "a"}, {KeyID, "b"}, {KeyLayer, "project"}, {KeyClient, "cli"}}},
			"memory: import 2 memories from memory.jsonl\n\nmove in\n\nMemory-Id: a\nMemory-Id: b\nMemory-Layer: project\nMemory-Client: cli\n"},
		{"scaffold",
			Message{Subject: "memory: start the project vault", Body: "The README explains the format to people; .gitignore keeps session scratch out.",
				Trailers: []Trailer{{KeyClient, "human"}}},
			"memory: start the project vault\n\nThe README explains the format to people; .gitignore keeps session scratch out.\n\nMemory-Client: human\n"},
		{"a client name with a blank value", Message{Subject: "s", Trailers: []Trailer{{KeyClient, ""}}}, "s\n\nMemory-Client: \n"},
		{"subject only", Message{Subject: "s"}, "s\n"},
		{"empty", Message{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.m.String(); got != tt.want {
				t.Errorf("String() =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestStringSanitises checks what String changes so that the text reads
// back as written, and that the result then round-trips.
func TestStringSanitises(t *testing.T) {
	tests := []struct {
		name string
		m    Message
		want string
	}{
		{"newline in the subject", Message{Subject: "two\nlines\r\nhere"}, "two lines here\n"},
		{"newline in a trailer value", Message{Subject: "s", Trailers: []Trailer{{KeyClient, "evil\nMemory-Id: 01X"}}},
			"s\n\nMemory-Client: evil Memory-Id: 01X\n"},
		{"bad characters in a key", Message{Subject: "s", Trailers: []Trailer{{"My Key:x", "v"}, {"", "w"}}}, "s\n\nMy-Key-x: v\nTrailer: w\n"},
		{"a reason that names another memory's trailer", Message{Subject: "s", Body: "why\n\nMemory-Id: 01OTHER\n  memory-client : x",
			Trailers: []Trailer{{KeyID, "01A"}}},
			"s\n\nwhy\n\n> Memory-Id: 01OTHER\n>   memory-client : x\n\nMemory-Id: 01A\n"},
		{"a last paragraph that looks like trailers, with none", Message{Subject: "s", Body: "why\n\nNote: keep it\nSee: there"},
			"s\n\nwhy\n\n> Note: keep it\nSee: there\n"},
		{"one paragraph that looks like trailers, with none", Message{Subject: "s", Body: "Reason: x"}, "s\n\n> Reason: x\n"},
		{"a trailer-like body paragraph before real trailers stays", Message{Subject: "s", Body: "Note: keep it",
			Trailers: []Trailer{{KeyClient, "cli"}}}, "s\n\nNote: keep it\n\nMemory-Client: cli\n"},
		{"no subject", Message{Body: "why", Trailers: []Trailer{{KeyClient, "cli"}}}, "(no subject)\n\nwhy\n\nMemory-Client: cli\n"},
		{"CRLF in the body", Message{Subject: "s", Body: "a\r\nb\r\n\r\nc", Trailers: []Trailer{{KeyClient, "cli"}}},
			"s\n\na\nb\n\nc\n\nMemory-Client: cli\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.m.String()
			if got != tt.want {
				t.Fatalf("String() =\n%q\nwant\n%q", got, tt.want)
			}
			back := Parse(got)
			if again := back.String(); again != got {
				t.Errorf("String(Parse(String(m))) =\n%q\nwant it stable:\n%q", again, got)
			}
			if diff := cmp.Diff(back, Parse(back.String())); diff != "" {
				t.Errorf("sanitised message does not round-trip (-first +second):\n%s", diff)
			}
		})
	}
	t.Run("the injected id is no trailer", func(t *testing.T) {
		m := Parse(Message{Subject: "s", Body: "Memory-Id: 01OTHER", Trailers: []Trailer{{KeyID, "01A"}}}.String())
		if got := m.Values(KeyID); !cmp.Equal(got, []string{"01A"}) {
			t.Errorf("Memory-Id values %q, want only 01A", got)
		}
	})
}

func TestRoundTrip(t *testing.T) {
	for _, m := range []Message{
		{Subject: `memory(project): add "订单状态机增加 refunded 状态"`, Body: "线上退款上线。\n\n第二段。",
			Trailers: []Trailer{{KeyID, "01M1"}, {KeyLayer, "project"}, {KeyClient, "claude-code"}, {KeySupersedes, "01K"}}},
		{Subject: "s", Body: "only a body"},
		{Subject: "s", Trailers: []Trailer{{KeyRecovered, "the previous process stopped before committing"}}},
		{Subject: "s", Body: "a\n\n\n\nb", Trailers: []Trailer{{"Signed-off-by", "A <a@example.com>"}}},
		{Subject: "s"},
	} {
		if diff := cmp.Diff(m, Parse(m.String())); diff != "" {
			t.Errorf("Parse(String()) of %q (-want +got):\n%s", m.String(), diff)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 72, "short"},
		{strings.Repeat("订", 72), 72, strings.Repeat("订", 72)},
		{strings.Repeat("订", 73), 72, strings.Repeat("订", 71) + "…"},
	}
	for _, tt := range tests {
		if got := Truncate(tt.in, tt.n); got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
	if got := Subject("project", "add", strings.Repeat("x", 80)); got != `memory(project): add "`+strings.Repeat("x", 71)+`…"` {
		t.Errorf("Subject of a long title = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("memory(project): add \"X\"\n\nwhy\n\nMemory-Id: 01A\nMemory-Client: cli\n")
	f.Add("")
	f.Add("\n\n\n")
	f.Add("s\r\n\r\nKey: v\r\n")
	f.Add("s\n\nNote: x\n\n\nMemory-Id: a\n")
	f.Add("s\n\n  Memory-Id : 01X\n\nMemory-Client: cli\n")
	// The sample vault's reasons, as its replay commits them.
	if data, err := os.ReadFile(filepath.Join("..", "..", "sample-vault", "history.json")); err == nil {
		var steps []struct{ Path, Reason, Client string }
		if json.Unmarshal(data, &steps) == nil {
			for _, s := range steps[:min(len(steps), 10)] {
				f.Add(Write{Verb: "add", Layer: "project", Title: s.Path, ID: "01A", Reason: s.Reason, Client: s.Client}.Message().String())
			}
		}
	}
	f.Fuzz(func(t *testing.T, msg string) {
		m := Parse(msg)
		if strings.Contains(m.Subject, "\n") {
			t.Errorf("subject %q has a newline", m.Subject)
		}
		for _, tr := range m.Trailers {
			if tr.Key == "" || strings.ContainsAny(tr.Key, " \t:\n") {
				t.Errorf("trailer key %q", tr.Key)
			}
		}
		if len(m.Subject)+len(m.Body) > len(msg) {
			t.Errorf("subject and body longer than the message")
		}
		s1 := m.String()
		s2 := Parse(s1).String()
		if s1 != s2 {
			t.Errorf("String(Parse(String(Parse(msg)))) is not stable:\n%q\n%q", s1, s2)
		}
		if diff := cmp.Diff(Parse(s1), Parse(s2)); diff != "" {
			t.Errorf("Parse after String differs (-first +second):\n%s", diff)
		}
	})
}

// FuzzString builds messages from arbitrary parts: what String writes
// reads back as the sanitised parts, and writes again the same.
func FuzzString(f *testing.F) {
	f.Add("memory(project): add \"X\"", "why", KeyID, "01A")
	f.Add("s", "Note: x", "", "")
	f.Add("two\nlines", "a\r\n\r\nMemory-Id: 01X", "Bad Key", "v\nw")
	f.Add("s", "", KeyClient, "")
	f.Fuzz(func(t *testing.T, subject, body, key, value string) {
		for _, trailers := range [][]Trailer{nil, {{key, value}, {KeyClient, "cli"}}} {
			m := Message{Subject: subject, Body: body, Trailers: trailers}
			s := m.String()
			back := Parse(s)
			if again := back.String(); again != s {
				t.Fatalf("String is not canonical:\n%q\n%q", s, again)
			}
			wantSubject := oneLine(subject)
			if wantSubject == "" && s != "" {
				wantSubject = noSubject
			}
			if back.Subject != wantSubject {
				t.Errorf("subject %q, want %q", back.Subject, oneLine(subject))
			}
			if want := cleanBody(body, len(trailers) == 0); back.Body != want {
				t.Errorf("body %q, want %q", back.Body, want)
			}
			if len(back.Trailers) != len(trailers) {
				t.Fatalf("%d trailers read back, want %d: %q", len(back.Trailers), len(trailers), s)
			}
			for i, tr := range trailers {
				if got := back.Trailers[i]; got.Key != cleanKey(tr.Key) || got.Value != oneLine(tr.Value) {
					t.Errorf("trailer %d = %+v, want %s: %s", i, got, cleanKey(tr.Key), oneLine(tr.Value))
				}
			}
		}
	})
}
