package vault

// The vault's .gitattributes sends its memory files to memvault's merge
// driver (vault/merge, run by `memvault merge-driver`), so that a git
// merge, rebase or cherry-pick merges them field by field and never
// leaves conflict markers in one. It lives in the vault folder, not the
// repository's root, so that it travels with the vault wherever it is and
// leaves the project's own .gitattributes alone. The README is not a
// memory: git merges it as text.
const (
	GitattributesName    = ".gitattributes"
	GitattributesContent = "# Memory files merge field by field through memvault's merge driver\n" +
		"# (docs/team.md). Each clone registers it: memvault doctor --fix.\n" +
		"*.md merge=" + MergeDriverName + "\n/README.md merge=text\n"
	// MergeDriverName is the driver's name in .gitattributes and in git's
	// config (merge.memvault.driver).
	MergeDriverName = "memvault"
)
