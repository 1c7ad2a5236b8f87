package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
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
	t.Parallel()
	bin := buildMemvault(t)

	t.Run("beyond loopback needs a token", func(t *testing.T) {
		out, err := exec.Command(bin, "serve", "--vault", filepath.Join(t.TempDir(), ".memory"), "--http", "0.0.0.0:0").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "--token") {
			t.Errorf("serve --http 0.0.0.0:0 without a token: err %v, output %q; want a refusal naming --token", err, out)
		}
	})

	t.Run("beyond loopback a short token is refused", func(t *testing.T) {
		out, err := exec.Command(bin, "serve", "--vault", filepath.Join(t.TempDir(), ".memory"), "--http", "0.0.0.0:0", "--token", "a").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "want at least 16") {
			t.Errorf("serve --http 0.0.0.0:0 --token a: err %v, output %q; want a refusal of the short token", err, out)
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
		initClient(t, c, "", "http-client", false)
		(&mcpSession{t: t, c: c}).ok("remember", map[string]any{"title": "HTTP works", "content": "Served over streamable HTTP."}, nil)
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

// TestServeHTTPTeamTokens: a team server with a tokens file commits each
// caller's writes as that person; a tokens file others can read is
// refused before the server starts.
func TestServeHTTPTeamTokens(t *testing.T) {
	t.Parallel()
	bin := buildMemvault(t)
	people := map[string][2]string{ // token -> name, email
		"ada-0123456789abcdef": {"Ada Lovelace", "ada@example.com"},
		"li-0123456789abcdefg": {"李 明", "li.ming@example.com"},
	}
	file := filepath.Join(t.TempDir(), "tokens")
	var lines strings.Builder
	lines.WriteString("# token name email\n")
	for tok, p := range people {
		fmt.Fprintf(&lines, "%s %s %s\n", tok, p[0], p[1])
	}
	if err := os.WriteFile(file, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "serve", "--vault", filepath.Join(t.TempDir(), ".memory"), "--http", "127.0.0.1:0", "--tokens", file).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "chmod 600") {
		t.Errorf("a tokens file others can read: err %v, output %q; want a refusal naming chmod 600", err, out)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	// A tokens file and no shared token.
	base, root := startHTTPServe(t, bin, "--tokens", file)
	for tok, p := range people {
		c, err := client.NewStreamableHttpClient(base+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		initClient(t, c, "", "team-client", false)
		var w view.Write
		(&mcpSession{t: t, c: c}).ok("remember", map[string]any{"title": "Written by " + p[0], "content": "Team server write.", "reason": "team test"}, &w)
		st, err := gitstore.Open(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		info, err := st.ReadCommit(ctx, w.Commit)
		st.Close()
		cancel()
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if info.Author.Name != p[0] || info.Author.Email != p[1] {
			t.Errorf("%s's write is authored by %s <%s>", p[0], info.Author.Name, info.Author.Email)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/healthz", nil)
	req.Header.Set("Authorization", "Bearer ada-0123456789abcdeX")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: status %d, want 401", res.StatusCode)
	}
}
