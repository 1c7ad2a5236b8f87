package main

import (
	"bytes"
	"crypto/sha256"
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
// The install has a module cache of its own, in a temporary folder, so
// that nothing another run or another checkout does to the machine's
// module cache can meet it, and nothing is left behind. Dependencies come
// from the machine's module cache as a file proxy (or the proxy in
// `go env GOPROXY`). The version is named by a hash of the tree and the
// build is -trimpath, so the build cache keys name the module and version,
// not the folder: a second run of the same tree compiles nothing, where a
// new version each run compiled every package of memvault anew
// (docs/performance.md, "Test and CI time, issue 25").
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
	files, err := moduleFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := treeHash(files)
	if err != nil {
		t.Fatal(err)
	}
	mod := module.Version{Path: modPath, Version: "v0.0.0-installtest-" + tree[:16]}

	goEnv := func(name string) string {
		out, err := exec.CommandContext(t.Context(), goCmd, "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	upstream, machineCache := goEnv("GOPROXY"), goEnv("GOMODCACHE")

	proxy := t.TempDir()
	if err := writeModuleProxy(proxy, mod, gomod, files); err != nil {
		t.Fatal(err)
	}

	gobin := t.TempDir()
	install := exec.CommandContext(t.Context(), goCmd, "install", modPath+"/cmd/memvault@"+mod.Version)
	install.Dir = t.TempDir() // outside any module, as a user's shell is
	install.Env = append(os.Environ(),
		"GOPROXY="+fileURL(proxy)+","+fileURL(filepath.Join(machineCache, "cache", "download"))+","+upstream,
		"GOMODCACHE="+t.TempDir(),
		"GOBIN="+gobin,
		"GOWORK=off",
		// The version exists only in this proxy: the checksum database
		// does not know it. Dependencies are still checked against
		// go.sum, as for any user.
		"GONOSUMDB="+modPath,
		"GOPRIVATE=", "GONOPROXY=",
		// Extracted read-write, so that TempDir's cleanup can remove the
		// module cache; -trimpath, so that the build cache is shared with
		// the next run of the same tree (see above).
		"GOFLAGS=-modcacherw -trimpath",
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
func writeModuleProxy(dir string, mod module.Version, gomod []byte, files []modzip.File) error {
	var zip bytes.Buffer
	if err := modzip.Create(&zip, mod, files); err != nil {
		return fmt.Errorf("module zip of %s: %w", mod, err)
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

// treeHash is the SHA-256, in hex, of the files' paths and contents, in
// order: the same tree gets the same version.
func treeHash(files []modzip.File) (string, error) {
	h := sha256.New()
	for _, f := range files {
		r, err := f.Open()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00", f.Path())
		_, err = io.Copy(h, r)
		r.Close()
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", f.Path(), err)
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// fileURL is dir as a file:// URL for GOPROXY.
func fileURL(dir string) string {
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x → /C:/x
	}
	return "file://" + p
}
