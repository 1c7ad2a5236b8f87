package doctor

import "strings"

// unmerged names the files an operation stopped on a conflict left
// unmerged, and what settles each kind: `memvault resolve` the memory
// files (by the merge driver's rules), git the others; then the
// operation's --continue. Without them the only sign was "a merge is in
// progress", and a person had to find the files with git status.
func (r *run) unmerged(st RepoState) {
	op := st.Operation
	if op == "" {
		op = "merge"
	}
	if n := len(st.UnmergedMemories); n > 0 {
		r.add("git", Problem, "%s unmerged: %s; run `memvault resolve` to settle %s by the merge driver's rules (--ours, --theirs or --both to pick), then `git %s --continue`",
			plural(n, "memory file"), strings.Join(st.UnmergedMemories, ", "), map[bool]string{true: "it", false: "them"}[n == 1], op)
	}
	if n := len(st.UnmergedOther); n > 0 {
		r.add("git", Problem, "%s unmerged outside the vault's memories: %s; resolve them with git (edit, then git add), then `git %s --continue`",
			plural(n, "file"), strings.Join(st.UnmergedOther, ", "), op)
	}
}
