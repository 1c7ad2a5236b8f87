#!/bin/sh
# Regenerates the messages of git-*.txtar with the git CLI: two memvault
# commits (the second's reason holds a "* " list and it supersedes a
# memory) squashed by `git merge --squash` and committed as git does, and
# picked by `git cherry-pick -x`. Run it from this folder, then
# `go test ./vault/commitmsg -run TestSquashGolden -update` to rewrite
# the want sections (and read the diff).
set -eu
out=$(pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export GIT_AUTHOR_NAME="Ada Me" GIT_AUTHOR_EMAIL=ada@example.com GIT_COMMITTER_NAME="Ada Me" GIT_COMMITTER_EMAIL=ada@example.com
export GIT_AUTHOR_DATE=2026-12-01T10:00:00Z GIT_COMMITTER_DATE=2026-12-01T10:00:00Z
git init -q -b main && echo a >a && git add a && git commit -qm init
git checkout -qb feature
echo x >x.md && git add x.md && git commit -q -F - <<'EOF'
memory(project): add "Deploys need two approvals"

the outage of March: one approval let a broken migration through

Memory-Id: 01KAAAAAAAAAAAAAAAAAAAAAAA
Memory-Layer: project
Memory-Client: claude-code
EOF
echo y >y.md && git add y.md && GIT_AUTHOR_DATE=2026-12-01T11:00:00Z GIT_COMMITTER_DATE=2026-12-01T11:00:00Z git commit -q -F - <<'EOF'
memory(project): add "Refunds run asynchronously"

gateway timeouts at 30 s

* a list in the reason
* second item

Memory-Id: 01KBBBBBBBBBBBBBBBBBBBBBBB
Memory-Layer: project
Memory-Client: cursor
Memory-Supersedes: 01KCCCCCCCCCCCCCCCCCCCCCCC
EOF
write() { # name, comment: the HEAD commit's message as a txtar's message section
	{ printf '%s\n-- message --\n' "$2"; git log -1 --format=%B; } >"$out/$1.txtar"
}
git checkout -q main
git merge -q --squash feature >/dev/null
cp .git/SQUASH_MSG squash_msg
GIT_EDITOR=true git commit -q
write git-merge-squash 'git merge --squash, committed with the editor (git strips the blank lines'"'"' indentation).'
git reset -q --hard HEAD~1
git merge -q --squash feature >/dev/null
git commit -q --cleanup=verbatim -F squash_msg
write git-merge-squash-verbatim 'git merge --squash, SQUASH_MSG committed verbatim (blank lines keep four spaces).'
git reset -q --hard HEAD~1
git cherry-pick -x feature >/dev/null
write git-cherry-pick-x 'git cherry-pick -x of a memvault commit: the note joins the trailer paragraph.'
