package reviewtext

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault/review"
)

var now = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func entries(n int, prefix string) []review.Entry {
	var out []review.Entry
	for i := range n {
		out = append(out, review.Entry{ID: fmt.Sprintf("%s%02d", prefix, i), Title: "T" + prefix, Path: "project/x.md", Reason: "because"})
	}
	return out
}

func TestRender(t *testing.T) {
	t.Parallel()
	empty := review.Build(review.Input{Now: now})
	tests := []struct {
		name    string
		r       review.Report
		want    []string // in the Markdown
		notWant []string
		text    []string // in the text
	}{
		{name: "empty: says so, and why unused is not judged",
			r:    empty,
			want: []string{"**nothing to look at**", "Nothing in: conflicted, stale, rivals, expiring, duplicates, dangling, unused.", "no recall recorded in this clone yet"},
			text: []string{": nothing to look at", "nothing in: conflicted, stale"}},
		{name: "urgent first, long sections cut",
			r: func() review.Report {
				r := empty
				r.Stale = entries(MaxShown+3, "s")
				r.Conflicted = entries(1, "c")
				r.UnusedJudged = true
				return r
			}(),
			want:    []string{"**1 conflicted · 13 stale**", "### Merge conflicts (1)", "### Stale memories: the code moved on (13)", "- … and 3 more (`memvault review --json` lists them all)"},
			notWant: []string{"s10`", "no recall recorded"},
			text:    []string{"  … and 3 more (memvault review --json lists them all)"}},
		{name: "markup in titles and reasons is escaped; pairs and suggestions shown",
			r: func() review.Report {
				r := empty
				r.Duplicates = []review.Entry{{ID: "01A", Title: "Use *tabs* | not [spaces]", Path: "p.md", Reason: "a_b <c>",
					With: []review.Other{{ID: "01B", Title: "Use tabs"}}, Suggested: "Use tabs"}}
				return r
			}(),
			want: []string{`**Use \*tabs\* \| not \[spaces\]**`, "a\\_b &lt;c&gt;", "with **Use tabs** `01B`", "suggested title: _Use tabs_"},
			text: []string{"with Use tabs  01B", "suggested title: Use tabs"}},
		{name: "access records too young",
			r: func() review.Report {
				r := empty
				r.AccessSince = now.AddDate(0, 0, -3)
				return r
			}(),
			want: []string{"access records start 2026-11-28, less than 14 days ago"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var md, text strings.Builder
			if err := Write(&md, tt.r, ".memory", true); err != nil {
				t.Fatal(err)
			}
			if err := Write(&text, tt.r, ".memory", false); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(md.String(), w) {
					t.Errorf("markdown lacks %q:\n%s", w, md.String())
				}
			}
			if c, st := strings.Index(md.String(), "### Merge conflicts"), strings.Index(md.String(), "### Stale"); c > st && st >= 0 {
				t.Errorf("stale before conflicts:\n%s", md.String())
			}
			for _, w := range tt.notWant {
				if strings.Contains(md.String(), w) {
					t.Errorf("markdown holds %q:\n%s", w, md.String())
				}
			}
			for _, w := range tt.text {
				if !strings.Contains(text.String(), w) {
					t.Errorf("text lacks %q:\n%s", w, text.String())
				}
			}
		})
	}
}
