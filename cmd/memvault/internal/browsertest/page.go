package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Page is one page loaded in its own tab. Its methods may be called one at a
// time; Close it when done.
type Page struct {
	// URL is the address visited.
	URL string
	// Status is the HTTP status of the page's document.
	Status int

	b       *Browser
	tab     context.Context
	close   context.CancelFunc
	rec     *recorder
	axeDone bool
}

// Request is a request of the page that failed: an HTTP status of 400 or
// more, or a network error.
type Request struct {
	URL    string
	Status int    // zero for a network error
	Err    string // the network error, e.g. net::ERR_CONNECTION_REFUSED
}

func (r Request) String() string {
	if r.Status != 0 {
		return fmt.Sprintf("%s: HTTP %d", r.URL, r.Status)
	}
	return r.URL + ": " + r.Err
}

// Visit opens rawURL in a new tab and waits for its load event. A page
// answered with an error status is returned with that Status; only a
// page that cannot load at all (no server) is an error.
func (b *Browser) Visit(ctx context.Context, rawURL string) (*Page, error) {
	rec := &recorder{urls: map[network.RequestID]string{}}
	// The listener sees the tab's events in order from its first one, and
	// each before the reply to any later command: after a round trip,
	// everything the page did before it is recorded.
	tab, cancel := chromedp.NewContext(b.ctx, chromedp.WithListener(rec.listen))
	p := &Page{URL: rawURL, b: b, tab: tab, close: cancel, rec: rec}
	// The first action on the tab's context ties the tab's life to the
	// context it gets, so it gets the tab's own, closed if ctx ends or
	// the timeout passes first.
	gctx, gcancel := context.WithTimeout(ctx, b.opts.PageTimeout)
	defer gcancel()
	stop := context.AfterFunc(gctx, cancel)
	err := chromedp.Do(tab, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
			Headers: network.Headers{"Accept-Language": b.opts.AcceptLanguage},
		})
		return err
	}))
	if !stop() && err == nil {
		err = context.Cause(gctx)
	}
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("open a tab for %s: %w", rawURL, err)
	}
	rctx, done := p.bind(ctx)
	defer done()
	resp, err := chromedp.Run(rctx, chromedp.NavigateResponse(rawURL))
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("load %s: %w", rawURL, err)
	}
	if resp != nil {
		p.Status = int(resp.Status)
	}
	return p, nil
}

// Close closes the page's tab.
func (p *Page) Close() { p.close() }

// bind returns a context for an action on the tab that ends when ctx ends
// or the page's timeout passes. Actions need the tab's context, which
// must not be ctx's child: its end would close the tab.
func (p *Page) bind(ctx context.Context) (context.Context, context.CancelFunc) {
	rctx, cancel := context.WithTimeout(p.tab, p.b.opts.PageTimeout)
	stop := context.AfterFunc(ctx, cancel)
	return rctx, func() { stop(); cancel() }
}

func (p *Page) run(ctx context.Context, what string, a chromedp.Action[chromedp.Void]) error {
	rctx, done := p.bind(ctx)
	defer done()
	if err := chromedp.Do(rctx, a); err != nil {
		return fmt.Errorf("%s on %s: %w", what, p.URL, err)
	}
	return nil
}

// Eval evaluates a JavaScript expression in the page, awaiting a promise,
// and decodes its JSON value into T.
func Eval[T any](ctx context.Context, p *Page, expr string) (T, error) {
	rctx, done := p.bind(ctx)
	defer done()
	v, err := chromedp.Run(rctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		return v, fmt.Errorf("evaluate on %s: %w", p.URL, err)
	}
	return v, nil
}

// Problems are what a page reported going wrong.
type Problems struct {
	// Console holds console.error and console.assert calls, uncaught
	// exceptions and the browser's error log entries (a failed resource,
	// a refused script), as "kind: text (where)".
	Console []string
	// Failed holds the page's failed requests.
	Failed []Request
}

// Problems returns what the page reported going wrong so far.
func (p *Page) Problems(ctx context.Context) (Problems, error) {
	// The round trip flushes the events sent before it (see Visit).
	if _, err := Eval[int](ctx, p, "0"); err != nil {
		return Problems{}, err
	}
	p.rec.mu.Lock()
	defer p.rec.mu.Unlock()
	return Problems{Console: slices.Clone(p.rec.console), Failed: slices.Clone(p.rec.failed)}, nil
}

// recorder keeps a tab's console errors and failed requests. Its listen
// runs on the tab's event loop: it must return fast and send no command.
type recorder struct {
	mu      sync.Mutex
	urls    map[network.RequestID]string
	console []string
	failed  []Request
}

func (r *recorder) listen(ev any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			r.console = append(r.console, "console."+string(ev.Type)+": "+argsText(ev.Args)+stackPlace(ev.StackTrace))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil {
			desc, _, _ := strings.Cut(d.Exception.Description, "\n")
			text += " " + desc
		}
		r.console = append(r.console, fmt.Sprintf("exception: %s (%s:%d)", text, d.URL, d.LineNumber+1))
	case *log.EventEntryAdded:
		if e := ev.Entry; e.Level == log.EntryLevelError {
			r.console = append(r.console, fmt.Sprintf("%s error: %s (%s)", e.Source, e.Text, e.URL))
		}
	case *network.EventRequestWillBeSent:
		r.urls[ev.RequestID] = ev.Request.URL
	case *network.EventResponseReceived:
		if ev.Response.Status >= 400 {
			r.failed = append(r.failed, Request{URL: ev.Response.URL, Status: int(ev.Response.Status)})
		}
	case *network.EventLoadingFailed:
		// A cancelled request (the tab closing, a navigation away) is not
		// the page's fault.
		if !ev.Canceled {
			r.failed = append(r.failed, Request{URL: r.urls[ev.RequestID], Err: ev.ErrorText})
		}
	}
}

// argsText renders a console call's arguments: strings as they are, other
// values by their description.
func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		var s string
		switch {
		case a.Type == runtime.RemoteObjectTypeString && json.Unmarshal(a.Value, &s) == nil:
		case a.Description != "":
			s = a.Description
		case a.UnserializableValue != "":
			s = string(a.UnserializableValue)
		default:
			s = string(a.Value)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func stackPlace(st *runtime.StackTrace) string {
	if st == nil || len(st.CallFrames) == 0 {
		return ""
	}
	f := st.CallFrames[0]
	return fmt.Sprintf(" (%s:%d)", f.URL, f.LineNumber+1)
}

// Links are a page's links.
type Links struct {
	// Internal are the page's links to its own origin (scheme, host and
	// port), absolute, without fragment, sorted and unique.
	Internal []string
	// MissingTargets are its links to a fragment of itself (#main) that
	// names no element.
	MissingTargets []string
}

// linksJS lists every a[href] and area[href] as the browser resolves it,
// and whether a link to a fragment of this very page finds its target.
const linksJS = `(() => {
	const here = location.href.split('#')[0];
	return [...document.querySelectorAll('a[href], area[href]')].map(a => {
		const u = new URL(a.href);
		let missing = false;
		if (u.href.split('#')[0] === here && u.hash.length > 1) {
			const id = decodeURIComponent(u.hash.slice(1));
			missing = !document.getElementById(id) && document.getElementsByName(id).length === 0;
		}
		return {href: u.href, missing};
	});
})()`

// Links collects the page's links.
func (p *Page) Links(ctx context.Context) (Links, error) {
	raw, err := Eval[[]struct {
		Href    string `json:"href"`
		Missing bool   `json:"missing"`
	}](ctx, p, linksJS)
	if err != nil {
		return Links{}, err
	}
	base, err := url.Parse(p.URL)
	if err != nil {
		return Links{}, fmt.Errorf("page address %q: %w", p.URL, err)
	}
	var l Links
	for _, a := range raw {
		u, err := url.Parse(a.Href)
		if err != nil || u.Scheme != base.Scheme || u.Host != base.Host {
			continue
		}
		if a.Missing {
			l.MissingTargets = append(l.MissingTargets, a.Href)
		}
		u.Fragment, u.RawFragment = "", ""
		l.Internal = append(l.Internal, u.String())
	}
	slices.Sort(l.Internal)
	l.Internal = slices.Compact(l.Internal)
	return l, nil
}

// Violation is an axe-core rule a page breaks.
type Violation struct {
	ID      string `json:"id"`
	Impact  string `json:"impact"` // minor, moderate, serious or critical
	Help    string `json:"help"`
	HelpURL string `json:"helpUrl"`
	Nodes   []struct {
		Target  string `json:"target"`
		HTML    string `json:"html"`
		Summary string `json:"summary"`
	} `json:"nodes"`
}

func (v Violation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s, %s", v.ID, v.Impact, v.Help, v.HelpURL)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "\n\t%s: %s\n\t\t%s", n.Target, n.HTML, strings.ReplaceAll(n.Summary, "\n", "\n\t\t"))
	}
	return b.String()
}

// Serious reports whether v's impact is serious or critical, the ones the
// web view must have none of.
func (v Violation) Serious() bool {
	return v.Impact == "serious" || v.Impact == "critical"
}

const axeRunJS = `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
	id: v.id, impact: v.impact || '', help: v.help, helpUrl: v.helpUrl,
	nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html, summary: n.failureSummary || ''})),
})))`

// Axe runs axe-core's default rules in the page and returns every
// violation; see Violation.Serious.
func (p *Page) Axe(ctx context.Context) ([]Violation, error) {
	if !p.axeDone {
		// Evaluated through the DevTools protocol, axe-core is not
		// subject to the page's Content-Security-Policy.
		if err := p.run(ctx, "load axe-core", chromedp.Evaluate[chromedp.Void](p.b.axe)); err != nil {
			return nil, err
		}
		p.axeDone = true
	}
	return Eval[[]Violation](ctx, p, axeRunJS)
}

// viewportHeight is the height of the emulated viewport; full-page
// screenshots capture beyond it.
const viewportHeight = 800

// Screenshot resizes the viewport to width CSS pixels and returns a PNG of
// the whole page.
func (p *Page) Screenshot(ctx context.Context, width int) ([]byte, error) {
	rctx, done := p.bind(ctx)
	defer done()
	if err := chromedp.Do(rctx, chromedp.EmulateViewport(int64(width), viewportHeight)); err != nil {
		return nil, fmt.Errorf("resize %s to %d px: %w", p.URL, width, err)
	}
	// Encoding for speed: a tall page's PNG otherwise costs seconds on a
	// loaded machine; recompress a screenshot that is kept in docs/.
	res, err := chromedp.Call(rctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format:                page.CaptureScreenshotFormatPng,
		CaptureBeyondViewport: new(true),
		FromSurface:           new(true),
		OptimizeForSpeed:      new(true),
	})
	if err != nil {
		return nil, fmt.Errorf("screenshot %s: %w", p.URL, err)
	}
	return res.Data, nil
}

// Overflow resizes the viewport to width CSS pixels and returns how wide
// the document is and how wide the viewport is: the document overflows
// horizontally when scrollWidth > innerWidth.
func (p *Page) Overflow(ctx context.Context, width int) (scrollWidth, innerWidth int, err error) {
	if err := p.run(ctx, "resize", chromedp.EmulateViewport(int64(width), viewportHeight)); err != nil {
		return 0, 0, err
	}
	w, err := Eval[[2]int](ctx, p, `[Math.max(document.documentElement.scrollWidth, document.body ? document.body.scrollWidth : 0), window.innerWidth]`)
	return w[0], w[1], err
}

// Fonts returns the names of the platform fonts that render the text of
// the first element matching the CSS selector, to tell Chinese rendered
// with a CJK font from boxes.
func (p *Page) Fonts(ctx context.Context, selector string) ([]string, error) {
	rctx, done := p.bind(ctx)
	defer done()
	ids, err := chromedp.Run(rctx, chromedp.QueryNodeIDs(chromedp.CSS(selector)))
	if err != nil {
		return nil, fmt.Errorf("find %q on %s: %w", selector, p.URL, err)
	}
	res, err := chromedp.Call(rctx, css.GetPlatformFontsForNode, css.GetPlatformFontsForNodeParams{NodeID: ids[0]})
	if err != nil {
		return nil, fmt.Errorf("fonts of %q on %s: %w", selector, p.URL, err)
	}
	var names []string
	for _, f := range res.Fonts {
		names = append(names, f.FamilyName)
	}
	return names, nil
}
