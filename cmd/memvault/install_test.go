package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// TestGoInstallFromModuleProxy installs memvault the way a user without a
// clone does, `go install github.com/memvault/memvault/cmd/memvault@VERSION`,
// from a file-based module proxy that serves this tree as that version,
// and runs the installed binary. It fails on anything that makes a
// published version uninstallable while `go install ./cmd/memvault` still
// works: a replace or exclude directive in go.mod (the Go command refuses
// them in a module installed by version), a file the module zip rules
// refuse (modzip.Create checks them as the go command does).
//
// Dependencies come from the real module cache, or the proxy in
// `go env GOPROXY`, so the build reuses the compiled packages in the build
// cache. The version is new on every run: the module cache never gives an
// earlier run's copy of the tree, and the test removes its own entries.
func TestGoInstallFromModuleProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles memvault from a module proxy: skipped with -short")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot run go install")
	}
	t.Parallel()

	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	modPath := modfile.ModulePath(gomod)
	if modPath == "" {
		t.Fatalf("%s/go.mod names no module", root)
	}
	var suffix [6]byte
	rand.Read(suffix[:])
	mod := module.Version{Path: modPath, Version: "v0.0.0-installtest-" + hex.EncodeToString(suffix[:])}

	goEnv := func(name string) string {
		out, err := exec.CommandContext(t.Context(), goCmd, "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	upstream, modCache := goEnv("GOPROXY"), goEnv("GOMODCACHE")

	proxy := t.TempDir()
	if err := writeModuleProxy(proxy, root, mod, gomod); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := removeFromModuleCache(modCache, mod); err != nil {
			t.Errorf("remove the test's version from the module cache: %v", err)
		}
	})

	gobin := t.TempDir()
	install := exec.CommandContext(t.Context(), goCmd, "install", modPath+"/cmd/memvault@"+mod.Version)
	install.Dir = t.TempDir() // outside any module, as a user's shell is
	install.Env = append(os.Environ(),
		"GOPROXY="+fileURL(proxy)+","+upstream,
		"GOBIN="+gobin,
		"GOWORK=off",
		// The version exists only in this proxy: the checksum database
		// does not know it. Dependencies are still checked against
		// go.sum, as for any user.
		"GONOSUMDB="+modPath,
		"GOPRIVATE=", "GONOPROXY=",
		// Extracted read-write, so that the cleanup can remove the tree.
		"GOFLAGS=-modcacherw",
	)
	start := time.Now()
	out, err := install.CombinedOutput()
	t.Logf("go install took %v", time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("go install %s/cmd/memvault@%s: %v\n%s", modPath, mod.Version, err, out)
	}

	exe := "memvault"
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	out, err = exec.CommandContext(t.Context(), filepath.Join(gobin, exe), "--version").CombinedOutput()
	if want := "memvault version " + mod.Version + "\n"; err != nil || string(out) != want {
		t.Errorf("installed memvault --version = %q, %v; want %q", out, err, want)
	}
}

// writeModuleProxy lays out dir as a GOPROXY serving the tree at root as
// module mod: $module/@v/list, and the version's .info, .mod and .zip.
func writeModuleProxy(dir, root string, mod module.Version, gomod []byte) error {
	files, err := moduleFiles(root)
	if err != nil {
		return err
	}
	var zip bytes.Buffer
	if err := modzip.Create(&zip, mod, files); err != nil {
		return fmt.Errorf("module zip of %s: %w", root, err)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{mod.Version, time.Now().UTC()})
	if err != nil {
		return err
	}
	escaped, err := module.EscapePath(mod.Path)
	if err != nil {
		return err
	}
	at := filepath.Join(dir, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"list":                []byte(mod.Version + "\n"),
		mod.Version + ".info": info,
		mod.Version + ".mod":  gomod,
		mod.Version + ".zip":  zip.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// moduleFiles lists what a release tagged from root would hold: the files
// git tracks or would add (not the ignored ones: built binaries, profiles),
// as they are in the working tree, so that the test sees uncommitted
// changes. modzip.Create then leaves out what a module zip never holds
// (nested modules, vendor folders, links). Outside a git work tree (an
// unpacked source archive) it is every file under root.
func moduleFiles(root string) ([]modzip.File, error) {
	ls := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	ls.Dir = root
	out, err := ls.Output()
	if err != nil {
		var all []modzip.File
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			all = append(all, treeFile{root: root, rel: filepath.ToSlash(rel)})
			return nil
		})
		return all, err
	}
	var files []modzip.File
	for _, rel := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		// Tracked but deleted in the working tree: not part of the tree.
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel))); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		files = append(files, treeFile{root: root, rel: rel})
	}
	return files, nil
}

// treeFile is a file of the tree for modzip.Create; rel is slash-separated.
type treeFile struct{ root, rel string }

func (f treeFile) Path() string { return f.rel }
func (f treeFile) Lstat() (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(f.root, filepath.FromSlash(f.rel)))
}
func (f treeFile) Open() (io.ReadCloser, error) {
	return os.Open(filepath.Join(f.root, filepath.FromSlash(f.rel)))
}

// removeFromModuleCache removes what installing mod put into the module
// cache: the extracted tree and the downloaded files of that version.
func removeFromModuleCache(modCache string, mod module.Version) error {
	escaped, err := module.EscapePath(mod.Path)
	if err != nil {
		return err
	}
	escVer, err := module.EscapeVersion(mod.Version)
	if err != nil {
		return err
	}
	tree := filepath.Join(modCache, filepath.FromSlash(escaped)+"@"+escVer)
	errs := []error{os.RemoveAll(tree)}
	download := filepath.Join(modCache, "cache", "download", filepath.FromSlash(escaped), "@v")
	matches, err := filepath.Glob(filepath.Join(download, escVer+".*"))
	errs = append(errs, err)
	for _, m := range matches {
		errs = append(errs, os.Remove(m))
	}
	// The go command adds each version it downloads to the list.
	list := filepath.Join(download, "list")
	if data, err := os.ReadFile(list); err == nil {
		var keep []string
		for _, v := range strings.Fields(string(data)) {
			if v != mod.Version {
				keep = append(keep, v)
			}
		}
		if len(keep) == 0 {
			errs = append(errs, os.Remove(list))
		} else {
			errs = append(errs, os.WriteFile(list, []byte(strings.Join(keep, "\n")+"\n"), 0o644))
		}
	}
	// Folders only this test made; still in use (a real version cached,
	// another run in flight) they are not empty and stay.
	for _, d := range []string{download, filepath.Dir(download), filepath.Dir(filepath.Dir(download)), filepath.Dir(tree)} {
		os.Remove(d)
	}
	return errors.Join(errs...)
}

// fileURL is dir as a file:// URL for GOPROXY.
func fileURL(dir string) string {
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x → /C:/x
	}
	return "file://" + p
}
