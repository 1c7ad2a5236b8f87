package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// readmeText explains the vault to people who open the folder.
const readmeText = `# Project memory (memvault)

This folder is the long-term memory that AI coding assistants (Claude Code,
Cursor, any MCP client) share for this project. Each memory is one Markdown
file with YAML front matter; edit, review and delete them like code.

| folder         | layer | lifetime                                   |
|----------------|-------|--------------------------------------------|
| transient/     | L1    | minutes to hours; git-ignored scratch      |
| short-term/    | L2    | days to weeks (expires after 7 days)       |
| project/       | L3    | project conventions and decisions          |
| preferences/   | L4    | the developer's preferences                |
| meta/          | L5    | index notes and relations                  |

Front matter fields: id, title, layer, importance (1-10), tags, created_at,
updated_at, effective_at (not applied before), expires_at, status
(active | archived | superseded), supersedes, links, source, version.
Only title is needed in a hand-written file; the rest has defaults.
Writes made through memvault are git commits whose message says why.
`

// Init creates the vault's folders, its README.md, its .gitignore and its
// .gitattributes (which sends memory files to the merge driver),
// leaving files that already exist untouched. It returns the paths it
// created.
func Init(dir string) ([]string, error) {
	var created []string
	r, err := openRoot(dir, true)
	if err != nil {
		return nil, fmt.Errorf("init vault: %w", err)
	}
	defer r.Close()
	for _, l := range AllLayers() {
		p := filepath.Join(dir, l.Dir())
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			if _, err := r.folder(l.Dir(), true); err != nil {
				return created, fmt.Errorf("init vault: %w", err)
			}
			created = append(created, p)
		}
	}
	for name, text := range map[string]string{"README.md": readmeText, GitignoreName: GitignoreContent, GitattributesName: GitattributesContent} {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		if err := r.writeFile(name, []byte(text), 0o644); err != nil {
			return created, fmt.Errorf("init vault: %w", err)
		}
		created = append(created, p)
	}
	return created, nil
}

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
