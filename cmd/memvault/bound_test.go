package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault"
)

// TestCLIRefusesLargeQuery is the regression test, through the command
// line, for a huge query whose recall ran for minutes: recall and why
// refuse a 1 MB query at once with exit status 1, a message naming the
// limit and the size, and no output; a query at the limit is answered.
func TestCLIRefusesLargeQuery(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	r.addMemory("Deploy with the ops script", "Run ops/deploy.sh from the repo root.")
	const piece = "deploy kakalomi 部署脚本 "
	huge := strings.Repeat(piece, (1<<20)/len(piece))
	huge += strings.Repeat("x", 1<<20-len(huge))
	want := fmt.Sprintf("query too large: %d bytes, limit %d", 1<<20, vault.MaxQueryBytes)
	for _, args := range [][]string{{"recall", huge}, {"recall", "--json", huge}, {"why", huge}} {
		code, out := r.run("", args...)
		if code != exitUsage || out != "" || !strings.Contains(r.lastStderr, want) {
			t.Errorf("memvault %s <1 MB>: exit %d, stdout %q, stderr %q; want exit %d and %q",
				strings.Join(args[:len(args)-1], " "), code, out, r.lastStderr, exitUsage, want)
		}
	}
	atLimit := strings.Repeat("deploy ops ", vault.MaxQueryBytes/11)
	atLimit += strings.Repeat("x", vault.MaxQueryBytes-len(atLimit))
	if out := r.ok("recall", atLimit); !strings.Contains(out, "Deploy with the ops script") {
		t.Errorf("recall at the limit:\n%s\nwant the deploy memory", out)
	}
}
