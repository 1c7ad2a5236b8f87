package main

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// maxHTTPBody bounds a request body: a remember carries at most 64 KiB of
// content, so 1 MiB leaves room for JSON overhead and nothing more.
const maxHTTPBody = 1 << 20

// isLoopback reports whether host (no port) names a loopback interface.
func isLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// checkHTTPAddr refuses to bind beyond loopback without a token.
func checkHTTPAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--http %s: want host:port, e.g. 127.0.0.1:7391", addr)
	}
	if !isLoopback(host) && token == "" {
		return usagef("--http %s listens beyond loopback: set --token or MEMVAULT_TOKEN so only your clients can use it", addr)
	}
	return nil
}

// guard wraps h with the checks every HTTP request passes: the bearer
// token (compared in constant time), an Origin that is loopback or this
// host (against DNS rebinding from a browser), and the body size limit.
func guard(h http.Handler, token string) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || !(isLoopback(u.Hostname()) || strings.EqualFold(u.Host, r.Host)) {
				http.Error(w, "origin not allowed", http.StatusForbidden)
				return
			}
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxHTTPBody)
		h.ServeHTTP(w, r)
	})
}

// healthz reports whether the server can answer, as JSON.
func (t *mcpTools) healthz(w http.ResponseWriter, r *http.Request) {
	out, failed := t.health(r.Context())
	w.Header().Set("Content-Type", "application/json")
	if failed {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	json.NewEncoder(w).Encode(out)
}

// serveHTTP serves s over streamable HTTP at addr until ctx ends.
func (m *Main) serveHTTP(ctx context.Context, s *server.MCPServer, tools *mcpTools, addr, token string, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	mcpHandler := server.NewStreamableHTTPServer(s, server.WithEndpointPath("/mcp"))
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpHandler)
	mux.HandleFunc("GET /healthz", tools.healthz)
	srv := &http.Server{Handler: guard(mux, token), ReadHeaderTimeout: 10 * time.Second}
	// The address goes to stderr so whoever started the server (and the
	// tests, which bind port 0) can find it.
	fmt.Fprintf(m.Stderr, "memvault: serving MCP at http://%s/mcp\n", ln.Addr())
	logger.Info("serving", "transport", "http", "addr", ln.Addr().String(), "token", token != "")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = mcpHandler.Shutdown(shutdownCtx)
		if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("shut down http: %w", err)
		}
		return nil
	}
}
