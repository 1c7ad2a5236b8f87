package vault

import (
	"testing"
	"time"
)

func TestOnlyConfirmed(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	base := &Memory{ID: "01A", Title: "Deploys", Body: "Two approvals.", Version: 2, UpdatedAt: t0}
	with := func(f func(m *Memory)) *Memory {
		m := base.Clone()
		f(m)
		return m
	}
	tests := []struct {
		name          string
		before, after *Memory
		want          bool
	}{
		{"confirm", base, with(func(m *Memory) { m.VerifiedAt = t0.Add(time.Hour) }), true},
		{"confirm again", with(func(m *Memory) { m.VerifiedAt = t0.Add(time.Hour) }), with(func(m *Memory) { m.VerifiedAt = t0.Add(2 * time.Hour) }), true},
		{"confirm with a body change", base, with(func(m *Memory) { m.VerifiedAt = t0.Add(time.Hour); m.Body = "Three." }), false},
		{"update", base, with(func(m *Memory) { m.Title = "Deploys!"; m.Version = 3 }), false},
		{"no change", base, base, false},
		{"added", nil, base, false},
		{"deleted", base, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := OnlyConfirmed(tc.before, tc.after); got != tc.want {
				t.Errorf("OnlyConfirmed = %v, want %v", got, tc.want)
			}
		})
	}
}
