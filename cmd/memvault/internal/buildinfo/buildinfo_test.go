package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
	t.Parallel()
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
			if got := Version(tt.linked, tt.info, tt.ok); got != tt.want {
				t.Errorf("Version = %q, want %q", got, tt.want)
			}
		})
	}
}
