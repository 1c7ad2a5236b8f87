package browsertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// CrawlOptions bound and extend a crawl; the zero value visits up to
// DefaultMaxPages pages and checks nothing more than Crawl does.
type CrawlOptions struct {
	// MaxPages bounds the pages loaded in the browser; zero means
	// DefaultMaxPages. Internal links beyond it are still checked, with an
	// HTTP GET, so every link is checked.
	MaxPages int
	// Each, when set, is called on every page answered with 200, while it
	// is open, for further checks (axe, screenshots); its error is
	// reported as one of the page's failures. Calls run concurrently, one
	// per tab.
	Each func(ctx context.Context, p *Page) error
	// Workers is how many tabs load pages at once; zero means
	// DefaultWorkers.
	Workers int
}

// The defaults of CrawlOptions.
const (
	DefaultMaxPages = 300
	// DefaultWorkers is two tabs: a page's time is mostly the browser's
	// (axe-core, encoding screenshots), which a second tab overlaps.
	DefaultWorkers = 2
)

// PageReport is what a crawl found on one page it loaded.
type PageReport struct {
	URL    string
	Status int
	Problems
	Links
	// Check is the error of CrawlOptions.Each, if any.
	Check error
}

// BrokenLink is an internal link whose target does not answer 200.
type BrokenLink struct {
	URL    string
	Status int    // zero when the request failed
	Err    string // why the request failed
	// From lists the pages linking to it.
	From []string
}

func (l BrokenLink) String() string {
	what := fmt.Sprintf("HTTP %d", l.Status)
	if l.Status == 0 {
		what = l.Err
	}
	return fmt.Sprintf("broken link %s (%s), from %v", l.URL, what, l.From)
}

// CrawlReport is what a crawl found.
type CrawlReport struct {
	// Pages are the pages loaded in the browser, in the order visited
	// (breadth first from the start).
	Pages []PageReport
	// Unvisited are internal links beyond MaxPages, checked over HTTP only.
	Unvisited []string
	// Broken are the internal links whose target does not answer 200.
	Broken []BrokenLink
}

// Failures lists, one line each, everything wrong the crawl found: pages
// not answering 200, console errors, failed requests, links to missing
// fragments, broken links and failed checks. It is empty for a clean site.
func (r *CrawlReport) Failures() []string {
	var out []string
	for _, p := range r.Pages {
		if p.Status != http.StatusOK {
			out = append(out, fmt.Sprintf("%s: HTTP %d", p.URL, p.Status))
		}
		for _, c := range p.Console {
			out = append(out, p.URL+": "+c)
		}
		for _, f := range p.Failed {
			out = append(out, p.URL+": failed request "+f.String())
		}
		for _, m := range p.MissingTargets {
			out = append(out, p.URL+": link to a missing fragment "+m)
		}
		if p.Check != nil {
			out = append(out, p.URL+": "+p.Check.Error())
		}
	}
	for _, l := range r.Broken {
		out = append(out, l.String())
	}
	return out
}

// Crawl loads the start pages in the browser and, breadth first, every
// internal link found on pages answering 200, up to opts.MaxPages pages,
// and checks every internal link it found resolves to a 200. More than one
// start reaches pages no link leads to (a search with a query). An error
// means the crawl itself could not go on (a page that cannot load at all,
// ctx ending); what is wrong with the site is in the report.
func (b *Browser) Crawl(ctx context.Context, opts CrawlOptions, start ...string) (*CrawlReport, error) {
	if opts.MaxPages <= 0 {
		opts.MaxPages = DefaultMaxPages
	}
	report := &CrawlReport{}
	status := map[string]int{}     // target -> status, once known
	errText := map[string]string{} // target -> why it failed
	from := map[string][]string{}  // target -> pages linking to it
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	var queue []string
	seen := map[string]bool{}
	for _, s := range start {
		if !seen[s] {
			seen[s] = true
			queue = append(queue, s)
		}
	}
	// Level by level, each level's pages loaded in parallel and their
	// links taken in the level's order: the pages loaded, and their order,
	// do not depend on which tab finishes first.
	for len(queue) > 0 && len(report.Pages) < opts.MaxPages {
		level := queue[:min(len(queue), opts.MaxPages-len(report.Pages))]
		queue = queue[len(level):]
		prs := make([]PageReport, len(level))
		errs := make([]error, len(level))
		var wg sync.WaitGroup
		tabs := make(chan struct{}, opts.Workers)
		for i, u := range level {
			wg.Go(func() {
				tabs <- struct{}{}
				defer func() { <-tabs }()
				prs[i], errs[i] = b.crawlPage(ctx, u, opts)
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return report, err
		}
		for _, pr := range prs {
			report.Pages = append(report.Pages, pr)
			status[pr.URL] = pr.Status
			for _, l := range pr.Internal {
				from[l] = append(from[l], pr.URL)
				if !seen[l] {
					seen[l] = true
					queue = append(queue, l)
				}
			}
		}
	}
	client := &http.Client{}
	for _, u := range queue {
		report.Unvisited = append(report.Unvisited, u)
		st, err := b.get(ctx, client, u)
		status[u] = st
		if err != nil {
			errText[u] = err.Error()
		}
	}
	for u, fs := range from {
		if st := status[u]; st != http.StatusOK {
			report.Broken = append(report.Broken, BrokenLink{URL: u, Status: st, Err: errText[u], From: fs})
		}
	}
	slices.SortFunc(report.Broken, func(a, b BrokenLink) int { return strings.Compare(a.URL, b.URL) })
	return report, nil
}

func (b *Browser) crawlPage(ctx context.Context, u string, opts CrawlOptions) (PageReport, error) {
	p, err := b.Visit(ctx, u)
	if err != nil {
		return PageReport{}, err
	}
	defer p.Close()
	pr := PageReport{URL: u, Status: p.Status}
	if p.Status == http.StatusOK {
		if pr.Links, err = p.Links(ctx); err != nil {
			return pr, err
		}
		if opts.Each != nil {
			pr.Check = opts.Each(ctx, p)
		}
	}
	// Last, so that problems Each caused are counted too.
	if pr.Problems, err = p.Problems(ctx); err != nil {
		return pr, err
	}
	return pr, nil
}

// get fetches u over HTTP, as the browser would, and returns its status.
func (b *Browser) get(ctx context.Context, client *http.Client, u string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, b.opts.PageTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept-Language", b.opts.AcceptLanguage)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return resp.StatusCode, fmt.Errorf("read %s: %w", u, err)
	}
	return resp.StatusCode, nil
}
