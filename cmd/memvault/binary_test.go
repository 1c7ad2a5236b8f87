package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// testBinary is the real memvault binary the end-to-end tests start. It is
// built at most once per run of the package's tests (see buildMemvault):
// the first test that needs the binary builds it, and every later one gets
// the same path. Building it lazily keeps `go test -run` of tests that
// never start it from paying for a link.
var testBinary struct {
	dir  string // a folder for this run, set by withBinaryDir.Run before any test runs
	once sync.Once
	path string
	err  error
}

// withBinaryDir runs the tests with a folder for testBinary; testscript
// calls its Run only in the top-level test process, not when the test
// binary runs as the memvault command.
type withBinaryDir struct{ m *testing.M }

func (w withBinaryDir) Run() int {
	dir, err := os.MkdirTemp("", "memvault-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "memvault tests:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	testBinary.dir = dir
	return w.m.Run()
}

// buildMemvault returns the path of the memvault binary, built from this
// package (without -race, whatever the tests run with) the first time a
// test asks. It is built into a folder kept between runs, one per copy of
// the source: go build leaves an up-to-date binary as it is, and linking
// a new one costs about 4 s of CPU, which a run that changed only tests
// need not pay. go build renames the new binary into place, so a second
// run at the same time still starts a whole one.
func buildMemvault(t testing.TB) string {
	t.Helper()
	testBinary.once.Do(func() {
		src, err := os.Getwd()
		if err != nil {
			testBinary.err = err
			return
		}
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("memvault-test-bin-%x", sha256.Sum256([]byte(src))))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			testBinary.err = err
			return
		}
		bin := filepath.Join(dir, "memvault")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			testBinary.err = fmt.Errorf("go build: %w\n%s", err, out)
			return
		}
		testBinary.path = bin
	})
	if testBinary.err != nil {
		t.Fatal(testBinary.err)
	}
	return testBinary.path
}

// scriptBinary is the memvault the scripts run when the tests run with
// -race (see scriptMemvaultDir), built at most once per run.
var scriptBinary struct {
	once sync.Once
	dir  string
	err  error
}

// scriptMemvaultDir returns the folder of the memvault command the scripts
// run: this package's test binary built without -race, which acts as the
// memvault command (TestMain) just as the running one does. Under -race
// every command the scripts start (about 150) would otherwise be
// instrumented, three to four times the CPU of the command itself, for
// single-goroutine CLI runs whose races the in-process tests already
// look for. It returns "" when the tests run without -race: testscript's
// copy of the running binary is that binary already.
func scriptMemvaultDir(t testing.TB) string {
	t.Helper()
	if !raceEnabled {
		return ""
	}
	scriptBinary.once.Do(func() {
		dir := filepath.Join(testBinary.dir, "script")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			scriptBinary.err = err
			return
		}
		if out, err := exec.Command("go", "test", "-c", "-o", filepath.Join(dir, "memvault"), ".").CombinedOutput(); err != nil {
			scriptBinary.err = fmt.Errorf("go test -c: %w\n%s", err, out)
			return
		}
		scriptBinary.dir = dir
	})
	if scriptBinary.err != nil {
		t.Fatal(scriptBinary.err)
	}
	return scriptBinary.dir
}

// skipLongUnderShort skips t under -short. It marks this package's tests
// that take 0.3 s or more alone (go test -short -count=1 -p 1 -parallel 1
// -json ./...), most of the package's -short time (docs/performance.md,
// "Test and CI time, issue 25"). They are end-to-end runs across git clones,
// servers and hooks, and CI runs them. Other packages skip their tests
// that run git and take as long the same way.
func skipLongUnderShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("0.3 s or more alone: runs without -short, as CI does")
	}
}
