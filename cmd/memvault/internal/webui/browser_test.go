package webui

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/browsertest"
)

var docShots = flag.Bool("docshots", false, "write the overview's and a memory page's screenshots into docs/ for the README")

// shotName turns a page's address into a screenshot's file name.
func shotName(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "page"
	}
	name := strings.Trim(u.Path, "/")
	if name == "" {
		name = "overview"
	}
	if u.RawQuery != "" {
		name += "_" + u.Query().Encode()
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
	if len(name) > 120 {
		name = name[:120]
	}
	return name + ".png"
}

// TestPagesInABrowser drives a real headless Chromium through every page
// of the replayed sample vault (issue 26's acceptance): each answers 200,
// logs no console error, fails no request, has every internal link
// resolving, no axe-core violation of impact serious or critical, and no
// horizontal overflow at 360 px; a screenshot of each is kept.
func TestPagesInABrowser(t *testing.T) {
	b := browsertest.New(t, browsertest.Options{AcceptLanguage: "zh-CN,zh;q=0.9,en;q=0.8"})
	ts := sampleServer(t)
	dir := browsertest.ArtifactDir(t)
	ctx := t.Context()

	var mu sync.Mutex
	kinds := map[string]int{}
	// The memory page with the longest history, for the README.
	var richest struct {
		path string
		n    int
	}
	check := func(ctx context.Context, p *browsertest.Page) error {
		var errs []error
		vs, err := p.Axe(ctx)
		if err != nil {
			return err
		}
		for _, v := range vs {
			if v.Serious() {
				errs = append(errs, fmt.Errorf("axe: %v", v))
			}
		}
		scroll, inner, err := p.Overflow(ctx, 360)
		if err != nil {
			return err
		}
		if scroll > inner {
			errs = append(errs, fmt.Errorf("at 360 px the page is %d px wide", scroll))
		}
		shot, err := p.Screenshot(ctx, 1280)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, shotName(p.URL)), shot, 0o644); err != nil {
			return err
		}
		u, _ := url.Parse(p.URL)
		kind := strings.SplitN(u.Path, "/", 3)[1]
		history := 0
		if kind == "m" {
			if history, err = browsertest.Eval[int](ctx, p, `document.querySelectorAll('ol.history > li').length`); err != nil {
				return err
			}
		}
		mu.Lock()
		defer mu.Unlock()
		kinds[kind]++
		if history > richest.n {
			richest.path, richest.n = u.Path, history
		}
		return errors.Join(errs...)
	}
	r, err := b.Crawl(ctx, browsertest.CrawlOptions{Each: check},
		ts.URL+"/",
		// No link leads to a search or a diff with its input filled in.
		ts.URL+"/search?q="+url.QueryEscape("结算模块怎么设计的"),
		ts.URL+"/search?q=deploy",
		ts.URL+"/diff?range="+url.QueryEscape("HEAD~5...HEAD"),
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Failures() {
		t.Error(f)
	}
	t.Logf("%d pages loaded in the browser (%v), %d links checked over HTTP only", len(r.Pages), kinds, len(r.Unvisited))
	for _, want := range []string{"", "search", "m", "timeline", "review", "diff"} {
		if kinds[want] == 0 {
			t.Errorf("no /%s page checked (checked %v)", want, kinds)
		}
	}

	visit := func(t *testing.T, b *browsertest.Browser, path string) *browsertest.Page {
		t.Helper()
		p, err := b.Visit(ctx, ts.URL+path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		if p.Status != 200 {
			t.Fatalf("%s: HTTP %d", path, p.Status)
		}
		return p
	}
	eval := func(t *testing.T, p *browsertest.Page, js string) string {
		t.Helper()
		v, err := browsertest.Eval[string](ctx, p, js)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	var memoryPath string
	t.Run("search finds the settlement design first", func(t *testing.T) {
		p := visit(t, b, "/search?q="+url.QueryEscape("结算模块怎么设计的"))
		first := eval(t, p, `(document.querySelector('li.hit h3 a') || {textContent: ''}).textContent`)
		if !strings.Contains(first, "结算模块设计") {
			t.Errorf("first hit %q, want 结算模块设计", first)
		}
		memoryPath = eval(t, p, `(document.querySelector('li.hit h3 a') || {pathname: ''}).pathname`)
		fonts, err := p.Fonts(ctx, "li.hit h3 a")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(fonts, ","), "CJK") {
			t.Errorf("the Chinese title renders with %q, no CJK font", fonts)
		}
	})

	t.Run("a memory page shows its history with reasons", func(t *testing.T) {
		if memoryPath == "" {
			t.Skip("no memory found by the search")
		}
		p := visit(t, b, memoryPath)
		reasons := eval(t, p, `[...document.querySelectorAll('ol.history .reason')].map(e => e.textContent.trim()).filter(Boolean).join('\n')`)
		if reasons == "" {
			t.Errorf("%s shows no history with reasons", memoryPath)
		}
	})

	t.Run("the timeline paginates", func(t *testing.T) {
		p := visit(t, b, "/timeline")
		next := eval(t, p, `(document.querySelector('a[rel=next]') || {href: ''}).href`)
		if next == "" {
			t.Fatal("the timeline's first page links to no next page")
		}
		first := eval(t, p, `[...document.querySelectorAll('li.commit')].map(e => e.textContent).join('\n')`)
		p2, err := b.Visit(ctx, next)
		if err != nil {
			t.Fatal(err)
		}
		defer p2.Close()
		second := eval(t, p2, `[...document.querySelectorAll('li.commit')].map(e => e.textContent).join('\n')`)
		if p2.Status != 200 || second == "" || second == first {
			t.Errorf("second page %s: HTTP %d, %d bytes of commits, same as the first: %v", next, p2.Status, len(second), second == first)
		}
	})

	t.Run("screenshots for the README", func(t *testing.T) {
		if !*docShots {
			t.Skip("-docshots writes them into docs/")
		}
		en := b.WithLanguage("en")
		if richest.path == "" {
			t.Fatal("the crawl found no memory page")
		}
		for path, name := range map[string]string{"/": "webui-overview.png", richest.path: "webui-memory.png"} {
			p := visit(t, en, path)
			shot, err := p.Screenshot(ctx, 1280)
			if err != nil {
				t.Fatal(err)
			}
			// Recompressed: the browser encodes for speed.
			img, err := png.Decode(bytes.NewReader(shot))
			if err != nil {
				t.Fatal(err)
			}
			var small bytes.Buffer
			if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&small, img); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("..", "..", "..", "..", "docs", name), small.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
}
