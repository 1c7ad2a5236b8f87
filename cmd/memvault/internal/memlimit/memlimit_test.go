package memlimit

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestFit(t *testing.T) {
	tests := []struct {
		name  string
		live  uint64
		limit int64
		want  int64
		set   bool
	}{
		{"small vault keeps the default", 40 << 20, Default, Default, false},
		{"half the limit exactly is left", Default / 2, Default, Default, false},
		{"large vault lifts it", 200 << 20, Default, 400 << 20, true},
		{"never lowers a user's limit", 200 << 20, 1 << 30, 1 << 30, false},
		{"no limit stays none", 1 << 30, math.MaxInt64, math.MaxInt64, false},
		{"absurd live heap ignored", math.MaxUint64, Default, Default, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got int64 = -1
			n := fit(tt.live, tt.limit, func(v int64) { got = v })
			if n != tt.want {
				t.Errorf("fit = %d, want %d", n, tt.want)
			}
			if set := got != -1; set != tt.set || (set && got != tt.want) {
				t.Errorf("set %v (%d), want set %v", set, got, tt.set)
			}
		})
	}
}

func TestApply(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	debug.SetMemoryLimit(1 << 40)
	if got := Apply(getenv); got != Default || debug.SetMemoryLimit(-1) != Default {
		t.Errorf("Apply without GOMEMLIMIT = %d, limit %d; want %d", got, debug.SetMemoryLimit(-1), Default)
	}
	// The runtime applied GOMEMLIMIT at start; Apply leaves what is in
	// force.
	env["GOMEMLIMIT"] = "1GiB"
	debug.SetMemoryLimit(1 << 30)
	if got := Apply(getenv); got != 1<<30 || debug.SetMemoryLimit(-1) != 1<<30 {
		t.Errorf("Apply with GOMEMLIMIT = %d, limit %d; want 1 GiB left in force", got, debug.SetMemoryLimit(-1))
	}
}

func TestOneShot(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tests := []struct {
		name    string
		env     map[string]string
		wantPct int // after OneShot
	}{
		{"collector off without GOGC", map[string]string{}, -1},
		{"GOGC in the environment wins", map[string]string{"GOGC": "200"}, 150},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(150) // as GOGC=150 would have set it
			restore := OneShot(func(k string) string { return tt.env[k] })
			if pct := debug.SetGCPercent(-1); pct != tt.wantPct {
				t.Errorf("GC percent after OneShot = %d, want %d", pct, tt.wantPct)
			}
			debug.SetGCPercent(tt.wantPct)
			restore()
			if pct := debug.SetGCPercent(100); pct != 150 {
				t.Errorf("GC percent after restore = %d, want 150", pct)
			}
		})
	}
}
