package mcpserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
)

// PageTokenCookie is the cookie in which a browser carries the token to
// the web view's pages (webui.TokenCookie names the same cookie).
const PageTokenCookie = "memvault_token"

// credential is the token a request carries: the Authorization header's
// bearer token; for the web view's pages (any path but /mcp), which a
// browser opens without such a header, else the token cookie, else a
// ?token= in the address of a GET (the page then moves it into the
// cookie). The cookie is SameSite=Strict, so another site's page cannot
// make the browser send it, and guard checks the Origin of what it does
// send.
func credential(r *http.Request) string {
	if t := bearerToken(r.Header.Get("Authorization")); t != "" || r.URL.Path == "/mcp" {
		return t
	}
	if c, err := r.Cookie(PageTokenCookie); err == nil && c.Value != "" {
		return c.Value
	}
	if r.Method == http.MethodGet {
		return r.URL.Query().Get("token")
	}
	return ""
}

// ServePages serves h (the web view of memvault ui) at addr until ctx is
// done, behind the guard ServeHTTP puts in front of MCP: loopback Host on
// loopback connections, the token when o.Token is set, the Origin, a
// bounded body. o.Listening is told the server's root URL.
func ServePages(ctx context.Context, addr string, h http.Handler, o HTTPOptions) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", addr, err)
	}
	lim := o.Limits
	if lim == (HTTPLimits{}) {
		lim = DefaultHTTPLimits()
	}
	srv := newGuardedServer(h, newTokens(o.Token, o.Callers), lim)
	// Requests live in ctx: when it ends, the pages' event streams end
	// too, and Shutdown need not wait for their clients to go.
	srv.BaseContext = func(net.Listener) context.Context { return ctx }
	if o.Listening != nil {
		o.Listening(fmt.Sprintf("http://%s/", ln.Addr()))
	}
	return runServer(ctx, ln, srv, nil)
}
