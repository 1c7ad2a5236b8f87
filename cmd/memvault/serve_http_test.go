package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/gitstore"
)

// startHTTPServe runs `memvault serve --http 127.0.0.1:0` with extra args
// and returns the server's base URL and repository root.
func startHTTPServe(t *testing.T, bin string, extra ...string) (base, root string) {
	t.Helper()
	root = newRepo(t)
	args := append([]string{"serve", "--vault", filepath.Join(root, ".memory"), "--http", "127.0.0.1:0"}, extra...)
	return strings.TrimSuffix(runHTTPServe(t, bin, "", args...), "/mcp"), root
}

// runHTTPServe runs bin with args in folder dir ("" for the current one)
// until the test ends, and returns the MCP endpoint's URL once the server
// says it is listening.
func runHTTPServe(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "memvault: serving MCP at "); ok {
			go func() {
				for sc.Scan() {
				}
			}()
			return rest
		}
	}
	t.Fatalf("server exited before listening: %v", sc.Err())
	return ""
}

func TestServeHTTP(t *testing.T) {
	bin := buildMemvault(t)
	isolateGit(t)

	t.Run("beyond loopback needs a token", func(t *testing.T) {
		out, err := exec.Command(bin, "serve", "--vault", filepath.Join(t.TempDir(), ".memory"), "--http", "0.0.0.0:0").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "--token") {
			t.Errorf("serve --http 0.0.0.0:0 without a token: err %v, output %q; want a refusal naming --token", err, out)
		}
	})

	base, root := startHTTPServe(t, bin, "--token", "s3cret")
	get := func(path string, header map[string]string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	auth := map[string]string{"Authorization": "Bearer s3cret"}

	t.Run("token required", func(t *testing.T) {
		if got := get("/healthz", nil).StatusCode; got != http.StatusUnauthorized {
			t.Errorf("no token: status %d, want 401", got)
		}
		if got := get("/healthz", map[string]string{"Authorization": "Bearer wrong"}).StatusCode; got != http.StatusUnauthorized {
			t.Errorf("wrong token: status %d, want 401", got)
		}
	})

	t.Run("foreign origin refused", func(t *testing.T) {
		h := map[string]string{"Authorization": "Bearer s3cret", "Origin": "https://evil.example"}
		if got := get("/healthz", h).StatusCode; got != http.StatusForbidden {
			t.Errorf("evil origin: status %d, want 403", got)
		}
	})

	t.Run("mcp session", func(t *testing.T) {
		c, err := client.NewStreamableHttpClient(base+"/mcp", transport.WithHTTPHeaders(auth))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		init.Params.ClientInfo = mcp.Implementation{Name: "http-client", Version: "1"}
		if _, err := c.Initialize(ctx, init); err != nil {
			t.Fatalf("initialize: %v", err)
		}
		req := mcp.CallToolRequest{}
		req.Params.Name = "remember"
		req.Params.Arguments = map[string]any{"title": "HTTP works", "content": "Served over streamable HTTP."}
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			t.Fatalf("remember: %v %s", err, resultText(res))
		}
		st, err := gitstore.Open(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		cs, err := st.History(ctx, root, gitstore.HistoryOptions{Limit: 1})
		if err != nil || len(cs) != 1 {
			t.Fatalf("history: %v %v", cs, err)
		}
		if !strings.Contains(cs[0].Message, "Memory-Client: http-client") {
			t.Errorf("commit lacks Memory-Client: http-client:\n%s", cs[0].Message)
		}
	})

	t.Run("healthz", func(t *testing.T) {
		res := get("/healthz", auth)
		var h map[string]any
		if err := json.NewDecoder(res.Body).Decode(&h); err != nil {
			t.Fatal(err)
		}
		head, _ := h["git_head"].(string)
		age, hasAge := h["index_age_seconds"].(float64)
		if res.StatusCode != http.StatusOK || h["status"] != "ok" || h["memories"] != float64(1) || h["index_docs"] != float64(1) ||
			!hasAge || age < 0 || len(head) != 40 || h["vault"] != filepath.Join(root, ".memory") {
			t.Errorf("healthz = %d %v, want ok with 1 memory indexed, the index age, the vault and git_head", res.StatusCode, h)
		}
	})
}

// testLimits are defaultHTTPLimits with a small body limit.
func testLimits() httpLimits {
	lim := defaultHTTPLimits()
	lim.MaxBody = 1000
	return lim
}

// TestGuard sends requests through guard to a handler that echoes the
// body length, over a loopback connection as httptest serves it.
func TestGuard(t *testing.T) {
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
		{"0.0.0.0:7391", "s3cret", ""},
		{"7391", "", "host:port"},
	}
	for _, tt := range tests {
		t.Run(tt.addr+"/"+tt.token, func(t *testing.T) {
			err := checkHTTPAddr(tt.addr, tt.token)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("checkHTTPAddr = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("checkHTTPAddr = %v, want an error naming %q", err, tt.wantErr)
			}
		})
	}
}

// serveLimits serves h with lim on a loopback port until the test ends.
func serveLimits(t *testing.T, h http.Handler, lim httpLimits) string {
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
	lim := defaultHTTPLimits()
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
	lim := defaultHTTPLimits()
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

// TestHTTPSlowCallCutOff checks that a POST answer stops at CallTimeout.
func TestHTTPSlowCallCutOff(t *testing.T) {
	lim := defaultHTTPLimits()
	lim.CallTimeout = 50 * time.Millisecond
	release := make(chan struct{})
	defer close(release)
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("start\n"))
		http.NewResponseController(w).Flush()
		<-release
		for range 1000 {
			if _, err := w.Write([]byte(strings.Repeat("x", 1<<16))); err != nil {
				return
			}
		}
	})
	addr := serveLimits(t, slow, lim)
	res, err := http.Post("http://"+addr+"/mcp", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	// Reading nothing for a while makes the call exceed its deadline.
	buf := make([]byte, 6)
	io.ReadFull(res.Body, buf)
	time.Sleep(3 * lim.CallTimeout)
	release <- struct{}{}
	n, _ := io.Copy(io.Discard, res.Body)
	if n >= 1000<<16 {
		t.Errorf("the whole slow answer arrived (%d bytes); CallTimeout did not cut it", n)
	}
}
