package clientconfig

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGoRunDirsHolds: the binaries `go run` builds, before and since Go
// 1.24, and binaries that merely sit near those folders.
func TestGoRunDirsHolds(t *testing.T) {
	d := GoRunDirs{
		Temp:  []string{"/home/ann/gotmp", "/tmp"},
		Cache: "/home/ann/.cache/go-build",
	}
	tests := []struct {
		name string
		exe  string
		want bool
	}{
		{"go run work folder (Go < 1.24, or a fresh link)", "/tmp/go-build2573773287/b001/exe/memvault", true},
		{"go run work folder under GOTMPDIR", "/home/ann/gotmp/go-build99/b001/exe/memvault", true},
		{"go run cached binary (Go 1.24+)", "/home/ann/.cache/go-build/ec/ec0c9100f71ca0178bc71f2a3a49f44f17d886c13a85f47f4a003c0dea3e4766-d/memvault", true},
		{"installed", "/home/ann/go/bin/memvault", false},
		{"built into /tmp by hand", "/tmp/mv/memvault", false},
		{"a folder named like go-build, not in a temporary folder", "/home/ann/src/go-build/memvault", false},
		{"go-build deeper in /tmp", "/tmp/x/go-build1/memvault", false},
		{"beside the cache, not in it", "/home/ann/.cache/go-build-old/memvault", false},
		{"the cache folder's parent", "/home/ann/.cache/memvault", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := d.Holds(filepath.FromSlash(tt.exe)); got != tt.want {
				t.Errorf("Holds(%s) = %v, want %v", tt.exe, got, tt.want)
			}
		})
	}
	if (GoRunDirs{Temp: []string{"/tmp"}}).Holds("/home/ann/.cache/go-build/ec/x-d/memvault") {
		t.Errorf("with the cache off, a path under the default cache counts as a go run build")
	}
}

// TestGoRunDirsFromEnv computes the folders the way `go env` does, from
// the environment, the go env file and the defaults.
func TestGoRunDirsFromEnv(t *testing.T) {
	tmp := t.TempDir()
	cfgHome := filepath.Join(tmp, "config")
	cacheHome := filepath.Join(tmp, "cache")
	// os.UserCacheDir and os.UserConfigDir read these on Linux and the
	// other Unix systems; macOS and Windows have fixed folders.
	t.Setenv("XDG_CACHE_HOME", cacheHome)
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	userCache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no user cache folder: %v", err)
	}
	envFile := filepath.Join(tmp, "goenv")
	if err := os.WriteFile(envFile, []byte("GOPROXY=off\nGOCACHE="+filepath.Join(tmp, "from-file")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		env       map[string]string
		wantCache string
		wantTemp0 string // the first temporary folder
	}{
		{"defaults", map[string]string{"GOENV": "off"}, filepath.Join(userCache, "go-build"), os.TempDir()},
		{"GOCACHE set", map[string]string{"GOCACHE": filepath.Join(tmp, "gocache"), "GOENV": envFile}, filepath.Join(tmp, "gocache"), os.TempDir()},
		{"GOCACHE from go env -w", map[string]string{"GOENV": envFile}, filepath.Join(tmp, "from-file"), os.TempDir()},
		{"GOCACHE off", map[string]string{"GOCACHE": "off"}, "", os.TempDir()},
		{"GOCACHE relative: the go command refuses it", map[string]string{"GOCACHE": "rel/cache", "GOENV": "off"}, "", os.TempDir()},
		{"GOTMPDIR first", map[string]string{"GOTMPDIR": filepath.Join(tmp, "gotmp"), "GOENV": "off"}, filepath.Join(userCache, "go-build"), filepath.Join(tmp, "gotmp")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := GoRunDirsFromEnv(func(k string) string { return tt.env[k] })
			if want := resolve(tt.wantCache); tt.wantCache != "" && d.Cache != want || tt.wantCache == "" && d.Cache != "" {
				t.Errorf("Cache = %q, want %q", d.Cache, tt.wantCache)
			}
			if len(d.Temp) == 0 || d.Temp[0] != resolve(tt.wantTemp0) {
				t.Errorf("Temp = %q, want %q first", d.Temp, tt.wantTemp0)
			}
			if last := d.Temp[len(d.Temp)-1]; last != resolve(os.TempDir()) {
				t.Errorf("Temp = %q, want os.TempDir() last", d.Temp)
			}
		})
	}
}

// TestTemporaryBuild: a real cache folder from the environment, the way
// init calls it.
func TestTemporaryBuild(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "go-build")
	exe := filepath.Join(cache, "ab", "ab12-d", "memvault")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := filepath.EvalSymlinks(filepath.Dir(exe))
	if err != nil {
		t.Fatal(err)
	}
	exe = filepath.Join(exe, "memvault")
	env := map[string]string{"GOCACHE": cache, "GOENV": "off"}
	if !TemporaryBuild(exe, func(k string) string { return env[k] }) {
		t.Errorf("TemporaryBuild(%s) with GOCACHE=%s = false, want true", exe, cache)
	}
	env["GOCACHE"] = filepath.Join(filepath.Dir(cache), "elsewhere")
	if TemporaryBuild(exe, func(k string) string { return env[k] }) {
		t.Errorf("TemporaryBuild(%s) with another GOCACHE = true, want false", exe)
	}
}
