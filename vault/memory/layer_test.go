package memory

import (
	"testing"
	"time"
)

func TestDecay(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	mem := func(l Layer, importance int) *Memory {
		return &Memory{Layer: l, Importance: importance, CreatedAt: t0, UpdatedAt: t0}
	}
	tests := []struct {
		name string
		m    *Memory
		age  time.Duration
		want func(float64) bool
		desc string
	}{
		{"L3 inside protection", mem(Project, 5), 44 * day, func(f float64) bool { return f == 1 }, "== 1"},
		{"L3 just after protection", mem(Project, 5), 46 * day, func(f float64) bool { return f < 1 && f > 0.99 }, "slightly below 1"},
		{"L3 one half-life after protection", mem(Project, 5), 45*day + 90*day, func(f float64) bool { return approx(f, 0.35+0.65*0.5) }, "floor + half"},
		{"L3 importance 8 never decays", mem(Project, 8), 5 * 365 * day, func(f float64) bool { return f == 1 }, "== 1"},
		{"L4 importance 9 never decays", mem(Preference, 9), 10 * 365 * day, func(f float64) bool { return f == 1 }, "== 1"},
		{"L3 very old keeps its floor", mem(Project, 5), 20 * 365 * day, func(f float64) bool { return approx(f, 0.35) }, "≈ floor 0.35"},
		{"L1 half-life 30 minutes", mem(Transient, 9), 30 * time.Minute, func(f float64) bool { return approx(f, 0.05+0.95*0.5) }, "floor + half"},
		{"L2 no protection", mem(ShortTerm, 5), 3 * day, func(f float64) bool { return approx(f, 0.1+0.9*0.5) }, "floor + half"},
		{"L5 never decays", mem(Meta, 1), 10 * 365 * day, func(f float64) bool { return f == 1 }, "== 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Decay(tt.m, t0.Add(tt.age)); !tt.want(got) {
				t.Errorf("Decay = %v, want %s", got, tt.desc)
			}
		})
	}
}

func approx(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestMaxWeightBoundsWeight checks the bound the index prunes with: no
// layer, importance or age may give a larger weight.
func TestMaxWeightBoundsWeight(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, l := range AllLayers() {
		t.Run(l.String(), func(t *testing.T) {
			for imp := 0; imp <= 11; imp++ {
				for _, age := range []time.Duration{-time.Hour, 0, time.Minute, 50 * 24 * time.Hour, 5000 * 24 * time.Hour} {
					m := &Memory{Layer: l, Importance: imp, CreatedAt: created, UpdatedAt: created}
					if got, bound := Weight(m, created.Add(age)), MaxWeight(); got > bound {
						t.Errorf("Weight(importance %d, age %v) = %v, above MaxWeight %v", imp, age, got, bound)
					}
				}
			}
		})
	}
}
