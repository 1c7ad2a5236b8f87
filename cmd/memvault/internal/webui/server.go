package webui

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/termsafe"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/review"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// TokenCookie is the cookie a browser keeps the server's token in: a
// page opened as /?token=T stores it (HttpOnly, SameSite=Strict) and is
// redirected to the same URL without it, so the token leaves the address
// bar and the history.
const TokenCookie = "memvault_token"

// Config configures a Server.
type Config struct {
	// Source is the vault shown.
	Source Source
	// Now is the clock pages judge at; nil means time.Now.
	Now func() time.Time
	// Write allows the pages' writes (confirm, forget, resolve a rival);
	// off, the pages are read-only and refuse every POST.
	Write bool
	// Logger logs failed pages; nil discards.
	Logger *slog.Logger
	// Dir is the vault folder named in the footer.
	Dir string
}

// Server renders the pages. Its Handler serves them at /, /search,
// /m/{id}, /timeline, /review, /diff, the live updates at /events and the
// static files at /static/.
type Server struct {
	cfg   Config
	pages map[string]*template.Template
	csrf  string // the form token a POST must carry

	mu      sync.Mutex
	gen     uint64 // bumped on every change of the vault
	review  review.Report
	revKey  string // gen and HEAD the cached review was built at
	watched *vault.Vault
	stories map[string]*history.Report // the memory pages' stories, by gen, HEAD, id and version
	subs    map[chan struct{}]bool
}

// pageNames are the templates, each parsed with layout.html.
var pageNames = []string{"overview", "search", "memory", "timeline", "review", "diff", "error"}

// New parses the templates and returns a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("web view: form token: %w", err)
	}
	s := &Server{cfg: cfg, csrf: hex.EncodeToString(b[:]), pages: map[string]*template.Template{}, subs: map[chan struct{}]bool{}, stories: map[string]*history.Report{}}
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web view: template %s: %w", name, err)
		}
		s.pages[name] = t
	}
	return s, nil
}

// Handler returns the pages' handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page(s.overview))
	mux.HandleFunc("GET /search", s.page(s.search))
	mux.HandleFunc("GET /m/{id}", s.page(s.memory))
	mux.HandleFunc("GET /timeline", s.page(s.timeline))
	mux.HandleFunc("GET /review", s.page(s.reviewPage))
	mux.HandleFunc("GET /diff", s.page(s.diff))
	mux.HandleFunc("GET /events", s.events)
	mux.HandleFunc("POST /m/{id}/{action}", s.write)
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	return securityHeaders(tokenHandoff(mux))
}

// securityHeaders forbid every script, style and frame but the server's
// own, and keep the pages out of other sites' frames.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// tokenHandoff moves a token given in the address (?token=) into the
// cookie, then redirects to the address without it. The server's guard
// has checked the token already.
func tokenHandoff(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		tok := q.Get("token")
		if tok == "" || r.Method != http.MethodGet {
			h.ServeHTTP(w, r)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q.Del("token")
		u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
		http.Redirect(w, r, u.String(), http.StatusSeeOther)
	})
}

// view is what every page template gets.
type view struct {
	Lang, Title, Nav string
	Write            bool
	CSRF             string
	Dir              string
	Data             any
}

// Place names the vault in the footer by its last two folders
// ("shopflow/.memory"): the same wherever the repository is checked out,
// so screenshots do not show a temporary path; Dir, the full path, is
// its title.
func (v view) Place() string {
	parent, base := filepath.Base(filepath.Dir(v.Dir)), filepath.Base(v.Dir)
	if parent == "/" || parent == "." || parent == string(filepath.Separator) {
		return base
	}
	return parent + "/" + base
}

// T is the UI string key in the page's language.
func (v view) T(key string) string { return text(v.Lang, key) }

// Tf is T formatted with args.
func (v view) Tf(key string, args ...any) string { return fmt.Sprintf(text(v.Lang, key), args...) }

// httpError is an error a page answers with its status.
type httpError struct {
	status int
	msg    string
}

func (e httpError) Error() string { return e.msg }

// ErrorKind names the failure by the status the page answers with.
func (e httpError) ErrorKind() string {
	switch {
	case e.status == http.StatusNotFound:
		return string(fault.NotFound)
	case e.status == http.StatusForbidden:
		return string(fault.Refused)
	case e.status == http.StatusConflict:
		return string(fault.Conflict)
	case e.status >= 400 && e.status < 500:
		return string(fault.Invalid)
	}
	return string(fault.Internal)
}

// render is what a page handler returns: the template, its title and
// navigation key, and its data.
type render struct {
	page, title, nav string
	data             any
}

// page adapts a page function to an http.HandlerFunc: it runs it with
// the vault, renders its template into a buffer, and writes the buffer
// through termsafe (no escape sequence or control character from a
// memory file reaches the browser).
func (s *Server) page(fn func(r *http.Request, l string, v *vault.Vault) (render, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		l := lang(r.Header.Get("Accept-Language"))
		w.Header().Set("Vary", "Accept-Language")
		v, err := s.cfg.Source.Ready(r.Context())
		var out render
		if err == nil {
			s.watch(v)
			out, err = fn(r, l, v)
		}
		status := http.StatusOK
		if err != nil {
			var he httpError
			if !errors.As(err, &he) {
				s.cfg.Logger.Error("web page", "path", r.URL.Path, "err", err)
				he = httpError{http.StatusInternalServerError, err.Error()}
			}
			status = he.status
			out = render{page: "error", title: text(l, "error"), data: he.msg}
		}
		var buf bytes.Buffer
		pv := view{Lang: l, Title: out.title, Nav: out.nav, Write: s.cfg.Write, CSRF: s.csrf, Dir: s.cfg.Dir, Data: out.data}
		if err := s.pages[out.page].ExecuteTemplate(&buf, "layout", pv); err != nil {
			s.cfg.Logger.Error("web page template", "page", out.page, "err", err)
			http.Error(w, "rendering the page failed", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		termsafe.New(w).Write(buf.Bytes())
	}
}

// watch subscribes to v's changes once: they reach the open event
// streams and drop the cached review.
func (s *Server) watch(v *vault.Vault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watched == v {
		return
	}
	s.watched = v
	v.Subscribe(func(vault.Change) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.gen++
		for ch := range s.subs {
			select {
			case ch <- struct{}{}:
			default: // one pending notice is enough
			}
		}
	})
}

// events streams a "change" event whenever the vault changes (a write,
// a file edited, HEAD moved), for live.js to offer a reload.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	if v, err := s.cfg.Source.Ready(r.Context()); err == nil {
		s.watch(v)
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.subs[ch] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, ch)
		s.mu.Unlock()
	}()
	fmt.Fprint(w, ": memvault\n\n")
	if err := rc.Flush(); err != nil {
		return
	}
	heartbeat := time.NewTicker(30 * time.Second)
	defer heartbeat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-ch:
			fmt.Fprint(w, "event: change\ndata: {}\n\n")
		case <-heartbeat.C:
			fmt.Fprint(w, ": ping\n\n")
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

// cachedReview is the review report, rebuilt when the vault changed or
// HEAD moved since the last one (the overview shows its headlines on
// every load).
func (s *Server) cachedReview(ctx context.Context, v *vault.Vault, days int) (review.Report, error) {
	head := ""
	if repo, err := s.cfg.Source.Repo(ctx); err == nil && repo != nil {
		if c, err := repo.Resolve(ctx, "HEAD"); err == nil {
			head = c.Hash
		}
	}
	now := s.cfg.Now()
	s.mu.Lock()
	key := fmt.Sprintf("%d %s %d %s", s.gen, head, days, now.Format(time.DateOnly))
	if s.revKey == key {
		defer s.mu.Unlock()
		return s.review, nil
	}
	s.mu.Unlock()
	rep, err := s.cfg.Source.Review(ctx, v, now, days)
	if err != nil {
		return review.Report{}, err
	}
	s.mu.Lock()
	s.review, s.revKey = rep, key
	s.mu.Unlock()
	return rep, nil
}

// write runs a POST: confirm, forget or resolve a rival, one commit
// each, through the same vault functions as the CLI. It needs --write,
// the form token, and an Origin (when the browser sends one) of this
// host.
func (s *Server) write(w http.ResponseWriter, r *http.Request) {
	if !s.cfg.Write {
		http.Error(w, "read-only: start memvault ui with --write to change memories", http.StatusForbidden)
		return
	}
	if !sameOrigin(r) {
		http.Error(w, "cross-site request refused", http.StatusForbidden)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(s.csrf)) != 1 {
		http.Error(w, "missing or wrong form token: reload the page", http.StatusForbidden)
		return
	}
	ctx := r.Context()
	v, err := s.cfg.Source.Ready(ctx)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	id, reason := r.PathValue("id"), strings.TrimSpace(r.PostForm.Get("reason"))
	by := vault.Author{Reason: reason, Client: "web"}
	var res vault.WriteResult
	switch r.PathValue("action") {
	case "confirm":
		res, err = v.Confirm(ctx, id, by)
	case "forget":
		res, err = v.Forget(ctx, id, false, by)
	case "resolve":
		res, err = s.resolve(ctx, v, id, r.PostForm.Get("rival"), by)
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		status := http.StatusConflict
		if errors.Is(err, vault.ErrNotFound) {
			status = http.StatusNotFound
		} else if errors.Is(err, vault.ErrInvalid) {
			status = http.StatusBadRequest
		}
		http.Error(w, err.Error(), status)
		return
	}
	s.cfg.Source.NoteOwnCommit(res.Commit)
	http.Redirect(w, r, "/m/"+url.PathEscape(id), http.StatusSeeOther)
}

// resolve keeps memory id and makes it supersede its rival, as `memvault
// update ID --supersedes` does.
func (s *Server) resolve(ctx context.Context, v *vault.Vault, id, rival string, by vault.Author) (vault.WriteResult, error) {
	keep, err := v.Get(id)
	if err != nil {
		return vault.WriteResult{}, err
	}
	if rival == "" || rival == id {
		return vault.WriteResult{}, fmt.Errorf("%w: rival: name the other memory", vault.ErrInvalid)
	}
	if strings.TrimSpace(by.Reason) == "" {
		by.Reason = "resolved a rival in the web view: this rule replaces " + rival
	}
	sup := append(append([]string(nil), keep.Supersedes...), rival)
	return v.Update(ctx, id, keep.Version, vault.Patch{Supersedes: &sup}, by)
}

// sameOrigin refuses a request a browser marks as coming from another
// site: an Origin that is not this host, or Sec-Fetch-Site cross-site.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}
