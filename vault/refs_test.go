package vault

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func manyRefs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("src/f%d.go", i)
	}
	return out
}

// deepGlob is a ref with n "**" segments.
func deepGlob(n int) string { return strings.Repeat("**/d/", n) + "*.go" }

// TestRefsLimits is the regression test for refs without limits (a
// memory with 28 "**" segments held a server's cores): a create or an
// update past a limit is refused with an error naming it, at the limit
// it is accepted.
func TestRefsLimits(t *testing.T) {
	t.Parallel()
	v := openTest(t, newClock("2026-11-30T10:00:00Z"))
	tests := []struct {
		name string
		refs []string
		want string // "" accepted
	}{
		{"at the count limit", manyRefs(MaxRefs), ""},
		{"one ref too many", manyRefs(MaxRefs + 1), fmt.Sprintf("refs: %d refs, limit %d (vault.MaxRefs)", MaxRefs+1, MaxRefs)},
		{"at the ** limit", []string{deepGlob(MaxRefGlobstars)}, ""},
		{"one ** too many", []string{"a.go", deepGlob(MaxRefGlobstars + 1)}, fmt.Sprintf(`has %d "**" segments, limit %d (vault.MaxRefGlobstars)`, MaxRefGlobstars+1, MaxRefGlobstars)},
		{"28 **", []string{deepGlob(28)}, `has 28 "**" segments, limit 4`},
		{"at the length limit", []string{strings.Repeat("a", MaxRefBytes)}, ""},
		{"too long", []string{strings.Repeat("a", MaxRefBytes+1)}, fmt.Sprintf("a ref of %d bytes, limit %d (vault.MaxRefBytes)", MaxRefBytes+1, MaxRefBytes)},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Create(t.Context(), NewMemory{Title: fmt.Sprintf("refs %d", i), Refs: tt.refs}, Author{})
			check := func(door string, err error) {
				t.Helper()
				switch {
				case tt.want == "" && err != nil:
					t.Errorf("%s: %v, want it accepted", door, err)
				case tt.want != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want)):
					t.Errorf("%s: %v, want ErrInvalid saying %q", door, err, tt.want)
				}
			}
			check("create", err)
			m := mustCreate(t, v, NewMemory{Title: fmt.Sprintf("update %d", i)})
			refs := slices.Clone(tt.refs)
			_, err = v.Update(t.Context(), m.ID, 0, Patch{Refs: &refs}, Author{})
			check("update", err)
		})
	}
}

// fixedProposer proposes the same refs for every text.
type fixedProposer []string

func (p fixedProposer) ProposeRefs(context.Context, string, []string) ([]string, error) {
	return p, nil
}

// TestAcceptRefsStopsAtTheLimit checks that accepted proposals fill a
// memory's refs up to MaxRefs and the rest stay proposed.
func TestAcceptRefsStopsAtTheLimit(t *testing.T) {
	t.Parallel()
	v, err := Open(t.Context(), t.TempDir(), Options{Proposer: fixedProposer{"x/a.go", "x/b.go", "x/c.go"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Create(t.Context(), NewMemory{Title: "full", Refs: manyRefs(MaxRefs - 1), AcceptRefs: true}, Author{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Memory.Refs); n != MaxRefs || !slices.Equal(res.ProposedRefs, []string{"x/b.go", "x/c.go"}) {
		t.Errorf("%d refs, proposed %q; want %d and the two that did not fit", n, res.ProposedRefs, MaxRefs)
	}
}

// TestLoadCapsRefs checks that a hand-written file past the limits loads
// with the refs that fit, and lint names the rest at the refs line.
func TestLoadCapsRefs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	refs := append([]string{deepGlob(28), strings.Repeat("b", MaxRefBytes+1)}, manyRefs(MaxRefs+6)...)
	writeFiles(t, dir, map[string]string{
		"project/hostile.md": "---\ntitle: Hostile refs\nimportance: 5\nrefs:\n  - '" + strings.Join(refs, "'\n  - '") + "'\n---\nbody\n",
	})
	v, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := v.Get("project/hostile")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Refs, manyRefs(MaxRefs)) {
		t.Errorf("loaded %d refs (first %q), want the first %d valid ones", len(m.Refs), m.Refs[:min(1, len(m.Refs))], MaxRefs)
	}
	var got []string
	for _, d := range v.Diagnostics() {
		if d.Field == "refs" {
			got = append(got, d.Error())
		}
	}
	want := []string{
		`project/hostile.md:4: refs: ref "` + deepGlob(28) + `" has 28 "**" segments, limit 4 (vault.MaxRefGlobstars): ignored`,
		fmt.Sprintf("project/hostile.md:4: refs: a ref of %d bytes, limit %d (vault.MaxRefBytes): ignored", MaxRefBytes+1, MaxRefBytes),
		fmt.Sprintf("project/hostile.md:4: refs: %d refs, limit %d (vault.MaxRefs): the 6 after the first %d are ignored", MaxRefs+6, MaxRefs, MaxRefs),
	}
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
