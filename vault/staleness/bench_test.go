package staleness

import (
	"fmt"
	"strings"
	"testing"
)

// deepPath is a file depth folders deep.
func deepPath(depth int) string {
	var b strings.Builder
	for i := range depth {
		fmt.Fprintf(&b, "d%02d/", i+1)
	}
	return b.String() + "f.go"
}

// deepGlobRef is a ref of stars "**" segments matching no .go file: the
// shape that made the backtracking matcher try every split of a deep
// path (issue 27: show took 0.6 s with 8, 13 s with 12, over 120 s with 16,
// for a file 17 folders deep).
func deepGlobRef(stars int) string { return strings.Repeat("**/", stars) + "*.md" }

// benchStars are the "**" counts measured; past MaxRefGlobstars (4) a
// ref is refused at every door, so the larger ones are built here,
// bypassing the cap.
var benchStars = []int{4, 8, 12, 16, 32}

// BenchmarkGlobMatch matches a ref of n "**" segments against a path 17
// folders deep: the linear matcher, and the backtracking one it replaced
// where it finishes (skipped past 12 segments, which take seconds: run it
// with -benchtime 1x).
func BenchmarkGlobMatch(b *testing.B) {
	segs := strings.Split(deepPath(17), "/")
	for _, stars := range benchStars {
		pat := strings.Split(deepGlobRef(stars), "/")
		b.Run(fmt.Sprintf("linear/stars=%d", stars), func(b *testing.B) {
			for b.Loop() {
				if globMatch(pat, segs, segmentMatch) {
					b.Fatal("matched")
				}
			}
		})
		b.Run(fmt.Sprintf("backtrack/stars=%d", stars), func(b *testing.B) {
			if stars > 12 {
				b.Skip("exponential: 16 segments ran over 120 s in the issue")
			}
			for b.Loop() {
				if backtrackGlobMatch(pat, segs, segmentMatch) {
					b.Fatal("matched")
				}
			}
		})
	}
}

// BenchmarkStalenessDeepGlob is the staleness check `show` makes for a
// memory whose one ref has n "**" segments, after a commit touched a file
// 17 folders deep: a new tracker's Update (the walk, matching each
// changed path against the ref) and States.
func BenchmarkStalenessDeepGlob(b *testing.B) {
	for _, stars := range benchStars {
		b.Run(fmt.Sprintf("stars=%d", stars), func(b *testing.B) {
			g := newFakeGit()
			g.commit("init", map[string]string{deepPath(17): "package f\n"})
			g.commit("memory: add", map[string]string{".memory/m.md": "m"})
			g.commit("touch", map[string]string{deepPath(17): "package f // 2\n"})
			item := Item{ID: "m", Since: g.memorySince(), Refs: []string{deepGlobRef(stars)}}
			for b.Loop() {
				tr := NewTracker(g)
				if err := tr.Update(b.Context(), []Item{item}); err != nil {
					b.Fatal(err)
				}
				st, err := tr.States(b.Context(), []string{"m"})
				if err != nil || st["m"].State != Fresh {
					b.Fatalf("%+v, %v; want fresh", st, err)
				}
			}
		})
	}
}
