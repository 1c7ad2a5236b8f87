package commitmsg

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Trailer keys memvault writes. Keys are compared case-insensitively, as
// git does.
const (
	// KeyID names a memory the commit writes; a batch has one per memory.
	KeyID = "Memory-Id"
	// KeyLayer names the layer of a memory the commit writes.
	KeyLayer = "Memory-Layer"
	// KeyClient names the writer: "cli", an MCP client's name, "human".
	KeyClient = "Memory-Client"
	// KeySupersedes names a memory the written one newly replaces.
	KeySupersedes = "Memory-Supersedes"
	// KeyRecovered marks a commit that finished a write another process
	// left half done; its value says so in words.
	KeyRecovered = "Memory-Recovered"
)

// trailerPrefix starts every key above: a body line that begins with it
// would pass for a trailer to a line-based reader such as
// gitstore.HistoryOptions.Follow.
const trailerPrefix = "memory-"

// noSubject stands in for an empty subject: without one, the body's first
// line would read back as the subject.
const noSubject = "(no subject)"

// maxSubjectTitle is the longest title, in runes, a subject quotes.
const maxSubjectTitle = 72

// Trailer is one "Key: value" line of the last paragraph.
type Trailer struct {
	Key   string
	Value string
}

// Message is one commit message.
type Message struct {
	// Subject is the first line.
	Subject string
	// Body is the reason: the paragraphs between the subject and the
	// trailers, without surrounding blank lines.
	Body string
	// Trailers are the lines of the last paragraph, in order, when every
	// line of it is "Key: value" with a key without blanks.
	Trailers []Trailer
}

// Get returns the value of the first trailer with key (compared
// case-insensitively), or "".
func (m Message) Get(key string) string {
	for _, t := range m.Trailers {
		if strings.EqualFold(t.Key, key) {
			return t.Value
		}
	}
	return ""
}

// Values returns the values of every trailer with key (compared
// case-insensitively), in order.
func (m Message) Values(key string) []string {
	var out []string
	for _, t := range m.Trailers {
		if strings.EqualFold(t.Key, key) {
			out = append(out, t.Value)
		}
	}
	return out
}

// String writes the message: the subject, a blank line, the body, a blank
// line, one line per trailer, and a final newline; empty parts and their
// blank lines are left out. It sanitises what would read back differently:
// line breaks in the subject and in trailer values become spaces, and
// surrounding blanks are trimmed; an empty subject becomes "(no subject)"
// unless the whole message is empty; a key's blanks (line breaks included) and colons become "-"
// (an empty key becomes "Trailer"); the body's CRLFs become LFs; a body
// line that would pass for a Memory-* trailer is quoted with "> ", and so
// is the first line of a last body paragraph that would pass for the
// trailers when there are none.
func (m Message) String() string {
	var b strings.Builder
	subject, body := oneLine(m.Subject), cleanBody(m.Body, len(m.Trailers) == 0)
	if subject == "" && (body != "" || len(m.Trailers) > 0) {
		subject = noSubject
	}
	b.WriteString(subject)
	if body != "" {
		b.WriteString("\n\n")
		b.WriteString(body)
	}
	if len(m.Trailers) > 0 {
		b.WriteString("\n")
		for _, t := range m.Trailers {
			b.WriteString("\n")
			b.WriteString(cleanKey(t.Key))
			b.WriteString(": ")
			b.WriteString(oneLine(t.Value))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteString("\n")
	return b.String()
}

// Parse reads a commit message: the first line is the subject, the last
// paragraph holds the trailers when every line of it is "Key: value" (a
// key without blanks), and what lies between is the body. CRLF line ends
// are read as LF. Parse accepts any text.
func Parse(msg string) Message {
	msg = toLF(strings.TrimSpace(msg))
	subject, rest, _ := strings.Cut(msg, "\n")
	paras := strings.Split(strings.TrimSpace(rest), "\n\n")
	var trailers []Trailer
	if n := len(paras); n > 0 {
		if t, ok := parseTrailers(strings.TrimSpace(paras[n-1])); ok {
			trailers = t
			paras = paras[:n-1]
		}
	}
	return Message{Subject: strings.TrimSpace(subject), Body: strings.TrimSpace(strings.Join(paras, "\n\n")), Trailers: trailers}
}

// parseTrailers reads a paragraph of "Key: value" lines; it reports false
// when any line is not one. The line `git cherry-pick -x` appends to the
// trailers, "(cherry picked from commit <sha>)", is passed over.
func parseTrailers(para string) ([]Trailer, bool) {
	if para == "" {
		return nil, false
	}
	var out []Trailer
	for line := range strings.SplitSeq(para, "\n") {
		if isCherryPicked(line) {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, false
		}
		out = append(out, Trailer{Key: k, Value: strings.TrimSpace(v)})
	}
	return out, len(out) > 0
}

// isCherryPicked reports whether a line is the note `git cherry-pick -x`
// adds: "(cherry picked from commit <sha>)".
func isCherryPicked(line string) bool {
	return strings.HasPrefix(line, "(cherry picked from commit ") && strings.HasSuffix(line, ")")
}

// Subject is the subject of a write of one memory: the layer, the verb and
// the quoted title, cut to 72 runes.
//
//	memory(project): supersede "API 错误：使用真实 HTTP 状态码"
func Subject(layer, verb, title string) string {
	return fmt.Sprintf("memory(%s): %s %q", layer, verb, Truncate(title, maxSubjectTitle))
}

// Write describes a write of one memory; its Message is what memvault's
// write path commits.
type Write struct {
	Verb   string // add, update, supersede, archive, delete, ...
	Layer  string
	Title  string
	ID     string
	Reason string // the body
	Client string
	// Supersedes lists the memories the write newly replaces.
	Supersedes []string
}

// Message is the commit message of the write: Subject, the reason, then
// the Memory-Id, Memory-Layer and Memory-Client trailers and one
// Memory-Supersedes per replaced memory.
func (w Write) Message() Message {
	m := Message{
		Subject:  Subject(w.Layer, w.Verb, w.Title),
		Body:     w.Reason,
		Trailers: []Trailer{{KeyID, w.ID}, {KeyLayer, w.Layer}, {KeyClient, w.Client}},
	}
	for _, s := range w.Supersedes {
		m.Trailers = append(m.Trailers, Trailer{KeySupersedes, s})
	}
	return m
}

// Truncate cuts s to n runes, the last one an ellipsis when it cuts.
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// oneLine turns line breaks into spaces and trims the ends.
func oneLine(s string) string {
	if strings.ContainsAny(s, "\r\n") {
		s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	}
	return strings.TrimSpace(s)
}

// toLF reads CRLF line ends (any run of CRs before an LF) as LF.
func toLF(s string) string {
	if !strings.Contains(s, "\r\n") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] != '\r' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '\r' {
			j++
		}
		if j == len(s) || s[j] != '\n' {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// cleanKey makes a trailer key Parse reads back as it is.
func cleanKey(k string) string {
	k = strings.Map(func(r rune) rune {
		if r == ':' || unicode.IsSpace(r) {
			return '-'
		}
		return r
	}, k)
	if k == "" {
		return "Trailer"
	}
	return k
}

// cleanBody trims the body, reads CRLF as LF and quotes the lines that
// would be taken for trailers: any line a line-based reader would take
// for a Memory-* trailer, and, when alone (no trailers follow), a last
// paragraph Parse would take for the trailers.
func cleanBody(body string, alone bool) string {
	body = strings.TrimSpace(toLF(body))
	if body == "" {
		return ""
	}
	if strings.Contains(strings.ToLower(body), trailerPrefix) {
		lines := strings.Split(body, "\n")
		for i, l := range lines {
			if looksLikeMemoryTrailer(l) {
				lines[i] = "> " + l
			}
		}
		body = strings.Join(lines, "\n")
	}
	if alone {
		start := 0 // of the last paragraph
		if i := strings.LastIndex(body, "\n\n"); i >= 0 {
			start = i + 2
		}
		if _, ok := parseTrailers(strings.TrimSpace(body[start:])); ok {
			body = body[:start] + "> " + strings.TrimLeft(body[start:], " \t\n")
		}
	}
	return body
}

// looksLikeMemoryTrailer reports whether a line reads as "Memory-...: v"
// to a reader that trims the key, as gitstore's Follow does.
func looksLikeMemoryTrailer(line string) bool {
	k, _, ok := strings.Cut(line, ":")
	k = strings.TrimSpace(k)
	return ok && len(k) >= len(trailerPrefix) && strings.EqualFold(k[:len(trailerPrefix)], trailerPrefix)
}
