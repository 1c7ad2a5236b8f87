package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// testLimits are DefaultHTTPLimits with a small body limit.
func testLimits() HTTPLimits {
	lim := DefaultHTTPLimits()
	lim.MaxBody = 1000
	return lim
}

// TestGuard sends requests through guard to a handler that echoes the
// body length, over a loopback connection as httptest serves it.
func TestGuard(t *testing.T) {
	t.Parallel()
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, "%d", len(b))
	})
	srv := httptest.NewServer(newHTTPServer(echo, "s3cret", testLimits()).Handler)
	defer srv.Close()
	const ok = "Bearer s3cret"
	tests := []struct {
		name    string
		method  string
		host    string // Host header; "" keeps 127.0.0.1:port
		auth    string
		origin  string
		body    string
		chunked bool // send the body without a Content-Length
		want    int
	}{
		{name: "right token", method: "GET", auth: ok, want: 200},
		{name: "missing token", method: "GET", want: 401},
		{name: "wrong token", method: "GET", auth: "Bearer s3creT", want: 401},
		{name: "token prefix", method: "GET", auth: "Bearer s3cre", want: 401},
		{name: "token without Bearer", method: "GET", auth: "s3cret", want: 401},
		// The scheme is case-insensitive (RFC 7235 section 2.1).
		{name: "scheme in lower case", method: "GET", auth: "bearer s3cret", want: 200},
		{name: "scheme in upper case", method: "GET", auth: "BEARER s3cret", want: 200},
		{name: "two spaces after the scheme", method: "GET", auth: "Bearer  s3cret", want: 200},
		{name: "another scheme", method: "GET", auth: "Basic s3cret", want: 401},
		{name: "scheme alone", method: "GET", auth: "Bearer", want: 401},
		{name: "token in another case", method: "GET", auth: "bearer S3CRET", want: 401},
		{name: "loopback origin", method: "GET", auth: ok, origin: "http://localhost:3000", want: 200},
		{name: "same-host origin", method: "GET", auth: ok, origin: "http://{host}", want: 200},
		{name: "foreign origin", method: "GET", auth: ok, origin: "https://evil.example", want: 403},
		{name: "null origin", method: "GET", auth: ok, origin: "null", want: 403},
		{name: "rebound host", method: "GET", host: "evil.example:7391", auth: ok, origin: "http://evil.example:7391", want: 403},
		{name: "localhost host", method: "GET", host: "localhost:7391", auth: ok, want: 200},
		{name: "body at the limit", method: "POST", auth: ok, body: strings.Repeat("x", 1000), want: 200},
		{name: "body over the limit", method: "POST", auth: ok, body: strings.Repeat("x", 1001), want: 413},
		{name: "chunked body over the limit", method: "POST", auth: ok, body: strings.Repeat("x", 5000), chunked: true, want: 413},
		{name: "unauthenticated large body", method: "POST", body: strings.Repeat("x", 5000), want: 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
				if tt.chunked {
					body = io.MultiReader(body) // hides the length
				}
			}
			req, err := http.NewRequest(tt.method, srv.URL+"/mcp", body)
			if err != nil {
				t.Fatal(err)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			if tt.origin != "" {
				req.Header.Set("Origin", strings.ReplaceAll(tt.origin, "{host}", req.URL.Host))
			}
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			got, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.want {
				t.Fatalf("status %d (%s), want %d", res.StatusCode, strings.TrimSpace(string(got)), tt.want)
			}
			if tt.want == 200 && string(got) != fmt.Sprint(len(tt.body)) {
				t.Errorf("handler saw %s body bytes, want %d", got, len(tt.body))
			}
			if tt.want == 401 && res.Header.Get("WWW-Authenticate") != "Bearer" {
				t.Errorf("401 without WWW-Authenticate: Bearer")
			}
		})
	}
}

func TestCheckHTTPAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr, token string
		wantErr     string // "" means accepted
	}{
		{"127.0.0.1:7391", "", ""},
		{"[::1]:7391", "", ""},
		{"localhost:0", "", ""},
		{"0.0.0.0:7391", "", "--token"},
		{":7391", "", "--token"},
		{"192.168.1.20:7391", "", "--token"},
		{"0.0.0.0:7391", "0123456789abcdef", ""},
		{"7391", "", "host:port"},
		// Issue 13, finding 15: a short or blank token beyond loopback.
		{"0.0.0.0:7391", "a", "--token is 1 bytes, want at least 16"},
		{"0.0.0.0:7391", "s3cret", "--token is 6 bytes, want at least 16"},
		{"192.168.1.20:7391", "0123456789abcde", "want at least 16"},
		{"0.0.0.0:7391", "   ", "--token is blank"},
		{"127.0.0.1:7391", " \t", "--token is blank"},
		{"127.0.0.1:7391", "s3cret", ""},
		{"0.0.0.0:7391", "0123456789abcdef ", "space or control character at byte 16"},
		{"127.0.0.1:7391", "s3c ret", "space or control character at byte 3"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%q", tt.addr, tt.token), func(t *testing.T) {
			err := CheckHTTPAddr(tt.addr, tt.token)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("CheckHTTPAddr = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("CheckHTTPAddr = %v, want an error naming %q", err, tt.wantErr)
			}
		})
	}
}

// serveLimits serves h with lim on a loopback port until the test ends.
func serveLimits(t *testing.T, h http.Handler, lim HTTPLimits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(h, "", lim)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// TestHTTPSlowHeaderCutOff sends half a request header and checks that the
// server hangs up after ReadHeaderTimeout.
func TestHTTPSlowHeaderCutOff(t *testing.T) {
	t.Parallel()
	lim := DefaultHTTPLimits()
	lim.ReadHeaderTimeout = 100 * time.Millisecond
	addr := serveLimits(t, http.NotFoundHandler(), lim)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "); err != nil {
		t.Fatal(err)
	}
	// The deadline only stops the test from hanging if the server never
	// hangs up; it is fifty times the header timeout.
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept a slow header open past %s", lim.ReadHeaderTimeout)
	}
}

// TestHTTPStreamOutlivesTimeouts holds a GET stream open past ReadTimeout
// and CallTimeout: a long-lived SSE stream must not be cut by them.
func TestHTTPStreamOutlivesTimeouts(t *testing.T) {
	t.Parallel()
	lim := DefaultHTTPLimits()
	lim.ReadTimeout, lim.CallTimeout = 50*time.Millisecond, 50*time.Millisecond
	const events = 6
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		tick := time.NewTicker(40 * time.Millisecond)
		defer tick.Stop()
		for i := range events {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
			fmt.Fprintf(w, "data: %d\n\n", i)
			if err := rc.Flush(); err != nil {
				return
			}
		}
	})
	addr := serveLimits(t, stream, lim)
	res, err := http.Get("http://" + addr + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	got := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			got++
		}
	}
	if got != events {
		t.Errorf("stream delivered %d of %d events (%v): a timeout cut it", got, events, sc.Err())
	}
}

// TestHTTPSlowCallCutOff checks that a POST answer stops at CallTimeout:
// the client reads nothing after the first line, so the answer fills the
// connection's buffers and the handler's writes block until the write
// deadline cuts them.
func TestHTTPSlowCallCutOff(t *testing.T) {
	t.Parallel()
	lim := DefaultHTTPLimits()
	lim.CallTimeout = 50 * time.Millisecond
	const chunks = 1000
	cut := make(chan error, 1)
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("start\n"))
		http.NewResponseController(w).Flush()
		chunk := bytes.Repeat([]byte("x"), 1<<16)
		for range chunks {
			if _, err := w.Write(chunk); err != nil {
				cut <- err
				return
			}
		}
		cut <- nil
	})
	addr := serveLimits(t, slow, lim)
	res, err := http.Post("http://"+addr+"/mcp", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	buf := make([]byte, 6)
	if _, err := io.ReadFull(res.Body, buf); err != nil {
		t.Fatal(err)
	}
	if err := <-cut; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the handler's writes ended with %v, want the write deadline", err)
	}
	n, _ := io.Copy(io.Discard, res.Body)
	if n >= chunks<<16 {
		t.Errorf("the whole slow answer arrived (%d bytes); CallTimeout did not cut it", n)
	}
}

// TestServeHTTPInProcess serves a test server over streamable HTTP: the
// token guards every request, a client session writes through the tools
// with its name in the commit, /healthz describes both vaults, and the
// server ends with its context.
func TestServeHTTPInProcess(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{user: true})
	ctx, cancel := context.WithCancel(t.Context())
	listening := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- ts.ServeHTTP(ctx, "127.0.0.1:0", HTTPOptions{Token: "s3cret", Listening: func(url string) { listening <- url }})
	}()
	url := <-listening
	base := strings.TrimSuffix(url, "/mcp")
	get := func(path, auth string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	if got := get("/healthz", "").StatusCode; got != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", got)
	}

	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer s3cret"}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	initialize(t, c, "http-client", "", false)
	mustCall[view.Write](t, c, "remember", map[string]any{"title": "HTTP works", "content": "Served over streamable HTTP."})
	if msg := ts.project.commits.last(); !strings.Contains(msg, "Memory-Client: http-client") {
		t.Errorf("commit lacks Memory-Client: http-client:\n%s", msg)
	}

	// Both vaults are described, the user vault's under user_vault.
	var h struct {
		Status    string `json:"status"`
		Vault     string `json:"vault"`
		Memories  int    `json:"memories"`
		Head      string `json:"git_head"`
		UserVault struct {
			Status   string `json:"status"`
			Vault    string `json:"vault"`
			Memories int    `json:"memories"`
		} `json:"user_vault"`
	}
	if err := json.NewDecoder(get("/healthz", "Bearer s3cret").Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	if h.Status != "ok" || h.Vault != ts.project.v.Dir() || h.Memories != 1 || len(h.Head) != 40 ||
		h.UserVault.Status != "ok" || h.UserVault.Vault != ts.user.v.Dir() || h.UserVault.Memories != 0 {
		t.Errorf("healthz = %+v, want both vaults ok, one memory in the project's", h)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("ServeHTTP after its context ended: %v", err)
	}
}
