package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// testBinary is the real memvault binary the end-to-end tests start. It is
// built at most once per run of the package's tests: TestMain makes the
// folder and removes it afterwards, the first test that needs the binary
// builds it there, and every later one gets the same path. Building it
// lazily keeps `go test -run` of tests that never start it from paying
// for a link.
var testBinary struct {
	dir  string // set by withBinaryDir.Run before any test runs
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
// test asks.
func buildMemvault(t testing.TB) string {
	t.Helper()
	testBinary.once.Do(func() {
		bin := filepath.Join(testBinary.dir, "memvault")
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
