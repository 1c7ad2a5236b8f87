package webui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/review"
	"github.com/memvault/memvault/vault/staleness"
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"date": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04")
	},
	"day":   func(t time.Time) string { return t.UTC().Format(time.DateOnly) },
	"short": history.ShortHash,
	"mlink": func(id string) string { return "/m/" + url.PathEscape(id) },
	"join":  func(l []string) string { return strings.Join(l, ", ") },
	// dict passes a page and a value to a nested template.
	"dict":    func(a ...any) []any { return a },
	"details": clitext.ChangeDetails,
	"diffclass": func(line string) string {
		switch {
		case strings.HasPrefix(line, "+"):
			return "add"
		case strings.HasPrefix(line, "-"):
			return "del"
		}
		return "ctx"
	},
}

// section is one group of the review (or one headline on the overview).
type section struct {
	Key     string // the UI string key and the anchor
	Entries []review.Entry
}

func sectionsOf(r review.Report) []section {
	return []section{{"stale", r.Stale}, {"expiring", r.Expiring}, {"rivals", r.Rivals}, {"conflicted", r.Conflicted},
		{"duplicates", r.Duplicates}, {"dangling", r.Dangling}, {"unused", r.Unused}}
}

// count is one label and its number.
type count struct {
	Label string
	N     int
}

type overviewData struct {
	Stats     vault.Stats
	Layers    []count
	Statuses  []count
	Recent    []commitRow
	InGit     bool
	Headlines []section
	Memories  []vault.SetResult
}

// recentDays is the overview's window of changes.
const recentDays = 7

// maxRecent bounds the overview's list of changes.
const maxRecent = 30

func (s *Server) overview(r *http.Request, l string, v *vault.Vault) (render, error) {
	ctx := r.Context()
	st := v.Stats()
	d := overviewData{Stats: st}
	for _, ly := range vault.AllLayers() {
		d.Layers = append(d.Layers, count{ly.String(), st.ByLayer[ly.String()]})
	}
	for k, n := range st.ByStatus {
		d.Statuses = append(d.Statuses, count{k, n})
	}
	sort.Slice(d.Statuses, func(i, j int) bool { return d.Statuses[i].Label < d.Statuses[j].Label })
	repo, err := s.cfg.Source.Repo(ctx)
	if err != nil {
		return render{}, err
	}
	if repo != nil {
		d.InGit = true
		since := s.cfg.Now().Add(-recentDays * 24 * time.Hour)
		pg, err := s.commits(ctx, repo, v, timelineQuery{}, maxRecent, func(c commitRow) bool { return c.When.Before(since) })
		if err != nil {
			return render{}, err
		}
		d.Recent = pg.Rows
	}
	rep, err := s.cachedReview(ctx, v, review.DefaultDays)
	if err != nil {
		return render{}, err
	}
	d.Headlines = sectionsOf(rep)
	set := s.set(v)
	d.Memories, err = set.Recall(ctx, vault.Query{Limit: 20})
	if err != nil {
		return render{}, err
	}
	return render{"overview", text(l, "overview"), "overview", d}, nil
}

// set is the set of the vault alone, at the server's clock.
func (s *Server) set(v *vault.Vault) *vault.Set {
	set := vault.NewSet(vault.Member{Name: vault.ProjectVault, Vault: v})
	set.Now = s.cfg.Now
	return set
}

// hit is one search result as the page shows it.
type hit struct {
	vault.SetResult
	Snippet   template.HTML // the snippet, matched terms marked
	Terms     []string
	Staleness *staleness.Staleness
	Conflicts []vault.Ref
}

type searchData struct {
	Query string
	Hits  []hit
}

// maxSearch is how many results the search page shows.
const maxSearch = 20

func (s *Server) search(r *http.Request, l string, v *vault.Vault) (render, error) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	d := searchData{Query: q}
	if q == "" {
		return render{"search", text(l, "search"), "search", d}, nil
	}
	if err := vault.CheckQuery(q); err != nil {
		return render{}, httpError{http.StatusBadRequest, err.Error()}
	}
	ctx := r.Context()
	rs, err := s.set(v).Recall(ctx, vault.Query{Text: q, Limit: maxSearch, Explain: true})
	if err != nil {
		return render{}, err
	}
	ms := make([]*vault.Memory, len(rs))
	for i, res := range rs {
		ms[i] = res.Memory
	}
	states, err := s.cfg.Source.Staleness(ctx, ms)
	if err != nil {
		s.cfg.Logger.Warn("staleness", "err", err) // advice: the results stand without it
	}
	for _, res := range rs {
		h := hit{SetResult: res}
		if res.Explain != nil {
			for _, t := range res.Explain.Terms {
				h.Terms = append(h.Terms, t.Term)
			}
		}
		h.Snippet = mark(res.Snippet, h.Terms)
		if st, ok := states[res.Memory.ID]; ok && st.State != staleness.Fresh {
			h.Staleness = &st
		}
		for _, id := range res.PossibleConflict {
			ref := vault.Ref{ID: id}
			if m, err := v.Get(id); err == nil {
				ref.Title = m.Title
			}
			h.Conflicts = append(h.Conflicts, ref)
		}
		d.Hits = append(d.Hits, h)
	}
	return render{"search", q + " · " + text(l, "search"), "search", d}, nil
}

// mark escapes s and wraps each occurrence of terms (case-insensitive,
// longest first) in <mark>.
func mark(s string, terms []string) template.HTML {
	terms = append([]string(nil), terms...)
	sort.Slice(terms, func(i, j int) bool { return len(terms[i]) > len(terms[j]) })
	low := strings.ToLower(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		hitLen := 0
		for _, t := range terms {
			if t != "" && strings.HasPrefix(low[i:], strings.ToLower(t)) && len(t) <= len(s)-i {
				hitLen = len(t)
				break
			}
		}
		if hitLen > 0 {
			b.WriteString("<mark>")
			b.WriteString(template.HTMLEscapeString(s[i : i+hitLen]))
			b.WriteString("</mark>")
			i += hitLen
			continue
		}
		j := i + 1
		for j < len(s) && !utf8Start(s[j]) {
			j++
		}
		b.WriteString(template.HTMLEscapeString(s[i:j]))
		i = j
	}
	return template.HTML(b.String())
}

func utf8Start(c byte) bool { return c&0xc0 != 0x80 }

// field is one front-matter value shown on a memory page.
type field struct{ Name, Value string }

type memoryData struct {
	ID           string
	Memory       *vault.Memory // nil when deleted
	Body         template.HTML
	Fields       []field
	State        string
	Staleness    *staleness.Staleness
	Checked      bool // staleness was asked (refs and git)
	Replaced     []history.Replacement
	SupersededBy []vault.Ref
	Rivals       []rival
	History      []history.Revision
	InGit        bool
	Related      []vault.Ref
}

// rival is a rival memory shown beside this one.
type rival struct {
	Ref  vault.Ref
	Body template.HTML
}

func (s *Server) memory(r *http.Request, l string, v *vault.Vault) (render, error) {
	ctx := r.Context()
	id := r.PathValue("id")
	repo, err := s.cfg.Source.Repo(ctx)
	if err != nil {
		return render{}, err
	}
	var past *history.Reader
	if repo != nil {
		past = history.New(repo, v.Dir())
		past.Now = s.cfg.Now
	}
	d := memoryData{ID: id, InGit: past != nil}
	mem, err := v.Get(id)
	if errors.Is(err, vault.ErrNotFound) || errors.Is(err, vault.ErrInvalid) {
		if past == nil {
			return render{}, httpError{http.StatusNotFound, text(l, "no_memory")}
		}
		story, err := past.History(ctx, id, nil)
		if errors.Is(err, vault.ErrNotFound) || errors.Is(err, vault.ErrInvalid) {
			return render{}, httpError{http.StatusNotFound, text(l, "no_memory")}
		} else if err != nil {
			return render{}, err
		}
		d.History = story.Revisions
		return render{"memory", story.Title, "", d}, nil
	} else if err != nil {
		return render{}, err
	}
	d.Memory = mem
	if d.Body, err = bodyHTML(mem.Body); err != nil {
		return render{}, err
	}
	d.Fields = fieldsOf(mem)
	d.Related = v.Related(mem)
	set := s.set(v)
	d.SupersededBy = refs(v, set.SupersededBy(id))
	rep, err := s.story(ctx, v, past, repo, mem)
	if err != nil {
		return render{}, err
	}
	d.Replaced, d.History = rep.Replaced, rep.History
	for _, ref := range rep.Rivals {
		rv := rival{Ref: ref}
		if m, err := v.Get(ref.ID); err == nil {
			if rv.Body, err = bodyHTML(m.Body); err != nil {
				return render{}, err
			}
		}
		d.Rivals = append(d.Rivals, rv)
	}
	if len(mem.Refs) > 0 {
		states, err := s.cfg.Source.Staleness(ctx, []*vault.Memory{mem})
		if err != nil {
			s.cfg.Logger.Warn("staleness", "id", id, "err", err)
		} else if st, ok := states[id]; ok {
			d.Checked = true
			if st.State != staleness.Fresh {
				d.Staleness = &st
			}
		}
	}
	return render{"memory", mem.Title, "", d}, nil
}

func bodyHTML(body string) (template.HTML, error) {
	out, err := parser.HTML([]byte(body))
	if err != nil {
		return "", err
	}
	return template.HTML(out), nil // parser.HTML drops raw HTML and dangerous links
}

func refs(v *vault.Vault, ids []string) []vault.Ref {
	var out []vault.Ref
	for _, id := range ids {
		ref := vault.Ref{ID: id}
		if m, err := v.Get(id); err == nil {
			ref.Title = m.Title
		}
		out = append(out, ref)
	}
	return out
}

// fieldsOf lists a memory's front matter for people, set fields only.
func fieldsOf(m *vault.Memory) []field {
	fs := []field{{"id", m.ID}, {"layer", m.Layer.String()}, {"status", string(m.Status)}, {"importance", strconv.Itoa(m.Importance)},
		{"version", strconv.Itoa(m.Version)}, {"path", m.Path}}
	add := func(name, val string) {
		if val != "" {
			fs = append(fs, field{name, val})
		}
	}
	add("tags", strings.Join(m.Tags, ", "))
	add("aliases", strings.Join(m.Aliases, ", "))
	add("refs", strings.Join(m.Refs, ", "))
	add("supersedes", strings.Join(m.Supersedes, ", "))
	add("links", strings.Join(m.Links, ", "))
	for _, t := range []struct {
		name string
		at   time.Time
	}{{"created_at", m.CreatedAt}, {"updated_at", m.UpdatedAt}, {"effective_at", m.EffectiveAt}, {"expires_at", m.ExpiresAt}, {"verified_at", m.VerifiedAt}} {
		if !t.at.IsZero() {
			add(t.name, t.at.UTC().Format(time.RFC3339))
		}
	}
	add("source", strings.Trim(m.Source.Client+" "+m.Source.Kind, " "))
	add("conflicted", strings.Join(m.Conflicted, ", "))
	return fs
}

type reviewData struct {
	Report   review.Report
	Sections []section
}

func (s *Server) reviewPage(r *http.Request, l string, v *vault.Vault) (render, error) {
	rep, err := s.cachedReview(r.Context(), v, review.DefaultDays)
	if err != nil {
		return render{}, err
	}
	return render{"review", text(l, "review"), "review", reviewData{rep, sectionsOf(rep)}}, nil
}

type diffData struct {
	Range      string
	InGit      bool
	Base, Head string
	Changes    []history.MemoryChange
	Markdown   string // memvault diff --markdown's text, shown as source
}

func (s *Server) diff(r *http.Request, l string, v *vault.Vault) (render, error) {
	ctx := r.Context()
	d := diffData{Range: strings.TrimSpace(r.URL.Query().Get("range"))}
	repo, err := s.cfg.Source.Repo(ctx)
	if err != nil {
		return render{}, err
	}
	d.InGit = repo != nil
	if d.Range == "" || repo == nil {
		return render{"diff", text(l, "diff"), "diff", d}, nil
	}
	base, head, err := splitRange(d.Range)
	if err != nil {
		return render{}, httpError{http.StatusBadRequest, err.Error()}
	}
	past := history.New(repo, v.Dir())
	past.Now = s.cfg.Now
	rep, err := past.Diff(ctx, base, head)
	var re *history.RevisionError
	if errors.As(err, &re) {
		return render{}, httpError{http.StatusNotFound, re.Error()}
	} else if err != nil {
		return render{}, err
	}
	d.Base, d.Head, d.Changes = rep.From, rep.Head, rep.Changes
	var md bytes.Buffer
	clitext.DiffMarkdown(&md, rep.From, rep.Head, rep.Changes)
	d.Markdown = md.String()
	return render{"diff", d.Range + " · " + text(l, "diff"), "diff", d}, nil
}

// splitRange reads BASE...HEAD, BASE..HEAD or BASE (against HEAD), as
// memvault diff does.
func splitRange(s string) (base, head string, err error) {
	base, head, ok := strings.Cut(s, "...")
	if !ok {
		base, head, _ = strings.Cut(s, "..")
	}
	if base == "" || strings.HasPrefix(head, ".") {
		return "", "", errors.New("range: want BASE...HEAD, BASE..HEAD or BASE")
	}
	if head == "" {
		head = "HEAD"
	}
	return base, head, nil
}

// maxStories bounds the memory pages' story cache.
const maxStories = 256

// story is history.WhyMemory, cached until the vault changes or HEAD
// moves: a memory's story walks the whole log, which takes a noticeable
// time on a long history (docs/performance.md, "Figures behind the code's
// comments"), and a history at one HEAD never changes.
func (s *Server) story(ctx context.Context, v *vault.Vault, past *history.Reader, repo history.Repo, mem *vault.Memory) (*history.Report, error) {
	head := ""
	if repo != nil {
		if c, err := repo.Resolve(ctx, "HEAD"); err == nil {
			head = c.Hash
		}
	}
	s.mu.Lock()
	key := fmt.Sprintf("%d %s %s %d", s.gen, head, mem.ID, mem.Version)
	rep, ok := s.stories[key]
	s.mu.Unlock()
	if ok {
		return rep, nil
	}
	rep, err := history.WhyMemory(ctx, v, past, mem, "")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.stories) >= maxStories {
		clear(s.stories)
	}
	s.stories[key] = rep
	s.mu.Unlock()
	return rep, nil
}
