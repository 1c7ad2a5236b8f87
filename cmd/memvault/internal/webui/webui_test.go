package webui

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/samplehistory"
)

// sampleNow is after the sample history's last commit.
var sampleNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// sampleServer replays the sample vault's history into a repository and
// serves its pages.
func sampleServer(t *testing.T) *httptest.Server {
	t.Helper()
	// Named as the demo's repository: the footer (and the screenshots in
	// docs/) show its folder's name.
	root := filepath.Join(t.TempDir(), "shopflow")
	if err := samplehistory.Replay(t.Context(), filepath.Join("..", "..", "..", "..", "sample-vault"), root); err != nil {
		t.Fatal(err)
	}
	return serveDir(t, filepath.Join(root, samplehistory.VaultDir), func() time.Time { return sampleNow })
}

// serveDir serves the vault at dir at the clock now.
func serveDir(t testing.TB, dir string, now func() time.Time) *httptest.Server {
	t.Helper()
	h, closeSrc, err := Open(context.Background(), dir, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeSrc)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// get fetches path and returns the status and body.
func get(t testing.TB, ts *httptest.Server, path string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(body)
}

var hrefRe = regexp.MustCompile(`(?:href|src|action)="([^"]*)"`)

// internalLinks lists the links of a page to its own server.
func internalLinks(page string) []string {
	var out []string
	for _, m := range hrefRe.FindAllStringSubmatch(page, -1) {
		u := strings.ReplaceAll(m[1], "&amp;", "&")
		if strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//") {
			out = append(out, u)
		}
	}
	return out
}

func TestPagesOnTheSampleVault(t *testing.T) {
	t.Parallel()
	ts := sampleServer(t)

	t.Run("the footer names the vault by its folders, the full path as title", func(t *testing.T) {
		_, body := get(t, ts, "/")
		foot := regexp.MustCompile(`<code title="([^"]*)">([^<]*)</code></p></footer>`).FindStringSubmatch(body)
		if foot == nil || foot[2] != "shopflow/.memory" || !filepath.IsAbs(foot[1]) || !strings.HasSuffix(foot[1], filepath.Join("shopflow", ".memory")) {
			t.Errorf("footer %q, want shopflow/.memory with the full path as title", foot)
		}
	})

	t.Run("search finds the settlement design first", func(t *testing.T) {
		code, body := get(t, ts, "/search?q="+url.QueryEscape("结算模块怎么设计的"))
		if code != http.StatusOK {
			t.Fatalf("status %d: %s", code, body)
		}
		first := regexp.MustCompile(`<li class="hit">\s*<h3><a href="[^"]*">([^<]*)</a>`).FindStringSubmatch(body)
		if first == nil || !strings.Contains(first[1], "结算模块设计") {
			t.Errorf("first result %q, want 结算模块设计", first)
		}
		if !strings.Contains(body, "<mark>") {
			t.Error("no matched term is marked")
		}
	})

	t.Run("crawl from the overview", func(t *testing.T) {
		// Every page reachable from / answers 200, and so does every
		// internal link found on any of them (forms' actions aside).
		seen := map[string]bool{}
		queue := []string{"/", "/search?q=deploy", "/diff?range=" + url.QueryEscape("HEAD~5...HEAD")}
		pages := map[string]bool{}
		for len(queue) > 0 && len(seen) < 400 {
			p := queue[0]
			queue = queue[1:]
			if seen[p] {
				continue
			}
			seen[p] = true
			code, body := get(t, ts, p)
			if code != http.StatusOK {
				t.Errorf("GET %s: status %d", p, code)
				continue
			}
			u, _ := url.Parse(p)
			pages[strings.SplitN(u.Path, "/", 3)[1]] = true
			if strings.HasPrefix(p, "/static/") {
				continue
			}
			for _, l := range internalLinks(body) {
				if !seen[l] && !strings.HasSuffix(l, "/confirm") && !strings.HasSuffix(l, "/forget") && !strings.HasSuffix(l, "/resolve") {
					queue = append(queue, l)
				}
			}
		}
		t.Logf("crawled %d pages", len(seen))
		for _, want := range []string{"", "search", "m", "timeline", "review", "diff", "static"} {
			if !pages[want] {
				t.Errorf("no /%s page reached from / (reached %v)", want, pages)
			}
		}
	})

	t.Run("memory page tells its history with reasons", func(t *testing.T) {
		_, search := get(t, ts, "/search?q="+url.QueryEscape("结算模块怎么设计的"))
		m := regexp.MustCompile(`href="(/m/[^"]+)"`).FindStringSubmatch(search)
		if m == nil {
			t.Fatal("no memory link in the search results")
		}
		code, body := get(t, ts, m[1])
		if code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
		for _, want := range []string{`<ol class="history">`, `<p class="reason">`, "<h2 id=\"h-fm\">"} {
			if !strings.Contains(body, want) {
				t.Errorf("memory page has no %q", want)
			}
		}
	})

	t.Run("timeline paginates", func(t *testing.T) {
		_, body := get(t, ts, "/timeline")
		next := regexp.MustCompile(`rel="next" href="([^"]+)"`).FindStringSubmatch(body)
		if strings.Count(body, `<li class="commit`) < pageSize && next != nil {
			t.Fatalf("a short first page offers a next one")
		}
		if next != nil {
			code, page2 := get(t, ts, strings.ReplaceAll(next[1], "&amp;", "&"))
			if code != http.StatusOK || !strings.Contains(page2, `<li class="commit`) {
				t.Errorf("second page: status %d", code)
			}
		}
		_, filtered := get(t, ts, "/timeline?layer=project")
		if strings.Contains(filtered, `class="commit lane-short-term"`) {
			t.Error("the project filter shows a short-term commit")
		}
	})

	t.Run("chinese from accept-language", func(t *testing.T) {
		_, zh := get(t, ts, "/", "Accept-Language", "zh-CN,zh;q=0.9,en;q=0.8")
		if !strings.Contains(zh, `<html lang="zh-CN">`) || !strings.Contains(zh, "概览") {
			t.Error("a Chinese browser gets no Chinese page")
		}
		_, en := get(t, ts, "/", "Accept-Language", "en-US,en;q=0.9,zh;q=0.5")
		if !strings.Contains(en, `<html lang="en">`) || !strings.Contains(en, "Overview") {
			t.Error("an English browser gets no English page")
		}
	})

	t.Run("unknown memory is 404", func(t *testing.T) {
		if code, _ := get(t, ts, "/m/01NOSUCHMEMORY0000000000000"); code != http.StatusNotFound {
			t.Errorf("status %d, want 404", code)
		}
	})

	t.Run("read-only refuses writes", func(t *testing.T) {
		res, err := ts.Client().PostForm(ts.URL+"/m/x/forget", url.Values{"reason": {"x"}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("POST on a read-only view: status %d, want 403", res.StatusCode)
		}
	})
}

func TestLang(t *testing.T) {
	t.Parallel()
	tests := []struct{ header, want string }{
		{"", langEN},
		{"zh-CN,zh;q=0.9", langZH},
		{"en-US,en;q=0.9,zh-CN;q=0.8", langEN},
		{"fr-FR,zh-TW;q=0.8,en;q=0.5", langZH},
		{"en;q=0.1, zh;q=0.9", langZH},
		{"de", langEN},
	}
	for _, tt := range tests {
		if got := lang(tt.header); got != tt.want {
			t.Errorf("lang(%q) = %q, want %q", tt.header, got, tt.want)
		}
	}
}

func TestMessagesComplete(t *testing.T) {
	t.Parallel()
	for k, m := range messages {
		if m[0] == "" || m[1] == "" {
			t.Errorf("message %q lacks a language: %q", k, m)
		}
	}
}
