package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts what a developer asked for to find where a process
// spends its time (docs/performance.md, "Start-up and recall latency, issue 25"):
// MEMVAULT_CPUPROFILE names a file for a CPU profile and MEMVAULT_TRACE
// one for an execution trace, both of the whole process, written when it
// exits normally (a server: when its client closes standard input). They
// are environment variables, not flags, so that a server an MCP client
// spawns can be profiled without changing the client's command line. The
// returned function stops them; a failure to start one is reported on
// stderr and the process runs without it.
func startProfiles(getenv func(string) string, stderr *os.File) (stop func()) {
	var stops []func()
	if p := getenv("MEMVAULT_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err != nil {
			fmt.Fprintf(stderr, "memvault: MEMVAULT_CPUPROFILE: %v\n", err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "memvault: MEMVAULT_CPUPROFILE: %v\n", err)
			f.Close()
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if p := getenv("MEMVAULT_TRACE"); p != "" {
		if f, err := os.Create(p); err != nil {
			fmt.Fprintf(stderr, "memvault: MEMVAULT_TRACE: %v\n", err)
		} else if err := trace.Start(f); err != nil {
			fmt.Fprintf(stderr, "memvault: MEMVAULT_TRACE: %v\n", err)
			f.Close()
		} else {
			stops = append(stops, func() { trace.Stop(); f.Close() })
		}
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
