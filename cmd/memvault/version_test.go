package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestVersionFlag: --version prints Main.Version, which NewMain reads
// from the build.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	m := NewMain(strings.NewReader(""), &out, &errb)
	if m.Version == "" || m.Version != currentVersion() {
		t.Fatalf("NewMain's Version = %q, want currentVersion() = %q", m.Version, currentVersion())
	}
	for _, v := range []string{m.Version, "v1.2.3-test"} {
		out.Reset()
		m.Version = v
		if code := m.Run(context.Background(), []string{"--version"}); code != 0 {
			t.Fatalf("--version: exit %d; stderr: %s", code, errb.String())
		}
		if got, want := out.String(), "memvault version "+v+"\n"; got != want {
			t.Errorf("--version printed %q, want %q", got, want)
		}
	}
}

// TestVersionStamped builds the binary as a packager would, with the
// version set at link time, and checks both places it shows: --version
// and the MCP server's serverInfo.version.
func TestVersionStamped(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	t.Parallel()
	const want = "v9.8.7-stamped"
	bin := filepath.Join(t.TempDir(), "memvault")
	build := exec.Command("go", "build", "-ldflags", "-X main.version="+want, "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || string(out) != "memvault version "+want+"\n" {
		t.Errorf("memvault --version = %q, %v; want %q", out, err, "memvault version "+want)
	}

	root := newRepo(t)
	c, err := newStdioClient(bin, nil, "serve", "--no-user-vault", "--vault", filepath.Join(root, ".memory"))
	if err != nil {
		t.Fatalf("start memvault serve: %v", err)
	}
	defer c.Close()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "version-test", Version: "1.0"}
	res, err := c.Initialize(t.Context(), req)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ServerInfo.Version != want {
		t.Errorf("serverInfo.version = %q, want %q", res.ServerInfo.Version, want)
	}
}
