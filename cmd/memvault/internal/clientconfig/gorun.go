package clientconfig

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// GoRunDirs are the folders where `go run` leaves the binaries it builds.
// A client configuration must not point into them.
type GoRunDirs struct {
	// Temp holds the go command's work folders, go-build*: GOTMPDIR, else
	// the system's temporary folder. Before Go 1.24 `go run` ran its
	// binary from there and deleted it on exit; since, a run that links
	// the binary anew still does.
	Temp []string
	// Cache is the build cache (go env GOCACHE). Since Go 1.24 `go run`
	// caches its binaries there, under GOCACHE/xx/<hash>-d/, and they go
	// when the cache is trimmed or cleaned. Empty when the cache is off.
	Cache string
}

// GoRunDirsFromEnv computes the folders as the go command does, without
// running it: GOTMPDIR, else os.TempDir(); GOCACHE from the environment,
// else from the go env file (GOENV, else the user config folder's
// go/env, as `go env -w` writes it), else the user cache folder +
// "go-build"; GOCACHE=off means no cache. getenv reads the environment.
// Folders are given with symbolic links resolved (macOS's /tmp is
// /private/tmp), to compare with a resolved executable path.
func GoRunDirsFromEnv(getenv func(string) string) GoRunDirs {
	var d GoRunDirs
	if t := getenv("GOTMPDIR"); t != "" {
		d.Temp = append(d.Temp, resolve(t))
	}
	d.Temp = append(d.Temp, resolve(os.TempDir()))
	cache := goEnv(getenv, "GOCACHE")
	if cache == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			cache = filepath.Join(dir, "go-build")
		}
	}
	// The go command refuses a relative GOCACHE, so nothing is cached there.
	if cache != "off" && filepath.IsAbs(cache) {
		d.Cache = resolve(cache)
	}
	return d
}

// Holds reports whether exe, an absolute path with symbolic links
// resolved, is a binary `go run` built: in a go-build* folder of a
// temporary folder, or anywhere in the build cache.
func (d GoRunDirs) Holds(exe string) bool {
	for _, t := range d.Temp {
		if rel, ok := within(t, exe); ok && strings.HasPrefix(rel, "go-build") {
			return true
		}
	}
	if d.Cache != "" {
		if _, ok := within(d.Cache, exe); ok {
			return true
		}
	}
	return false
}

// TemporaryBuild reports whether exe (absolute, symbolic links resolved)
// is a binary `go run` built, which goes away when it exits or when the
// build cache is trimmed: the folders are those of the environment
// getenv reads.
func TemporaryBuild(exe string, getenv func(string) string) bool {
	return GoRunDirsFromEnv(getenv).Holds(exe)
}

// within returns path relative to dir when path is inside dir.
func within(dir, path string) (string, bool) {
	if dir == "" {
		return "", false
	}
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	if !strings.HasPrefix(path, prefix) {
		return "", false
	}
	return path[len(prefix):], true
}

// goEnv reads a go variable as the go command does: the environment
// first, then the go env file.
func goEnv(getenv func(string) string, key string) string {
	if v := getenv(key); v != "" {
		return v
	}
	file := getenv("GOENV")
	if file == "off" {
		return ""
	}
	if file == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return ""
		}
		file = filepath.Join(dir, "go", "env")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	v := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		// The last setting wins, as in the go command.
		if k, val, ok := strings.Cut(sc.Text(), "="); ok && k == key {
			v = val
		}
	}
	return v
}

func resolve(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return filepath.Clean(dir)
}
