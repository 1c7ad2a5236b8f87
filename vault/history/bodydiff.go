package history

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// MaxDiffBodyLines caps the body diff Diff gives each memory: enough for a
// reviewer to read what changed in a pull request, `git diff` has the
// rest.
const MaxDiffBodyLines = 80

// diffContext is how many unchanged lines a body diff keeps around each
// change.
const diffContext = 3

// UnifiedBodyDiff is a line diff of two bodies in unified form: hunks
// opened by "@@ -l,n +l,n @@", lines prefixed with " " (kept), "-" and
// "+", diffContext unchanged lines around each change. It returns at most
// max lines and how many it left out; nothing when the bodies are equal.
// An empty a gives the whole of b as added lines.
func UnifiedBodyDiff(a, b string, max int) ([]string, int) {
	if a == b {
		return nil, 0
	}
	type line struct {
		op       diffmatchpatch.Operation
		text     string
		old, new int // 1-based numbers of the line on each side, after it
	}
	dmp := diffmatchpatch.New()
	ca, cb, table := dmp.DiffLinesToChars(a, b)
	var lines []line
	o, n := 0, 0
	for _, d := range dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), table) {
		for _, t := range strings.SplitAfter(d.Text, "\n") {
			if t == "" {
				continue
			}
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				o, n = o+1, n+1
			case diffmatchpatch.DiffDelete:
				o++
			case diffmatchpatch.DiffInsert:
				n++
			}
			lines = append(lines, line{d.Type, strings.TrimRight(t, "\n"), o, n})
		}
	}
	var out []string
	more := 0
	emit := func(s string) {
		if len(out) < max {
			out = append(out, s)
		} else {
			more++
		}
	}
	for i := 0; i < len(lines); {
		if lines[i].op == diffmatchpatch.DiffEqual {
			i++
			continue
		}
		// A hunk: from diffContext lines before this change to diffContext
		// after the last change closer than 2*diffContext to the previous.
		start, end := max0(i-diffContext), i
		for j := i; j < len(lines); j++ {
			if lines[j].op != diffmatchpatch.DiffEqual {
				end = j
			} else if j-end > 2*diffContext {
				break
			}
		}
		end = min(len(lines), end+diffContext+1)
		var oldN, newN int
		for _, l := range lines[start:end] {
			if l.op != diffmatchpatch.DiffInsert {
				oldN++
			}
			if l.op != diffmatchpatch.DiffDelete {
				newN++
			}
		}
		first := lines[start]
		oldStart, newStart := first.old, first.new
		if first.op == diffmatchpatch.DiffInsert {
			oldStart++ // the old side's numbering resumes after the insert
		}
		if first.op == diffmatchpatch.DiffDelete {
			newStart++
		}
		if oldN == 0 {
			oldStart--
		}
		if newN == 0 {
			newStart--
		}
		emit(fmt.Sprintf("@@ -%d,%d +%d,%d @@", oldStart, oldN, newStart, newN))
		for _, l := range lines[start:end] {
			switch l.op {
			case diffmatchpatch.DiffEqual:
				emit(" " + l.text)
			case diffmatchpatch.DiffDelete:
				emit("-" + l.text)
			case diffmatchpatch.DiffInsert:
				emit("+" + l.text)
			}
		}
		i = end
	}
	return out, more
}

func max0(i int) int { return max(i, 0) }
