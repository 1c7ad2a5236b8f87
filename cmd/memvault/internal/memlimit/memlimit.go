package memlimit

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
)

// Default is the soft memory limit of a memvault process when GOMEMLIMIT
// does not set one. With the runtime's default of a heap twice the live
// one, a load of a 100k-memory vault from its files (bodies spooled to a
// mapped file, see vault/spool.go) peaked well above the 300 MB target
// (docs/performance.md, "A load from the files: bodies spooled, a soft
// memory limit"). Under this limit the collector runs more often near
// the peak instead, and a smaller vault never reaches it.
const Default = 256 << 20

// Apply sets the runtime's soft memory limit to Default unless the
// environment sets one (GOMEMLIMIT, which the runtime has applied
// already), and returns the limit in force.
func Apply(getenv func(string) string) int64 {
	if getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1)
	}
	debug.SetMemoryLimit(Default)
	return Default
}

// OneShot turns the collector's own pacing off (GOGC=off) unless the
// environment sets GOGC, for a command that loads a vault, answers once
// and exits: below the memory limit nothing is collected, near it the
// limit makes the collector run. A warm recall spent part of its CPU
// collecting a heap it was about to drop by exiting (docs/performance.md,
// "Warm CLI recall (2026-12-02, 4871474)"). restore puts the pacing back
// as it was: a load
// that reads every file or patches its index calls it, so that its peak
// stays where the pacing kept it.
func OneShot(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(-1)
	return func() { debug.SetGCPercent(old) }
}

// Fit raises the limit to twice the live heap when that is above it, and
// returns the limit in force. Called after a vault's load: a vault whose
// live heap comes near the limit would otherwise keep the collector
// running (the runtime caps that at about half the CPU) for as long as the
// process lives. It never lowers the limit.
func Fit() int64 {
	return fit(liveHeap(), debug.SetMemoryLimit(-1), func(n int64) { debug.SetMemoryLimit(n) })
}

// fit is Fit's rule over its inputs.
func fit(live uint64, limit int64, set func(int64)) int64 {
	if live > math.MaxInt64/2 {
		return limit
	}
	if want := 2 * int64(live); want > limit {
		set(want)
		return want
	}
	return limit
}

// liveHeap is the heap the last collection marked live, in bytes.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
