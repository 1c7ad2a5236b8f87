package commitmsg

import (
	"slices"
	"strings"
)

// ParseFor reads msg as the message of a commit that wrote memory id. A
// squash merge holds the messages of the commits it squashed (see
// [Squashed]); each names its own memories with Memory-Id trailers, and
// memory id's reason, client and subject are those of the newest one that
// names it (and whose subject is memvault's, so that a reason which merely
// begins with "* " is not taken for GitHub's list). Any other message, or a squash none of whose commits names id,
// reads as [Parse] reads it.
func ParseFor(msg, id string) Message {
	if id != "" && strings.Contains(msg, id) { // else no item can name it
		items := Squashed(msg)
		for _, it := range slices.Backward(items) {
			if isMemvaultSubject(it.Subject) && slices.Contains(it.Values(KeyID), id) {
				return it
			}
		}
	}
	return Parse(msg)
}

// Squashed returns the messages of the commits a squash merge's message
// lists, oldest first, or nil when msg lists none. It reads the two forms
// teams meet:
//
//   - git's `merge --squash` (SQUASH_MSG): "commit <sha>" and "Author:",
//     "Date:" headers, each message indented by four spaces, newest first;
//   - GitHub's (and Gitea's) squash: one "* subject" item per commit at the
//     start of a paragraph, its body and trailers after it, indented or
//     not, oldest first; a "---------" line closes the list (co-author
//     trailers follow it).
//
// A GitHub item whose subject is memvault's ("memory(...)", "memory: ...")
// runs to its Memory-* trailers, so a "* " list in its reason does not
// start an item. A list with no item of memvault's is not read as one.
func Squashed(msg string) []Message {
	lines := strings.Split(toLF(strings.TrimSpace(msg)), "\n")
	if items := gitSquash(lines); len(items) > 0 {
		return items
	}
	return listSquash(lines)
}

// gitSquash reads git's `merge --squash` form.
func gitSquash(lines []string) []Message {
	var out []Message
	for i := 0; i < len(lines); {
		if !isCommitHeader(lines, i) {
			i++
			continue
		}
		// Headers (Author, Merge, Date) up to the blank line.
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
		}
		var body []string
	message:
		for ; i < len(lines) && !isCommitHeader(lines, i); i++ {
			l := lines[i]
			switch {
			case strings.TrimSpace(l) == "":
				body = append(body, "")
			case strings.HasPrefix(l, "    "):
				body = append(body, l[4:])
			default:
				// Text the committer wrote below the list ends it.
				i = len(lines)
				break message
			}
		}
		out = append(out, Parse(strings.Join(body, "\n")))
	}
	slices.Reverse(out) // git lists the newest first
	return out
}

// isCommitHeader reports whether lines[i] opens a commit of git's log
// output: "commit <hex>" followed by an "Author:" or "Merge:" line.
func isCommitHeader(lines []string, i int) bool {
	sha, ok := strings.CutPrefix(lines[i], "commit ")
	if !ok || i+1 >= len(lines) {
		return false
	}
	sha, _, _ = strings.Cut(sha, " ")
	if len(sha) < 7 || len(sha) > 64 || strings.Trim(sha, "0123456789abcdef") != "" {
		return false
	}
	next := lines[i+1]
	return strings.HasPrefix(next, "Author:") || strings.HasPrefix(next, "Merge:")
}

// listSquash reads GitHub's "* subject" form.
func listSquash(lines []string) []Message {
	var (
		items [][]string
		cur   []string
		open  bool // cur is memvault's and has not reached its trailers
	)
	flush := func() {
		if cur != nil {
			items = append(items, cur)
		}
		cur, open = nil, false
	}
	for i := 1; i < len(lines); i++ { // lines[0] is the squash's subject
		l := lines[i]
		paraStart := strings.TrimSpace(lines[i-1]) == ""
		if paraStart && isRule(l) {
			break
		}
		if paraStart && strings.HasPrefix(l, "* ") && !open {
			flush()
			subject := strings.TrimSpace(l[2:])
			cur, open = []string{subject}, isMemvaultSubject(subject)
			continue
		}
		if cur == nil {
			continue // text above the list
		}
		cur = append(cur, l)
		if open && paraStart && memoryTrailers(lines[i:]) {
			open = false
		}
	}
	flush()
	// A list without a memvault item is a reason written as a list, or a
	// squash that names no memory: nothing to read per memory.
	if !slices.ContainsFunc(items, func(it []string) bool { return isMemvaultSubject(it[0]) }) {
		return nil
	}
	out := make([]Message, 0, len(items))
	for _, it := range items {
		out = append(out, Parse(it[0]+"\n"+dedent(it[1:])))
	}
	return out
}

// memoryTrailers reports whether the paragraph that starts lines is a
// trailer paragraph with a Memory-* key.
func memoryTrailers(lines []string) bool {
	var para []string
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			break
		}
		para = append(para, strings.TrimSpace(l))
	}
	ts, ok := parseTrailers(strings.Join(para, "\n"))
	return ok && slices.ContainsFunc(ts, func(t Trailer) bool {
		return len(t.Key) >= len(trailerPrefix) && strings.EqualFold(t.Key[:len(trailerPrefix)], trailerPrefix)
	})
}

// isMemvaultSubject reports whether a subject is one memvault writes.
func isMemvaultSubject(s string) bool {
	return strings.HasPrefix(s, "memory(") || strings.HasPrefix(s, "memory:")
}

// isRule reports whether a line is a row of dashes, GitHub's separator
// between the squashed messages and the co-author trailers.
func isRule(l string) bool {
	l = strings.TrimSpace(l)
	return len(l) >= 3 && strings.Trim(l, "-") == ""
}

// dedent removes the indentation every non-blank line shares.
func dedent(lines []string) string {
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ind, false
			continue
		}
		for !strings.HasPrefix(ind, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			out[i] = strings.TrimPrefix(l, prefix)
		}
	}
	return strings.Join(out, "\n")
}
