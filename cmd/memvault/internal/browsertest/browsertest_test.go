package browsertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixtureServer serves testdata/site with a strict Content-Security-Policy
// (so the harness is shown to work under the one the web view sends), and
// /lang, which echoes the request's Accept-Language.
func fixtureServer(t *testing.T) *httptest.Server {
	t.Helper()
	files := http.FileServerFS(os.DirFS("testdata/site"))
	mux := http.NewServeMux()
	mux.HandleFunc("/lang", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, r.Header.Get("Accept-Language"))
	})
	mux.Handle("/", files)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'")
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestHarness proves each check of the harness both passes on a clean page
// and fails on a page with the fault it looks for. One browser serves every
// subtest: starting one is the slow part on a loaded machine.
func TestHarness(t *testing.T) {
	b := New(t, Options{AcceptLanguage: "zh-CN,zh;q=0.9"})
	srv := fixtureServer(t)
	ctx := t.Context()
	visit := func(t *testing.T, path string) *Page {
		t.Helper()
		p, err := b.Visit(ctx, srv.URL+path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		return p
	}
	problems := func(t *testing.T, p *Page) Problems {
		t.Helper()
		pr, err := p.Problems(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}

	t.Run("status", func(t *testing.T) {
		for path, want := range map[string]int{"/": 200, "/clean.html": 200, "/missing.html": 404} {
			if got := visit(t, path).Status; got != want {
				t.Errorf("%s: status %d, want %d", path, got, want)
			}
		}
	})

	t.Run("clean page has no problems", func(t *testing.T) {
		for _, path := range []string{"/", "/clean.html", "/a/b.html?x=1"} {
			if pr := problems(t, visit(t, path)); len(pr.Console)+len(pr.Failed) > 0 {
				t.Errorf("%s: problems on a clean page: %+v", path, pr)
			}
		}
	})

	t.Run("console errors and failed requests", func(t *testing.T) {
		pr := problems(t, visit(t, "/console.html"))
		for _, want := range []string{
			"console.error: boom from the fixture",
			"exception: Uncaught Error: kaboom from the fixture",
			"network error: Failed to load resource: the server responded with a status of 404",
		} {
			if !slices.ContainsFunc(pr.Console, func(c string) bool { return strings.Contains(c, want) }) {
				t.Errorf("console errors %q lack %q", pr.Console, want)
			}
		}
		want := []Request{{URL: srv.URL + "/nothere.png", Status: 404}}
		if diff := cmp.Diff(want, pr.Failed); diff != "" {
			t.Errorf("failed requests (-want +got):\n%s", diff)
		}
	})

	t.Run("a script the page's policy refuses is a console error", func(t *testing.T) {
		pr := problems(t, visit(t, "/inline.html"))
		if !slices.ContainsFunc(pr.Console, func(c string) bool { return strings.Contains(c, "Content Security Policy") }) {
			t.Errorf("console errors %q lack the refused inline script", pr.Console)
		}
	})

	t.Run("links", func(t *testing.T) {
		got, err := visit(t, "/").Links(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := Links{Internal: []string{
			srv.URL + "/", // the skip link, #main, without its fragment
			srv.URL + "/a/b.html?x=1",
			srv.URL + "/clean.html",
			srv.URL + "/missing.html",
		}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("links of / (-want +got):\n%s", diff)
		}
		got, err = visit(t, "/fragment.html").Links(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{srv.URL + "/fragment.html#content"}; !cmp.Equal(want, got.MissingTargets) {
			t.Errorf("links to missing fragments: got %q, want %q", got.MissingTargets, want)
		}
	})

	t.Run("axe", func(t *testing.T) {
		for path, want := range map[string][]string{
			"/":          nil,
			"/axe.html":  {"image-alt", "label"},
			"/wide.html": nil,
		} {
			vs, err := visit(t, path).Axe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range vs {
				if v.Serious() {
					got = append(got, v.ID)
				}
			}
			slices.Sort(got)
			if !cmp.Equal(want, got) {
				t.Errorf("%s: serious or critical violations %q, want %q; all:\n%v", path, got, want, vs)
			}
		}
	})

	t.Run("overflow at 360 px", func(t *testing.T) {
		for path, overflows := range map[string]bool{"/": false, "/wide.html": true} {
			scroll, inner, err := visit(t, path).Overflow(ctx, 360)
			if err != nil {
				t.Fatal(err)
			}
			if inner != 360 || (scroll > inner) != overflows {
				t.Errorf("%s at 360 px: scrollWidth %d, innerWidth %d; want overflow %v", path, scroll, inner, overflows)
			}
		}
	})

	t.Run("Chinese renders with a CJK font", func(t *testing.T) {
		fonts, err := visit(t, "/").Fonts(ctx, "#zh")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(fonts, func(f string) bool { return strings.Contains(f, "CJK") }) {
			t.Errorf("the Chinese paragraph renders with %q, no CJK font (is fonts-noto-cjk installed?)", fonts)
		}
	})

	t.Run("accept-language", func(t *testing.T) {
		got, err := Eval[string](ctx, visit(t, "/lang"), "document.body.textContent")
		if err != nil {
			t.Fatal(err)
		}
		if want := "zh-CN,zh;q=0.9"; got != want {
			t.Errorf("Accept-Language %q, want %q", got, want)
		}
		p, err := b.WithLanguage("en").Visit(ctx, srv.URL+"/lang")
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if got, err := Eval[string](ctx, p, "document.body.textContent"); err != nil || got != "en" {
			t.Errorf("WithLanguage(en): Accept-Language %q (%v), want en", got, err)
		}
	})

	t.Run("screenshots", func(t *testing.T) {
		dir := ArtifactDir(t)
		p := visit(t, "/")
		for _, width := range []int{1280, 360} {
			shot, err := p.Screenshot(ctx, width)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(shot))
			if err != nil {
				t.Fatalf("screenshot at %d px is no PNG: %v", width, err)
			}
			if got := img.Bounds().Dx(); got != width {
				t.Errorf("screenshot at %d px is %d px wide", width, got)
			}
			name := filepath.Join(dir, fmt.Sprintf("overview-%d.png", width))
			if err := os.WriteFile(name, shot, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("crawl", func(t *testing.T) {
		for _, tc := range []struct {
			name      string
			maxPages  int
			visited   []string
			unvisited []string
		}{
			{"every page", 0, []string{"/", "/a/b.html?x=1", "/clean.html", "/missing.html"}, nil},
			{"bounded", 2, []string{"/", "/a/b.html?x=1"}, []string{"/clean.html", "/missing.html"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var mu sync.Mutex
				var checked []string
				r, err := b.Crawl(ctx, CrawlOptions{
					MaxPages: tc.maxPages,
					Each: func(ctx context.Context, p *Page) error {
						mu.Lock()
						defer mu.Unlock()
						checked = append(checked, strings.TrimPrefix(p.URL, srv.URL))
						if strings.HasSuffix(p.URL, "/clean.html") {
							return errors.New("a check failed")
						}
						return nil
					},
				}, srv.URL+"/")
				if err != nil {
					t.Fatal(err)
				}
				var visited []string
				for _, p := range r.Pages {
					visited = append(visited, strings.TrimPrefix(p.URL, srv.URL))
				}
				if diff := cmp.Diff(tc.visited, visited); diff != "" {
					t.Errorf("pages loaded (-want +got):\n%s", diff)
				}
				var unvisited []string
				for _, u := range r.Unvisited {
					unvisited = append(unvisited, strings.TrimPrefix(u, srv.URL))
				}
				if diff := cmp.Diff(tc.unvisited, unvisited); diff != "" {
					t.Errorf("links checked over HTTP only (-want +got):\n%s", diff)
				}
				// Each runs in two tabs at once: in no set order.
				slices.Sort(checked)
				wantChecked := slices.DeleteFunc(slices.Clone(tc.visited), func(p string) bool { return p == "/missing.html" })
				if diff := cmp.Diff(wantChecked, checked); diff != "" {
					t.Errorf("pages Each ran on (-want +got):\n%s", diff)
				}
				wantBroken := []BrokenLink{{URL: srv.URL + "/missing.html", Status: 404, From: []string{srv.URL + "/"}}}
				if diff := cmp.Diff(wantBroken, r.Broken); diff != "" {
					t.Errorf("broken links (-want +got):\n%s", diff)
				}
				failures := strings.Join(r.Failures(), "\n")
				for _, want := range []string{"broken link " + srv.URL + "/missing.html (HTTP 404)"} {
					if !strings.Contains(failures, want) {
						t.Errorf("failures lack %q:\n%s", want, failures)
					}
				}
				if tc.maxPages == 0 && !strings.Contains(failures, "/clean.html: a check failed") {
					t.Errorf("failures lack the failed check:\n%s", failures)
				}
			})
		}
	})
}

// TestFindNamesWhatIsMissing checks the message that tells a developer
// what to install.
func TestFindNamesWhatIsMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nothing")
	t.Setenv(EnvChromium, missing)
	t.Setenv(EnvAxe, missing)
	_, err := Find(t.Context())
	if !errors.Is(err, ErrMissing) {
		t.Fatalf("Find with neither tool: %v, want ErrMissing", err)
	}
	for _, want := range []string{"$" + EnvChromium, "$" + EnvAxe, missing} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Find's error %q does not name %q", err, want)
		}
	}
}

// TestMissingBrowserSkipsOrFailsInCI runs TestHelperNewWithoutBrowser in a
// child process without a browser: it must skip, and fail under CI.
func TestMissingBrowserSkipsOrFailsInCI(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperNewWithoutBrowser$", "-test.v")
			cmd.Env = append(os.Environ(),
				"BROWSERTEST_HELPER=1", EnvCI+"="+ci,
				EnvChromium+"="+filepath.Join(t.TempDir(), "no-chromium"))
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatal(err)
			}
			want := "--- SKIP"
			if ci != "" {
				want = "--- FAIL"
			}
			if !bytes.Contains(out, []byte(want)) || !bytes.Contains(out, []byte("no-chromium")) || (ci != "") != (err != nil) {
				t.Errorf("without a browser and CI=%q: %v, want %s naming the browser:\n%s", ci, err, want, out)
			}
		})
	}
}

func TestHelperNewWithoutBrowser(t *testing.T) {
	if os.Getenv("BROWSERTEST_HELPER") == "" {
		t.Skip("run by TestMissingBrowserSkipsOrFailsInCI")
	}
	New(t, Options{})
	t.Error("New returned without a browser")
}
