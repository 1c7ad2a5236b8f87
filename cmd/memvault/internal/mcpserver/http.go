package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// HTTPLimits are the HTTP server's protections against slow, large or
// stray requests. Serve uses DefaultHTTPLimits; tests shrink the timeouts.
type HTTPLimits struct {
	// MaxBody bounds a request body: a remember carries at most 64 KiB of
	// content, so 1 MiB leaves room for JSON overhead and nothing more.
	MaxBody int64
	// MaxHeaderBytes bounds the request line and headers.
	MaxHeaderBytes int
	// ReadHeaderTimeout cuts off a client that trickles its headers
	// (slowloris).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included (a slow
	// upload). It does not cut a long-lived SSE stream (GET /mcp): net/http
	// lifts the read deadline once the body is read, before it watches the
	// connection for the client going away; TestHTTPStreamOutlivesTimeouts
	// holds it to that.
	ReadTimeout time.Duration
	// CallTimeout is the write deadline of a POST, one JSON-RPC call and
	// its answer. The server-wide WriteTimeout stays 0 because it would
	// cut every SSE stream after that long; GET streams have no write
	// deadline, and a vanished client is found by the heartbeat failing.
	CallTimeout time.Duration
	// IdleTimeout closes a keep-alive connection with no request.
	IdleTimeout time.Duration
	// Heartbeat is how often an open GET stream gets a ping, which keeps
	// proxies from closing it and notices a client that went away.
	Heartbeat time.Duration
}

// DefaultHTTPLimits are the limits ServeHTTP applies unless told others.
func DefaultHTTPLimits() HTTPLimits {
	return HTTPLimits{
		MaxBody:           1 << 20,
		MaxHeaderBytes:    64 << 10,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		CallTimeout:       2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		Heartbeat:         30 * time.Second,
	}
}

// newHTTPServer wraps h in guard and sets the timeouts of lim.
func newHTTPServer(h http.Handler, token string, lim HTTPLimits) *http.Server {
	return newGuardedServer(h, newTokens(token, nil), lim)
}

// newGuardedServer is newHTTPServer accepting any of tokens.
func newGuardedServer(h http.Handler, tokens tokens, lim HTTPLimits) *http.Server {
	return &http.Server{
		Handler:           guard(h, tokens, lim),
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    lim.MaxHeaderBytes,
	}
}

// isLoopback reports whether host (no port) names a loopback interface.
func isLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// bearerToken returns the credentials of an Authorization header that
// uses the Bearer scheme, or "". The scheme is case-insensitive (RFC 7235
// section 2.1); spaces between it and the token are skipped.
func bearerToken(header string) string {
	scheme, cred, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimLeft(cred, " ")
}

// MinRemoteTokenBytes is the shortest token CheckHTTPAddr accepts for an
// address beyond loopback: anyone on the network can try tokens.
const MinRemoteTokenBytes = 16

// CheckHTTPAddr refuses an address that is not host:port; a token that is
// blank, or has spaces or control characters (an HTTP client cannot send
// it intact); and, for an address beyond loopback, no token or one
// shorter than MinRemoteTokenBytes: anyone on the network could read and
// write the vault.
func CheckHTTPAddr(addr, token string) error {
	return checkHTTPAddr(addr, token, false)
}

// CheckTeamHTTPAddr is CheckHTTPAddr for a server with a tokens file
// (LoadTokens checked each token): any address will do, with or
// without a shared token.
func CheckTeamHTTPAddr(addr, token string) error {
	return checkHTTPAddr(addr, token, true)
}

func checkHTTPAddr(addr, token string, team bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %s: want host:port, e.g. 127.0.0.1:7391", addr)
	}
	if token != "" && strings.TrimSpace(token) == "" {
		return errors.New("--token is blank: give a token of visible characters, e.g. the output of `openssl rand -hex 32`")
	}
	if i := strings.IndexFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f }); i >= 0 {
		return fmt.Errorf("--token has a space or control character at byte %d: a client cannot send it in an HTTP header intact", i)
	}
	if isLoopback(host) || (team && token == "") {
		return nil
	}
	switch {
	case token == "":
		return fmt.Errorf("--http %s listens beyond loopback: set --token or MEMVAULT_TOKEN so only your clients can use it", addr)
	case len(token) < MinRemoteTokenBytes:
		return fmt.Errorf("--http %s listens beyond loopback: --token is %d bytes, want at least %d (e.g. the output of `openssl rand -hex 32`)",
			addr, len(token), MinRemoteTokenBytes)
	}
	return nil
}

// guard wraps h with the checks every HTTP request passes, in order:
//   - over a loopback connection, a Host that names loopback: a browser
//     page whose domain was rebound to 127.0.0.1 (DNS rebinding) sends its
//     own domain (403);
//   - the bearer token, compared in constant time over SHA-256 digests so
//     that neither content nor length leaks through timing (401); a
//     person's token (--tokens) puts the person in the request's context,
//     so their writes are committed as them;
//   - an Origin, when present, that is loopback or this host (403);
//   - a body of at most lim.MaxBody bytes, read in full before h runs
//     (413).
//
// Then it gives a POST its write deadline (HTTPLimits.CallTimeout).
func guard(h http.Handler, tokens tokens, lim HTTPLimits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if loopbackConn(r) && !isLoopback(hostOnly(r.Host)) {
			http.Error(w, "host not allowed: connect to localhost or 127.0.0.1", http.StatusForbidden)
			return
		}
		if len(tokens.digests) > 0 {
			ctx, ok := tokens.check(r.Context(), credential(r))
			if !ok {
				w.Header().Set("WWW-Authenticate", "Bearer")
				http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
				return
			}
			r = r.WithContext(ctx)
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || u.Host == "" || !(isLoopback(u.Hostname()) || strings.EqualFold(u.Host, r.Host)) {
				http.Error(w, "origin not allowed", http.StatusForbidden)
				return
			}
		}
		if r.ContentLength > lim.MaxBody {
			http.Error(w, fmt.Sprintf("request body over %d bytes", lim.MaxBody), http.StatusRequestEntityTooLarge)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, lim.MaxBody))
			var tooBig *http.MaxBytesError
			switch {
			case errors.As(err, &tooBig):
				http.Error(w, fmt.Sprintf("request body over %d bytes", lim.MaxBody), http.StatusRequestEntityTooLarge)
				return
			case err != nil:
				http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if r.Method == http.MethodPost && lim.CallTimeout > 0 {
			_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(lim.CallTimeout))
		}
		h.ServeHTTP(w, r)
	})
}

// loopbackConn reports whether r arrived on a loopback address.
func loopbackConn(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	host, _, err := net.SplitHostPort(a.String())
	return err == nil && isLoopback(host)
}

// hostOnly strips the port from a Host header.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// HTTPOptions configure ServeHTTP.
type HTTPOptions struct {
	// Token is the bearer token every request must carry; "" asks none
	// (CheckHTTPAddr allows that on loopback only).
	Token string
	// Callers are the people of a team server (LoadTokens): a request may
	// carry any of their tokens instead, and its writes are committed as
	// that person.
	Callers []Caller
	// Limits protect the server; the zero value means DefaultHTTPLimits.
	Limits HTTPLimits
	// Listening, when set, is told the MCP endpoint's URL once the server
	// listens (addr may name port 0).
	Listening func(url string)
	// Pages, when set, is served at / beside the MCP endpoint: the web
	// view, behind the same guard (see credential for how a browser
	// carries the token).
	Pages http.Handler
}

// healthz reports whether the server can answer, as JSON.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	out, failed := s.health(r.Context())
	w.Header().Set("Content-Type", "application/json")
	if failed {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	json.NewEncoder(w).Encode(out)
}

// ServeHTTP serves streamable HTTP at addr (the MCP endpoint at /mcp, a
// health check at GET /healthz) until ctx is done. Every request passes
// guard: loopback Host on loopback connections, the token, the Origin, a
// bounded body; each POST has a write deadline.
func (s *Server) ServeHTTP(ctx context.Context, addr string, o HTTPOptions) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	lim := o.Limits
	if lim == (HTTPLimits{}) {
		lim = DefaultHTTPLimits()
	}
	// Over HTTP a roots/list request reaches only a client with a GET
	// stream open; discovery bounds its wait accordingly.
	s.project.overHTTP = true
	mcpHandler := server.NewStreamableHTTPServer(s.mcp, server.WithEndpointPath("/mcp"), server.WithHeartbeatInterval(lim.Heartbeat))
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpHandler)
	mux.HandleFunc("GET /healthz", s.healthz)
	if o.Pages != nil {
		mux.Handle("/", o.Pages)
	}
	srv := newGuardedServer(mux, newTokens(o.Token, o.Callers), lim)
	if o.Listening != nil {
		o.Listening(fmt.Sprintf("http://%s/mcp", ln.Addr()))
	}
	s.logger.Info("serving", "vault", s.projectDir(), "user_vault", s.userDir(), "transport", "http", "addr", ln.Addr().String(), "token", o.Token != "", "people", len(o.Callers))
	return runServer(ctx, ln, srv, func(ctx context.Context) { _ = mcpHandler.Shutdown(ctx) })
}

// runServer serves srv on ln until ctx is done, then shuts it down,
// calling before first when set.
func runServer(ctx context.Context, ln net.Listener, srv *http.Server, before func(context.Context)) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if before != nil {
			before(shutdownCtx)
		}
		if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("shut down http: %w", err)
		}
		return nil
	}
}
