package teamsync

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/doctor"
	"github.com/memvault/memvault/vault/resolve"
)

// ResolveHelp is `memvault resolve --help`.
const ResolveHelp = `resolve finishes the merge of memory files that a merge, rebase or
cherry-pick left unmerged without memvault's merge driver (a clone that
never registered it, a plain git merge, a merge made elsewhere): it reads
each file's index stages (base, ours, theirs), merges them by the driver's
rules (docs/team.md), writes the file and stages it. Then finish the merge
as usual (git commit, git rebase --continue). With no PATH or ID, every
unmerged memory file of the vault; a PATH is relative to the working
directory or to the vault, an ID is the memory's id on either side.

What both sides changed differently stays readable: the file keeps ours and
records theirs in its "conflict" entry (memvault show names it), never
conflict markers. Two memories added at one path (the same title on two
branches) both survive: the one with the greater id (whichever side, so
that every clone decides alike) moves beside the other, the file name
followed by a short suffix of its id. A memory changed on one side and
deleted on the other is kept (or merged into the file the other side moved
it to).

--ours / --theirs take one side of each file whole; --both keeps the two as
rival memories, theirs under a new id in a file of its own, each linking the
other. The exit status is 1 when a file could not be resolved (the message
names it and why); the others are resolved all the same.`

// SyncHelp is `memvault sync --help`.
const SyncHelp = `sync brings this clone's memory in step with its remote, in one command:

  1. refuses to start while a merge, rebase or cherry-pick is under way,
     except one a killed sync left (it wrote a mark in .git/memvault):
     that one is undone (git merge --abort, the files git was writing
     checked out again, the changes git had set aside put back), the
     locks the killed git left are removed, and the sync goes on;
  2. commits pending memory files as doctor --fix does (hand edits that
     parse, an interrupted write, the merge driver's setup: the vault's
     .gitattributes is written and committed when missing); a file that
     does not parse, or holds conflict markers or a secret, is left out;
     any other problem is reported at the end, after the fetch, merge and
     push: nothing here stops them;
  3. git fetch REMOTE BRANCH (the branch's upstream, else origin and the
     same branch name);
  4. git merge (or git rebase with --rebase) with memvault's merge driver
     passed on the command line (git -c merge.memvault.driver=...), so it
     runs even in a clone that never registered it; other work in the tree
     is set aside and restored (--autostash);
  5. when git stops on memory files, runs memvault resolve and continues;
     when other files conflict, stops and says which, leaving the
     repository as git left it;
     A memory the merge left in two files (moved to two layers on two
     branches) is joined into one, committed as "memory: join ...";
  6. lints the merged vault: each memory file with an error is reported
     with its line, the commit and author that broke it and the fix
     ("quote the title"); it never stops the push of the rest, unless it
     was committed in this clone and not on the remote (the push would
     spread it). Memories that carry a conflict entry are listed for a
     person to decide;
  7. git push, and when the remote moved meanwhile, fetches and merges
     again, at most 3 times.

Progress goes to stderr, one short line per step; an error names the step
that failed. sync runs your own git with your remotes and credentials:
go-git, which memvault uses for its commits, cannot merge. There is no MCP
tool for it: a sync moves the branch under the user's feet, asks for
credentials and may stop for a person, which is the user's call, not an
assistant's.`

// Side maps resolve's flags to a resolve.Side.
func Side(ours, theirs, both bool) (resolve.Side, error) {
	n := 0
	side := resolve.Merge
	for _, f := range []struct {
		set  bool
		side resolve.Side
	}{{ours, resolve.Ours}, {theirs, resolve.Theirs}, {both, resolve.Both}} {
		if f.set {
			n++
			side = f.side
		}
	}
	if n > 1 {
		return 0, errors.New("resolve: --ours, --theirs and --both exclude each other")
	}
	return side, nil
}

// Names turns resolve's arguments into vault-relative paths where they
// name a file inside the vault at dir (relative to the working directory
// or absolute); anything else (a vault-relative path, an id) is kept.
func Names(dir string, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		abs, err := filepath.Abs(a)
		if err != nil || !strings.HasSuffix(a, ".md") {
			continue
		}
		if rel, err := filepath.Rel(dir, abs); err == nil && !strings.HasPrefix(rel, "..") {
			out[i] = filepath.ToSlash(rel)
		}
	}
	return out
}

// Fixed turns doctor --fix's report into sync's commit step: what it
// fixed, or an error naming the problems left. Memory files with errors
// are not among them: doctor leaves them out of its commit, and sync's
// lint step reports each with its fix; one file never stops a sync.
func Fixed(rep doctor.Report, err error) (string, error) {
	if err != nil {
		return "", err
	}
	var fixed, problems []string
	for _, c := range rep.Checks {
		switch {
		case c.Status == doctor.Fixed:
			fixed = append(fixed, c.Detail)
		case c.Status == doctor.Problem && c.Name != "files" && c.Name != "parse":
			problems = append(problems, c.Name+": "+c.Detail)
		}
	}
	if len(problems) > 0 {
		return strings.Join(fixed, "; "), fmt.Errorf("memvault doctor finds %d problem(s): %s", len(problems), strings.Join(problems, "; "))
	}
	return strings.Join(fixed, "; "), nil
}

// LintOf is sync's lint step over the freshly opened vault v.
func LintOf(v *vault.Vault, err error) (Lint, error) {
	if err != nil {
		return Lint{}, err
	}
	var l Lint
	for _, d := range v.Diagnostics() {
		if d.Severity == parser.SeverityError {
			l.Errors++
		}
	}
	l.Broken = brokenOf(v.Diagnostics(), func(rel string, n int) string { return fileLine(filepath.Join(v.Dir(), filepath.FromSlash(rel)), n) })
	for _, c := range v.Conflicted() {
		l.Conflicted = append(l.Conflicted, fmt.Sprintf("%s (%s)", c.Path, strings.Join(c.What, ", ")))
	}
	return l, nil
}

// fileLine is line n (1-based) of the file at name, "" when it cannot be
// read; memory files are small (the vault caps their size).
func fileLine(name string, n int) string {
	data, err := os.ReadFile(name)
	if err != nil || n <= 0 {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if n > len(lines) {
		return ""
	}
	return strings.TrimRight(lines[n-1], "\r")
}
