package main

import (
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/live"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/watcher"
)

// liveBenchMemory is a memory file for the live benchmarks.
func liveBenchMemory(id, title, body string) []byte {
	return fmt.Appendf(nil, "---\nid: %s\ntitle: %s\nimportance: 5\nstatus: active\nversion: 1\n---\n\n%s\n", id, title, body)
}

// liveBenchVault writes n memories across the layer folders of dir.
func liveBenchVault(b *testing.B, dir string, n int) {
	b.Helper()
	layers := []string{"project", "short-term", "preferences", "meta"}
	for _, l := range layers {
		if err := os.MkdirAll(filepath.Join(dir, l), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for i := range n {
		p := filepath.Join(dir, layers[i%len(layers)], fmt.Sprintf("m%05d.md", i))
		body := fmt.Sprintf("Memory %d about the build, deploy and test conventions of service %d.", i, i%97)
		if err := os.WriteFile(p, liveBenchMemory(fmt.Sprintf("m-%05d", i), fmt.Sprintf("Convention %d", i), body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

func liveQuietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func livePercentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p * float64(len(sorted)-1))
	return sorted[i]
}

// BenchmarkLiveHandEditLatency measures how long a hand edit takes to
// show in recall through the server's live wiring (default options):
// from the file written to recall returning the new text, on a
// 1,000-memory vault. Target: p99 under 250 ms.
func BenchmarkLiveHandEditLatency(b *testing.B) {
	dir := b.TempDir()
	liveBenchVault(b, dir, 1000)
	v, err := vault.Open(b.Context(), dir, vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	stop, err := live.StartWith(b.Context(), v, liveQuietLogger(), watcher.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	changed := make(chan struct{}, 1)
	cancel := v.Subscribe(func(vault.Change) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer cancel()
	p := filepath.Join(dir, "project", "m00000.md")
	var lat []time.Duration
	i := 0
	for b.Loop() {
		word := "edit" + liveWord(i)
		i++
		start := time.Now()
		if err := os.WriteFile(p, liveBenchMemory("m-00000", "Convention 0", "Now "+word+" is the rule."), 0o644); err != nil {
			b.Fatal(err)
		}
		// Look after each index change rather than spinning: a busy loop
		// would take a core from the watcher on a small machine.
		for {
			res := v.Recall(vault.Query{Text: word, Limit: 1})
			if len(res) > 0 && strings.Contains(res[0].Memory.PlainText(), word) {
				break
			}
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				b.Fatalf("edit %d never became visible", i)
			}
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(livePercentile(lat, 0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(livePercentile(lat, 0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
}

// BenchmarkLiveBranchSwitch measures a `git checkout` that changes 1,000
// files of a 10,000-memory vault (400 edited, 300 deleted, 300 added),
// from the command's start until the index equals a fresh load of the
// new branch. Iterations alternate between the branches. Target: < 2 s.
func BenchmarkLiveBranchSwitch(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	isolateGit(b)
	root := b.TempDir()
	dir := filepath.Join(root, ".memory")
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	const n, changed = 10000, 1000
	liveBenchVault(b, dir, n)
	git("add", "-A")
	git("commit", "-q", "-m", "main")
	git("checkout", "-q", "-b", "other")
	layers := []string{"project", "short-term", "preferences", "meta"}
	for k := range changed {
		i := k * (n / changed) // spread over the vault
		p := filepath.Join(dir, layers[i%len(layers)], fmt.Sprintf("m%05d.md", i))
		var err error
		switch {
		case k < 400:
			err = os.WriteFile(p, liveBenchMemory(fmt.Sprintf("m-%05d", i), fmt.Sprintf("Convention %d", i), "Changed on the other branch."), 0o644)
		case k < 700:
			err = os.Remove(p)
		default:
			err = os.WriteFile(filepath.Join(dir, "project", fmt.Sprintf("new%05d.md", k)), liveBenchMemory(fmt.Sprintf("new-%05d", k), fmt.Sprintf("Branch memory %d", k), "Only on other."), 0o644)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	git("add", "-A")
	git("commit", "-q", "-m", "other")

	// What each branch must look like, from fresh loads.
	want := map[string]map[string]string{}
	for _, br := range []string{"other", "main"} {
		git("checkout", "-q", br)
		fresh, err := vault.Open(b.Context(), dir, vault.Options{})
		if err != nil {
			b.Fatal(err)
		}
		want[br] = liveState(fresh)
	}

	git("checkout", "-q", "main")
	for _, mode := range []struct {
		name      string
		threshold int
	}{
		{"file-by-file", 0}, // the default: 1,000 files are under the threshold
		{"full-reload", 1},  // what a larger switch does
	} {
		b.Run(mode.name, func(b *testing.B) {
			liveSwitchBranches(b, root, dir, want, watcher.Options{ReloadThreshold: mode.threshold})
		})
	}
}

// liveSwitchBranches times checkouts between main and other, starting on
// main, until the live index equals want for the branch.
func liveSwitchBranches(b *testing.B, root, dir string, want map[string]map[string]string, opts watcher.Options) {
	v, err := vault.Open(b.Context(), dir, vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	batches := make(chan watcher.Batch, 16)
	opts.OnBatch = func(x watcher.Batch) { batches <- x }
	stop, err := live.StartWith(b.Context(), v, liveQuietLogger(), opts)
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	var times []time.Duration
	var full int
	br := "main"
	for b.Loop() {
		br = map[string]string{"main": "other", "other": "main"}[br]
		start := time.Now()
		cmd := exec.Command("git", "checkout", "-q", br)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git checkout %s: %v\n%s", br, err, out)
		}
		for !maps.Equal(liveState(v), want[br]) {
			select {
			case x := <-batches:
				if x.Full {
					full++
				}
			case <-time.After(30 * time.Second):
				b.Fatalf("checkout of %s never fully reflected", br)
			}
		}
		times = append(times, time.Since(start))
	}
	if br == "other" {
		// Leave the repository on main for the next sub-benchmark.
		cmd := exec.Command("git", "checkout", "-q", "main")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git checkout main: %v\n%s", err, out)
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(livePercentile(times, 0.5).Microseconds())/1000, "p50-ms/switch")
	b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "max-ms/switch")
	b.ReportMetric(float64(full)/float64(len(times)), "full-reloads/switch")
}

// liveState is each memory's path and content hash by id.
func liveState(v *vault.Vault) map[string]string {
	out := map[string]string{}
	for _, m := range v.All() {
		out[m.ID] = m.Path + " " + m.Hash
	}
	return out
}
