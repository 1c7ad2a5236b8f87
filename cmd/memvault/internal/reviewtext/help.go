package reviewtext

// Short and Long are `memvault help review`.
const (
	Short = "Report what in the vault needs attention: stale, expiring, rival, conflicted, duplicate, dangling, unused"
	Long  = `review reports, for a person, what in the project vault needs attention,
grouped by what to do about it:

  conflicted  files a git merge left in conflict (a conflict record, or markers)
  stale       memories whose code moved on since they were last written or
              confirmed (refs: renamed, deleted, changed), with the reason
  rivals      rules in force that may contradict each other (recall's
              possible_conflict), not near-duplicates
  expiring    rules (L3, L4) that expire or take effect in the next --days
  duplicates  near-duplicate memories (titles at least 75% alike, one layer)
              and short-term (L2) notes on one topic, each cluster with a
              suggested merged title
  dangling    links and supersedes naming no memory, refs that do not parse
  unused      memories no recall returned in --days, from this clone's access
              record (.git/memvault/access-*.jsonl: every recall, CLI and MCP,
              appends the ids it returned; never committed). Judged once the
              record covers the window.

The text is for a terminal; --markdown is to paste into an issue or a pull
request; --json has every entry, under the keys stale, expiring, rivals,
conflicted, duplicates, dangling and unused (each entry with id, title, path,
layer and reason). The MCP resource memory://review is the same report in
Markdown. --now judges at another instant (RFC3339 or YYYY-MM-DD). The
report is advice: it changes nothing. See docs/review.md.`
	Example = `  memvault review
  memvault review --markdown --days 30 > review.md
  memvault review --json | jq '.stale[] | .id + " " + .reason'`
)
