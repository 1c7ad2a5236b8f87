package mcpserver

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
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
	if s.block {
		select {
		case <-s.done:
		case <-ctx.Done():
		}
		return nil, errors.New("test over")
	}
	out := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, d := range s.dirs {
		out.Roots = append(out.Roots, mcp.Root{URI: "file://" + filepath.ToSlash(d)})
	}
	return out, nil
}

// TestContextBeforeTheVaultIsKnown reads memory://context while the
// project vault still waits for the client's roots (no --vault, working
// directory outside git), through the in-process client.
func TestContextBeforeTheVaultIsKnown(t *testing.T) {
	t.Parallel()
	repo, notRepo := t.TempDir(), t.TempDir()
	tests := []struct {
		name     string
		protocol string
		roots    rootsScript
		toolCall bool          // call a tool before reading
		wait     time.Duration // Config.DiscoveryWait
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
		// Not parallel: each run writes the memory into the one repo.
		t.Run(tc.name, func(t *testing.T) {
			roots := &scriptedRoots{rootsScript: tc.roots, done: make(chan struct{})}
			defer close(roots.done)
			c, s := rootsServer(t, notRepo, repo, roots, tc.protocol, tc.wait)
			// mcp-go's in-process client sends no initialized
			// notification, so no roots/list is out before the read.
			if s.project.pending() {
				t.Fatal("a roots/list request is out before the read")
			}
			if tc.toolCall {
				mustCall[view.Stats](t, c, "memory_stats", map[string]any{})
			}
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			req := mcp.ReadResourceRequest{}
			req.Params.URI = contextURI
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

// rootsServer serves tools whose project vault is found from the roots of
// an in-process client, as memvault serve started in dir (outside git)
// does; repo, the only folder GitRoot takes for a repository, holds one
// memory.
func rootsServer(t *testing.T, dir, repo string, roots client.RootsHandler, protocol string, wait time.Duration) (*client.Client, *Server) {
	t.Helper()
	v, err := vault.Open(t.Context(), filepath.Join(repo, ".memory"), vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Create(t.Context(), vault.NewMemory{Title: "Releases on Mondays", Content: "Cut releases on Mondays.", Importance: 9}, vault.Author{}); err != nil {
		t.Fatal(err)
	}
	s := New(Config{Version: "test", Cwd: dir, DiscoveryWait: wait,
		GitRoot: func(d string) (string, bool) {
			if d == repo || strings.HasPrefix(d, repo+string(filepath.Separator)) {
				return repo, true
			}
			return "", false
		},
		Open: func(name, dir string, _ func(vault.Change)) Served {
			if dir != filepath.Join(repo, ".memory") {
				t.Errorf("opened %s, want the repository's vault", dir)
			}
			return Served{Vault: loaded{v}}
		}})
	return connect(t, s, protocol, roots), s
}

func TestRootDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		uri, dir, why string
	}{
		{"file:///home/ann/shop", "/home/ann/shop", ""},
		{"file:///home/ann/my%20shop/", "/home/ann/my shop", ""},
		{"https://example.com/repo", "", "not a file:// URI"},
		{"file://", "", "not an absolute path"},
		{"::", "", "not a URI"},
	}
	for _, tc := range tests {
		dir, why := rootDir(tc.uri)
		if dir != filepath.FromSlash(tc.dir) || why != tc.why {
			t.Errorf("rootDir(%q) = %q, %q; want %q, %q", tc.uri, dir, why, tc.dir, tc.why)
		}
	}
}

// FuzzRootDir feeds rootDir what clients may report: it never panics and
// returns either an absolute folder or a reason.
func FuzzRootDir(f *testing.F) {
	for _, s := range []string{"file:///home/ann/shop", "file://", "https://x/y", "file:///a/../b", "file:///%zz", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		dir, why := rootDir(uri)
		if (dir == "") == (why == "") {
			t.Fatalf("rootDir(%q) = %q, %q: want exactly one of a folder and a reason", uri, dir, why)
		}
		if dir != "" && !filepath.IsAbs(dir) {
			t.Errorf("rootDir(%q) = %q, not absolute", uri, dir)
		}
	})
}
