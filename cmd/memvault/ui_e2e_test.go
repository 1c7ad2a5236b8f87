package main

import (
	"bufio"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/samplehistory"
)

// TestUIEndToEnd runs the real binary's `memvault ui --write` on the
// replayed sample vault: the URL is the first line of stdout, the pages
// answer, a write from a memory page is one commit and reaches an open
// event stream, and a write from another origin is refused.
func TestUIEndToEnd(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	bin := buildMemvault(t)
	root := t.TempDir()
	if err := samplehistory.Replay(t.Context(), filepath.Join("..", "..", "sample-vault"), root); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "ui", "--write", "--vault", filepath.Join(root, samplehistory.VaultDir))
	cmd.Env = append(os.Environ(), "MEMVAULT_AUTHOR=Web Tester <web@example.com>", "HOME="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the first line of stdout: %v", err)
	}
	base := strings.TrimSpace(line)
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/$`).MatchString(base) {
		t.Fatalf("first line %q, want http://127.0.0.1:PORT/", base)
	}
	fetch := func(path string) string {
		t.Helper()
		res, err := http.Get(base + strings.TrimPrefix(path, "/"))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: status %d\n%s", path, res.StatusCode, body)
		}
		return string(body)
	}
	for _, p := range []string{"/", "/timeline", "/review", "/diff", "/static/style.css"} {
		fetch(p)
	}
	search := fetch("/search?q=" + url.QueryEscape("结算模块怎么设计的"))
	m := regexp.MustCompile(`<h3><a href="(/m/[^"]+)">([^<]*)</a>`).FindStringSubmatch(search)
	if m == nil || !strings.Contains(m[2], "结算模块设计") {
		t.Fatalf("first search result %v, want 结算模块设计", m)
	}
	page := fetch(m[1])
	csrf := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	if csrf == nil {
		t.Fatal("a --write memory page has no form token")
	}

	// An event stream open before the write hears of it.
	events, err := http.Get(base + "events")
	if err != nil {
		t.Fatal(err)
	}
	defer events.Body.Close()
	ev := bufio.NewReader(events.Body)
	if l, err := ev.ReadString('\n'); err != nil || !strings.HasPrefix(l, ":") {
		t.Fatalf("event stream opened with %q, %v", l, err)
	}

	post := func(origin, token string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, base+strings.TrimPrefix(m[1], "/")+"/confirm",
			strings.NewReader(url.Values{"csrf": {token}, "reason": {"checked in the web view"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := post("http://evil.example", csrf[1]); res.StatusCode != http.StatusForbidden {
		t.Errorf("POST from another origin: status %d, want 403", res.StatusCode)
	}
	if res := post("", "0000"); res.StatusCode != http.StatusForbidden {
		t.Errorf("POST with a wrong form token: status %d, want 403", res.StatusCode)
	}
	if res := post(strings.TrimSuffix(base, "/"), csrf[1]); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("confirm: status %d, want 303", res.StatusCode)
	}
	for {
		l, err := ev.ReadString('\n')
		if err != nil {
			t.Fatalf("event stream ended before the change: %v", err)
		}
		if strings.TrimSpace(l) == "event: change" {
			break
		}
	}
	after := fetch(m[1])
	if !strings.Contains(after, "checked in the web view") || !strings.Contains(after, "Web Tester") {
		t.Error("the memory's history does not show the confirm's commit with its reason and author")
	}
}

func TestUIRefusesAnOpenAddressWithoutToken(t *testing.T) {
	t.Parallel()
	r := &cliRepo{t: t, root: t.TempDir(), now: gitTestNow, home: t.TempDir()}
	r.dir = filepath.Join(r.root, ".memory")
	if code, _ := r.run("", "ui", "--addr", "0.0.0.0:0", "--token", ""); code == 0 || !strings.Contains(r.lastStderr, "--addr 0.0.0.0:0 listens beyond loopback") {
		t.Errorf("ui --addr 0.0.0.0:0 without a token: exit %d, stderr %q", code, r.lastStderr)
	}
}

// TestServeHTTPServesThePages: serve --http mounts the web view at /
// behind its token; a browser brings the token once in the address and
// then carries it in the cookie.
func TestServeHTTPServesThePages(t *testing.T) {
	t.Parallel()
	bin := buildMemvault(t)
	base, _ := startHTTPServe(t, bin, "--token", "s3cret-pages", "--no-user-vault")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(path string, set func(*http.Request)) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		if set != nil {
			set(req)
		}
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := do("/", nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET / without the token: status %d, want 401", res.StatusCode)
	}
	if res := do("/?token=wrong", nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /?token=wrong: status %d, want 401", res.StatusCode)
	}
	res := do("/timeline?token=s3cret-pages", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/timeline" {
		t.Fatalf("GET /timeline?token=…: status %d, Location %q; want 303 to /timeline", res.StatusCode, res.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "memvault_token" && c.HttpOnly && c.SameSite == http.SameSiteStrictMode {
			cookie = c
		}
	}
	if cookie == nil {
		t.Fatalf("no HttpOnly SameSite=Strict token cookie in %v", res.Cookies())
	}
	for _, p := range []string{"/", "/timeline", "/review", "/search?q=deploy"} {
		if res := do(p, func(r *http.Request) { r.AddCookie(cookie) }); res.StatusCode != http.StatusOK {
			t.Errorf("GET %s with the cookie: status %d", p, res.StatusCode)
		}
	}
	if res := do("/", func(r *http.Request) { r.Header.Set("Authorization", "Bearer s3cret-pages") }); res.StatusCode != http.StatusOK {
		t.Errorf("GET / with the bearer token: status %d", res.StatusCode)
	}
	// The MCP endpoint takes the bearer header only.
	if res := do("/mcp", func(r *http.Request) { r.AddCookie(cookie) }); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /mcp with the cookie alone: status %d, want 401", res.StatusCode)
	}
}
