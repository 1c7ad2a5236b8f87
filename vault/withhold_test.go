package vault

import (
	"fmt"
	"strings"
	"testing"
)

// TestFileWithSecretIsServedRedacted is issue 27's finding 4 in the
// vault: a memory file holding a secret (committed with --no-verify,
// pulled from a teammate) is served with every secret redacted and a label
// naming the file, by recall, Get and All alike, cold and with the index
// cache warm; lint keeps reporting it. Fake values of the right shape.
func TestFileWithSecretIsServedRedacted(t *testing.T) {
	t.Parallel()
	const token = "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES"
	tests := []struct {
		name, file string
	}{
		{"body", "---\nid: ci\ntitle: CI bot token\ntags: [ci]\n---\nThe CI bot uses\n\n    GITHUB_TOKEN=" + token + "\n"},
		{"title", "---\nid: ci\ntitle: CI bot token " + token + "\n---\nThe CI bot token is in the title.\n"},
		{"tag and alias", "---\nid: ci\ntitle: CI bot token\ntags: [" + token + "]\naliases: [" + token + "]\n---\nSee the tags.\n"},
		{"conflict entry", "---\nid: ci\ntitle: CI bot token\nconflict:\n  body: |\n    token " + token + "\n---\nThe CI bot token.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"project/ci.md": tt.file})
			for _, load := range []string{"cold", "warm"} {
				v, err := Open(t.Context(), dir, Options{IndexCache: true})
				if err != nil {
					t.Fatal(err)
				}
				m, err := v.Get("ci")
				if err != nil {
					t.Fatalf("%s: Get: %v", load, err)
				}
				shown := []*Memory{m}
				for _, r := range v.Recall(Query{Text: "CI bot token"}) {
					shown = append(shown, r.Memory)
				}
				shown = append(shown, v.All()...)
				if len(shown) != 3 {
					t.Errorf("%s: %d memories from Get, recall and All, want 3", load, len(shown))
				}
				for _, s := range shown {
					all := strings.Join([]string{s.ID, s.Title, s.Body, strings.Join(s.Tags, " "), strings.Join(s.Aliases, " "), s.ConflictTheirs["body"], s.PlainText()}, " ")
					if strings.Contains(all, "hGAkWvj7") {
						t.Errorf("%s: served memory holds the token: %q", load, all)
					}
					if !strings.HasPrefix(s.Redacted, "project/ci.md:") || !strings.Contains(s.Redacted, "github-token") || !HoldsSecret(s) {
						t.Errorf("%s: Redacted = %q, want the file and the rule", load, s.Redacted)
					}
				}
				if d := v.Diagnostics(); !strings.Contains(fmt.Sprint(d), "secret detected: github-token") {
					t.Errorf("%s: diagnostics %v, want the secret reported", load, d)
				}
			}
		})
	}
}
