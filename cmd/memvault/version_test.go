package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func TestBuildVersion(t *testing.T) {
	vcs := func(rev, at, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "d824770a6a3a5c7cfe0cfe480065cf6a7180defc"
	tests := []struct {
		name   string
		linked string
		info   *debug.BuildInfo
		ok     bool
		want   string
	}{
		{"no build info", "", nil, false, "devel"},
		{"go run, go test, -buildvcs=false", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "devel"},
		{"empty module version", "", &debug.BuildInfo{}, true, "devel"},
		{"go install ...@v1.2.3", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "v1.2.3"},
		{"Go 1.24+ build from a clone: pseudo-version", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201141719-d824770a6a3a+dirty"}, Settings: vcs(rev, "2026-12-01T14:17:19Z", "true")},
			true, "v0.0.0-20261201141719-d824770a6a3a+dirty"},
		{"older toolchain: VCS settings only", "",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "2026-12-01T14:17:19Z", "false")},
			true, "v0.0.0-20261201141719-d824770a6a3a"},
		{"older toolchain, modified work tree, time in another zone", "",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "2026-12-01T22:17:19+08:00", "true")},
			true, "v0.0.0-20261201141719-d824770a6a3a+dirty"},
		{"revision without a time", "",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}}},
			true, "devel-abc123"},
		{"-ldflags -X wins over the module version", "v2.0.0-rc1",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201141719-d824770a6a3a"}}, true, "v2.0.0-rc1"},
		{"-ldflags -X without build info", "v2.0.0", nil, false, "v2.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := buildVersion(tt.linked, tt.info, tt.ok); got != tt.want {
				t.Errorf("buildVersion = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestVersionFlag: --version prints Main.Version, which NewMain reads
// from the build.
func TestVersionFlag(t *testing.T) {
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

	isolateGit(t)
	root := newRepo(t)
	c, err := client.NewStdioMCPClient(bin, nil, "serve", "--no-user-vault", "--vault", filepath.Join(root, ".memory"))
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
