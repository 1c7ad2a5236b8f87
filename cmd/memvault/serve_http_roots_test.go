package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// TestServeHTTPFindsTheVaultFromTheClientsRoots runs discovery by MCP
// roots end to end over streamable HTTP: the server starts outside git
// with no --vault, and an mcp-go client that answers roots/list (over the
// GET stream it keeps open, for the older protocol; in the input request
// of the first tool call, for the newest) gets the vault of its root. A
// legacy client with no GET stream cannot receive roots/list: its calls
// fail within the bound, saying to use --vault, instead of hanging.
func TestServeHTTPFindsTheVaultFromTheClientsRoots(t *testing.T) {
	t.Parallel()
	bin := buildMemvault(t)
	for _, tc := range []struct {
		name, protocol string
		listen         bool // keep the GET stream open (WithContinuousListening)
		// wantErr: the tool call and the context read fail saying this
		// (no GET stream: the roots/list request cannot reach the client).
		wantErr []string
	}{
		{"legacy with the GET stream", legacyProtocol, true, nil},
		{"newest", mcp.LATEST_PROTOCOL_VERSION, false, nil},
		{"legacy without a GET stream", legacyProtocol, false, []string{"no answer within 5s", "GET stream", "--vault DIR"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t)
			notRepo := t.TempDir()
			url := runHTTPServe(t, bin, notRepo, "serve", "--http", "127.0.0.1:0")
			var opts []transport.StreamableHTTPCOption
			if tc.listen {
				//lint:ignore SA1019 the GET stream is what clients before 2026-07-28 answer roots/list on
				opts = append(opts, transport.WithContinuousListening())
			}
			tr, err := transport.NewStreamableHTTP(url, opts...)
			if err != nil {
				t.Fatal(err)
			}
			c := client.NewClient(tr, client.WithRootsHandler(rootsList{filepath.Join(repo, "src")}))
			t.Cleanup(func() { c.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			initClient(t, c, tc.protocol, "http-roots", true)
			s := &mcpSession{t: t, c: c}
			if tc.wantErr != nil {
				// Each waits for the server's bound on the roots/list
				// answer: they wait side by side, not one after the other.
				read := make(chan error, 1)
				go func() {
					req := mcp.ReadResourceRequest{}
					req.Params.URI = contextURI
					_, err := c.ReadResource(ctx, req)
					read <- err
				}()
				res := s.call("remember", map[string]any{"title": "x", "content": "y"})
				text := resultText(res)
				err := <-read
				if !res.IsError || err == nil {
					t.Fatalf("remember = %q, read context: %v; want both to fail", text, err)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(text, w) {
						t.Errorf("tool error %q does not say %q", text, w)
					}
				}
				if !strings.Contains(err.Error(), "--vault DIR") || !strings.Contains(err.Error(), "GET stream") {
					t.Errorf("context read error %q does not name the GET stream and --vault DIR", err)
				}
				if cs := repoCommits(t, repo); len(cs) != 0 {
					t.Errorf("commits: %d, want none", len(cs))
				}
				return
			}
			var w view.Write
			s.ok("remember", map[string]any{"title": "HTTP finds the vault", "content": "Found from the client's roots over HTTP."}, &w)
			if cs := repoCommits(t, repo); len(cs) != 1 || cs[0].Hash != w.Commit {
				t.Fatalf("commits in the root's repository: %+v, want the remember commit %s", cs, w.Commit)
			}
			var st view.Stats
			s.ok("memory_stats", map[string]any{}, &st)
			if want := filepath.Join(repo, ".memory"); st.Vault != want {
				t.Errorf("vault = %s, want %s", st.Vault, want)
			}
		})
	}
}
