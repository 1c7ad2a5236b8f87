package gitstore

import (
	"context"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/google/go-cmp/cmp"
)

// BenchmarkReadPaths times every read path three ways on the full
// comparison repository (readpaths_repo_test.go): gitstore, go-git's
// public API and the git CLI, after checking that each gives gitstore's
// answer (or differs for the reason readCases records). "cold" opens the
// repository for every call, as a `memvault` command does; "warm" reuses
// one Store or go-git Repository, as the MCP server does. The CLI is
// always cold: every call starts git processes.
//
//	go test ./gitstore -run '^$' -bench '^BenchmarkReadPaths$' -benchtime 5x -count 5
//
// Sub-benchmarks are named path=<read path>/impl=<implementation>/open=<mode>,
// so `benchstat -col /impl` lines the implementations up.
func BenchmarkReadPaths(b *testing.B) {
	if gitPath() == "" {
		b.Skip("git CLI not installed")
	}
	rr := fullReadRepo(b)
	ctx := context.Background()
	for _, rc := range readCases(rr) {
		b.Run("path="+rc.name, func(b *testing.B) {
			if rc.setup != nil {
				rc.setup(b, rr)
			}
			ref, err := runImpl(ctx, rr.dir, rc.impls[0])
			if err != nil {
				b.Fatal(err)
			}
			want := lines(ref)
			if rc.check != nil {
				rc.check(b, rr, want)
			}
			for _, im := range rc.impls {
				modes := []string{"cold", "warm"}
				if im.cli != nil || im.coldOnly {
					modes = modes[:1]
				}
				for _, mode := range modes {
					b.Run("impl="+im.name+"/open="+mode, func(b *testing.B) {
						benchReadImpl(b, rr, rc, im, mode == "warm", want)
					})
				}
			}
		})
	}
}

func benchReadImpl(b *testing.B, rr *readRepo, rc readCase, im readImpl, warm bool, want []string) {
	ctx := context.Background()
	run := func() ([]rec, error) { return runImpl(ctx, rr.dir, im) }
	if warm {
		switch {
		case im.store != nil:
			s, err := Open(ctx, rr.dir)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			run = func() ([]rec, error) { return im.store(ctx, s) }
		case im.repo != nil:
			r, err := git.PlainOpen(rr.dir)
			if err != nil {
				b.Fatal(err)
			}
			defer closeRepo(r)
			run = func() ([]rec, error) { return im.repo(ctx, r) }
		}
	}
	check := func(got []rec) {
		diff := cmp.Diff(want, lines(got))
		if _, known := rc.differs[im.name]; diff != "" && !known {
			b.Fatalf("%s differs from gitstore (-gitstore +%s):\n%s", im.name, im.name, diff)
		}
	}
	if warm {
		// The first call fills the caches and checks the answer.
		got, err := run()
		if err != nil {
			b.Fatal(err)
		}
		check(got)
	}
	var samples []time.Duration
	cpu0 := cpuTime()
	for b.Loop() {
		t0 := time.Now()
		got, err := run()
		if err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(t0))
		if len(samples) == 1 && !warm {
			b.StopTimer()
			c0 := cpuTime()
			check(got)
			cpu0 += cpuTime() - c0 // not the implementation's cost
			b.StartTimer()
		}
	}
	reportPercentiles(b, samples, cpu0)
}
