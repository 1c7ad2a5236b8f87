package secret

import (
	"strings"
	"testing"
)

// TestReport checks the wording of a report across fields: each field
// named with its findings, a path holding the secret not repeated, a
// deletion not scanned, at most MaxListed findings listed, and the hint
// once at the end.
func TestReport(t *testing.T) {
	const token = "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES"
	const key = "AKIAUJZDEGXDNCF32EPF"
	tests := []struct {
		name string
		fill func(r *Report)
		want string
	}{
		{"nothing found", func(r *Report) { r.Text("title", "Deploy from CI"); r.Text("content", "") }, ""},
		{"two fields", func(r *Report) { r.Text("title", "t "+token); r.Bytes("content", []byte(key)) },
			"title: github-token at line 1, column 3; content: aws-access-key-id at line 1, column 1; " + Hint},
		{"list items", func(r *Report) { r.List("tags", []string{"ok", key}) },
			"tags[1]: aws-access-key-id at line 1, column 1; " + Hint},
		{"a file by its path", func(r *Report) { r.File("project/a.md", []byte("k: "+key)) },
			"project/a.md: aws-access-key-id at line 1, column 4; " + Hint},
		{"a path holding the secret", func(r *Report) { r.File("project/"+key+".md", []byte("clean")) },
			"a file's path: aws-access-key-id at line 1, column 9; " + Hint},
		{"a deletion", func(r *Report) { r.File("project/"+key+".md", nil) }, ""},
		{"more than MaxListed", func(r *Report) { r.Text("content", strings.Repeat(key+"\n", MaxListed+2)) },
			"content: " + strings.TrimSuffix(strings.Repeat("aws-access-key-id at line N, column 1, ", MaxListed), ", ") + " and 2 more; " + Hint},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r Report
			tc.fill(&r)
			got := r.Message()
			if strings.Contains(tc.want, "line N") {
				for i := 1; i <= MaxListed; i++ {
					tc.want = strings.Replace(tc.want, "line N", "line "+string(rune('0'+i)), 1)
				}
			}
			if got != tc.want {
				t.Errorf("message\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
