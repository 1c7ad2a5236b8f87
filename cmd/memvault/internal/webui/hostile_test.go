package webui

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hostileMemory is a memory file written to attack the page that shows
// it: script tags, event handlers and javascript: links in the body, HTML
// in front-matter values (title, tags, refs), and terminal escapes.
const hostileMemory = "---\n" +
	"id: 01JHOSTILE0000000000000000\n" +
	"title: \"Evil <script>alert('title')</script> \\e[2J\\e]8;;http://x\\a title\"\n" +
	"layer: project\n" +
	"tags: [\"<img src=x onerror=alert('tag')>\", deploy]\n" +
	"refs: [\"<svg onload=alert('ref')>\"]\n" +
	"created_at: 2026-11-01T10:00:00Z\n" +
	"updated_at: 2026-11-01T10:00:00Z\n" +
	"---\n" +
	"# Evil deploy notes\n\n" +
	"<script>alert('body')</script>\n\n" +
	"Click [here](javascript:alert('link')) or <a href=\"javascript:alert(2)\">there</a>.\n\n" +
	"<img src=x onerror=alert('img')>\n\n" +
	"<iframe src=\"http://evil.example\"></iframe>\n\n" +
	"ANSI \x1b[31mred\x1b[0m and OSC \x1b]0;pwned\x07 deploy text.\n"

func TestHostileContentRendersInert(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, ".memory")
	if err := os.MkdirAll(filepath.Join(dir, "project"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "project", "evil.md"), []byte(hostileMemory), 0o644); err != nil {
		t.Fatal(err)
	}
	// A repository, so the history and timeline pages render the
	// hostile commit message too.
	git := func(args ...string) {
		c := exec.Command("git", append([]string{"-C", root, "-c", "user.name=<b>Mallory</b>", "-c", "user.email=m@example.com"}, args...)...)
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := c.CombinedOutput(); err != nil {
			t.Skipf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "add <script>alert('subject')</script>\n\nbecause <img src=x onerror=alert('reason')>\n\nMemory-Id: 01JHOSTILE0000000000000000\nMemory-Client: <script>x</script>")
	now := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	ts := serveDir(t, dir, func() time.Time { return now })

	pages := []string{"/", "/m/01JHOSTILE0000000000000000", "/search?q=" + url.QueryEscape("deploy"), "/timeline", "/review",
		"/search?q=" + url.QueryEscape("<script>alert('q')</script>"), "/timeline?author=" + url.QueryEscape("<script>")}
	for _, p := range pages {
		code, body := get(t, ts, p)
		if code != 200 {
			t.Errorf("GET %s: status %d", p, code)
			continue
		}
		low := strings.ToLower(body)
		// The pages' own script is the one <script> tag, in the head.
		if n := strings.Count(low, "<script"); n != 1 {
			t.Errorf("GET %s: %d <script> tags, want only the page's own", p, n)
		}
		// Handlers such as onerror= may show as text: without a tag to hold
		// them they are inert.
		for _, bad := range []string{"<img", "<svg", "<iframe", `href="javascript:`, "\x1b", "\x07"} {
			if strings.Contains(low, bad) {
				i := strings.Index(low, bad)
				t.Errorf("GET %s: page contains %q: …%s…", p, bad, body[max(0, i-80):min(len(body), i+80)])
			}
		}
		if p == "/m/01JHOSTILE0000000000000000" && !strings.Contains(body, "&lt;script&gt;") {
			t.Errorf("GET %s: the title's script is not shown escaped", p)
		}
	}
}
