package vault

import "slices"

// Transition names how a memory went from before to after, both
// present, as history's diff and the session digest tell it:
// "superseded" or "archived" when its status became so, else "changed".
func Transition(before, after *Memory) string {
	switch {
	case after.Status == StatusSuperseded && before.Status != StatusSuperseded:
		return "superseded"
	case after.Status == StatusArchived && before.Status != StatusArchived:
		return "archived"
	default:
		return "changed"
	}
}

// NewSupersedes lists, as Refs without titles, the ids after supersedes
// that before did not; all of them when before is nil (a new memory).
func NewSupersedes(before, after *Memory) []Ref {
	var out []Ref
	for _, id := range after.Supersedes {
		if before == nil || !slices.Contains(before.Supersedes, id) {
			out = append(out, Ref{ID: id})
		}
	}
	return out
}
