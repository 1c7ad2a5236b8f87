package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/memvault/memvault/vault"
)

// scriptedRoots answers roots/list with the folders, or with block not
// until the test ends.
type scriptedRoots struct {
	rootsScript
	done chan struct{}
}

// rootsScript is how scriptedRoots answers.
type rootsScript struct {
	block bool
	dirs  []string
}

func (s *scriptedRoots) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	switch {
	case s.block:
		select {
		case <-s.done:
		case <-ctx.Done():
		}
		return nil, errors.New("test over")
	}
	return rootsList(s.dirs).ListRoots(ctx, req)
}

// TestContextBeforeTheVaultIsKnown reads memory://context while the
// project vault still waits for the client's roots (no --vault, working
// directory outside git), through the in-process client.
func TestContextBeforeTheVaultIsKnown(t *testing.T) {
	isolateGit(t)
	repo := newRepo(t)
	notRepo := t.TempDir()
	tests := []struct {
		name     string
		protocol string
		roots    rootsScript
		toolCall bool          // call a tool before reading
		wait     time.Duration // discoveryWait
		want     string        // in the digest; "" when the read must fail
		wantErr  []string      // in the error
	}{
		{name: "legacy: the read asks for the roots itself", protocol: legacyProtocol,
			roots: rootsScript{dirs: []string{repo}}, want: "Releases on Mondays"},
		{name: "legacy: roots outside git", protocol: legacyProtocol,
			roots: rootsScript{dirs: []string{notRepo}}, wantErr: []string{notRepo, "not in a git repository", "--vault DIR"}},
		{name: "legacy: the wait is bounded", protocol: legacyProtocol, wait: 50 * time.Millisecond,
			roots: rootsScript{block: true}, wantErr: []string{"not known yet", "--vault DIR"}},
		{name: "newest: no tool call yet", protocol: mcp.LATEST_PROTOCOL_VERSION,
			roots: rootsScript{dirs: []string{repo}}, wantErr: []string{"not known yet", "Call a tool first", "--vault DIR"}},
		{name: "newest: after a tool call", protocol: mcp.LATEST_PROTOCOL_VERSION, toolCall: true,
			roots: rootsScript{dirs: []string{repo}}, want: "Releases on Mondays"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			roots := &scriptedRoots{rootsScript: tc.roots, done: make(chan struct{})}
			defer close(roots.done)
			c, d := rootsServer(t, notRepo, repo, roots, tc.protocol, tc.wait)
			// mcp-go's in-process client sends no initialized
			// notification, so no roots/list is out before the read.
			if d.pending() {
				t.Fatal("a roots/list request is out before the read")
			}
			if tc.toolCall {
				mustCall[statsOutput](t, c, "memory_stats", map[string]any{})
			}
			req := mcp.ReadResourceRequest{}
			req.Params.URI = contextURI
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := c.ReadResource(ctx, req)
			if tc.want != "" {
				if err != nil {
					t.Fatalf("read %s: %v", contextURI, err)
				}
				if text := res.Contents[0].(mcp.TextResourceContents).Text; !strings.Contains(text, tc.want) {
					t.Errorf("digest lacks %q:\n%s", tc.want, text)
				}
				return
			}
			if err == nil {
				t.Fatalf("read %s = %+v, want an error", contextURI, res.Contents)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// rootsServer serves tools whose project vault is found from the roots
// of an in-process client, as memvault serve started in dir (outside
// git) does; repo holds one memory. It returns the client and the
// discovery.
func rootsServer(t *testing.T, dir, repo string, roots client.RootsHandler, protocol string, wait time.Duration) (*client.Client, *discovery) {
	t.Helper()
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	m := NewMain(strings.NewReader(""), io.Discard, io.Discard)
	m.logger = logger
	notify := newNotifier(logger)
	if v, err := vault.Open(ctx, filepath.Join(repo, ".memory"), vault.Options{}); err != nil {
		t.Fatal(err)
	} else if _, err := v.Create(ctx, vault.NewMemory{Title: "Releases on Mondays", Content: "Cut releases on Mondays.", Importance: 9}, vault.Author{}); err != nil {
		t.Fatal(err)
	}
	d := &discovery{logger: logger, cwd: dir, open: func(dir string) *vaultSlot {
		o := m.openServedVault(ctx, projectScope, dir, logger, notify)
		t.Cleanup(o.close)
		return o.slot
	}}
	tools := &mcpTools{logger: logger, notify: notify, project: d, discoveryWait: wait}
	hooks := &server.Hooks{}
	notify.hook(hooks)
	s := server.NewMCPServer("memvault", serverVersion, server.WithToolCapabilities(false), server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(false), server.WithHooks(hooks))
	notify.srv = s
	tools.register(s)
	c, err := client.NewInProcessClientWithOptions(s, client.WithRootsHandler(roots))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = protocol
	init.Params.ClientInfo = mcp.Implementation{Name: "unit", Version: "1"}
	init.Params.Capabilities.Roots = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c, d
}
