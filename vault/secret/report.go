package secret

import (
	"fmt"
	"strings"
)

// MaxListed caps the findings one report or file lists; the rest are
// counted.
const MaxListed = 5

// Hint tells a writer what to do; it never repeats the secret.
const Hint = "remove it (the value is not shown); for a known false positive put " + AllowMarker + " on that line"

// Report collects the findings of several named fields (a title, a tag,
// a file, a commit message) into one message, so that a refused write
// names every place at once.
type Report struct{ parts []string }

// Text scans one field's text; empty text is not scanned.
func (r *Report) Text(field, text string) {
	if text != "" {
		r.Bytes(field, []byte(text))
	}
}

// Bytes scans one field's bytes.
func (r *Report) Bytes(field string, data []byte) {
	if f := Scan(data); len(f) > 0 {
		r.parts = append(r.parts, field+": "+Describe(f))
	}
}

// File scans a file a commit adds or changes: its path and its content.
// The message names the file by its path, unless the path itself holds
// the secret. A deletion (nil data) adds nothing to git and is not
// scanned: removing a file is how a secret leaves the tree.
func (r *Report) File(rel string, data []byte) {
	if data == nil {
		return
	}
	name := rel
	if f := Scan([]byte(rel)); len(f) > 0 {
		name = "a file"
		r.parts = append(r.parts, "a file's path: "+Describe(f))
	}
	r.Bytes(name, data)
}

// List scans each item of a list field, named field[i].
func (r *Report) List(field string, items []string) {
	for i, t := range items {
		r.Text(fmt.Sprintf("%s[%d]", field, i), t)
	}
}

// Message says where secrets were found, then Hint; "" when none was.
func (r *Report) Message() string {
	if len(r.parts) == 0 {
		return ""
	}
	return strings.Join(r.parts, "; ") + "; " + Hint
}

// Describe lists findings (never their values), at most MaxListed of
// them, counting the rest.
func Describe(fs []Finding) string {
	var b strings.Builder
	for i, f := range fs {
		if i == MaxListed {
			fmt.Fprintf(&b, " and %d more", len(fs)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.String())
	}
	return b.String()
}
