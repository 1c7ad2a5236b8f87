package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestJSONSchemaInitIsCheap checks, with the runtime's own init trace, that
// the JSON-schema module mcp-go's server links no longer compiles its
// meta-schemas when a memvault process starts: upstream v6.0.2 makes
// 21,290 allocations there (1.7 MB, 3-5 ms of every command), the patched
// copy 159 (go.mod's replace; PATCHED.md in
// internal/thirdparty/jsonschema). A newer mcp-go or jsonschema taken
// without the patch fails this test.
func TestJSONSchemaInitIsCheap(t *testing.T) {
	t.Parallel()
	cmd := exec.CommandContext(t.Context(), buildMemvault(t), "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("memvault --version: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(?m)^init github\.com/santhosh-tekuri/jsonschema/v6 @.*, ([0-9]+) bytes, ([0-9]+) allocs$`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no init trace line for github.com/santhosh-tekuri/jsonschema/v6 (if it is no longer linked, drop its replace in go.mod and this test):\n%s", out)
	}
	allocs, err := strconv.Atoi(string(m[2]))
	if err != nil {
		t.Fatal(err)
	}
	if allocs > 2000 {
		t.Errorf("jsonschema's init made %d allocations (%s bytes), want at most 2000: are the meta-schemas compiled in init again?", allocs, m[1])
	}
}
