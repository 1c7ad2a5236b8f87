package doctor

import (
	"context"

	"github.com/memvault/memvault/vault/load"
	"github.com/memvault/memvault/vault/mergesetup"
)

// links is doctor's check of linked memory files.
func (r *run) links(ctx context.Context) {
	links, err := r.v.LinkedFiles(ctx)
	switch {
	case err != nil:
		r.add("links", Problem, "could not look for linked memory files: %v", err)
	case len(links) > 0:
		names := make([]string, len(links))
		for i, l := range links {
			names[i] = l.Path + " → " + l.Target
		}
		r.add("links", Problem, "%s not loaded: %s; %s (memvault lint)", plural(len(links), "linked memory file"), someOf(names), links[0].Fix())
	}
}

// cacheDir reports a cache folder memvault refuses and, with Fix,
// replaces a linked one with a real folder; the rule and the words are
// the cache's own (load.CacheDirCheck).
func (r *run) cacheDir() {
	problem, fixed := load.CacheDirCheck(r.v.Dir(), r.Fix)
	switch {
	case fixed != "":
		r.add("cache", Fixed, "%s", fixed)
	case problem != "":
		r.add("cache", Problem, "%s", problem)
	}
}

// mergeDriver is doctor's check of the merge driver's set-up
// (vault/mergesetup).
func (r *run) mergeDriver(ctx context.Context) {
	res := mergesetup.Check(ctx, mergesetup.Setup{Repo: r.MergeDriver, Committer: r.Committer,
		Dir: r.v.Dir(), Client: r.Client, Fix: r.Fix})
	status := map[mergesetup.Outcome]string{mergesetup.OK: OK, mergesetup.Note: Note, mergesetup.Problem: Problem, mergesetup.Fixed: Fixed}[res.Outcome]
	r.add("merge", status, "%s", res.Detail)
}
