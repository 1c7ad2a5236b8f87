package view

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/staleness"
)

// Instant renders a time as RFC3339 in UTC, "" for the zero time.
func Instant(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// Round3 rounds a score to three decimals, which is all a person or a
// model can use of it and keeps JSON stable across platforms.
func Round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// orEmpty makes nil lists encode as [], never null: strict clients reject
// null where the schema says array.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Ref names another memory.
type Ref struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// Refs converts the domain's references.
func Refs(rs []vault.Ref) []Ref {
	out := make([]Ref, 0, len(rs))
	for _, r := range rs {
		out = append(out, Ref{ID: r.ID, Title: r.Title})
	}
	return out
}

// Source records who wrote a memory.
type Source struct {
	Client string `json:"client,omitempty"`
	Kind   string `json:"kind,omitempty"`
}

// Memory is one whole memory: `memvault show --json` and the MCP
// get_memory tool.
type Memory struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Layer      string   `json:"layer"`
	Importance int      `json:"importance"`
	Tags       []string `json:"tags"`
	Aliases    []string `json:"aliases"`
	Status     string   `json:"status"`
	Version    int      `json:"version"`
	// ETag identifies this content (vault.Memory.ETag): pass it as the
	// expected version of an update to be refused if anything changed,
	// even at the same version number.
	ETag        string   `json:"etag"`
	CreatedAt   string   `json:"created_at"`
	UpdatedAt   string   `json:"updated_at"`
	EffectiveAt string   `json:"effective_at,omitempty"`
	ExpiresAt   string   `json:"expires_at,omitempty"`
	Supersedes  []string `json:"supersedes"`
	// SupersededBy lists the memories, in any served vault, that name this
	// one in their supersedes.
	SupersededBy []string `json:"superseded_by"`
	Links        []string `json:"links"`
	// Related are the memories this one links to, by links or [[wiki
	// links]], resolved to titles.
	Related []Ref  `json:"related"`
	Source  Source `json:"source"`
	Path    string `json:"path"`
	// Vault says where the memory lives: project or user.
	Vault string `json:"vault"`
	// Stale is set when the file no longer parses and this is its last
	// good version.
	Stale bool `json:"stale,omitempty"`
	// Conflicted names what a git merge left in disagreement (fields,
	// "body", or "markers": the file holds conflict markers and this is
	// its last committed version).
	Conflicted []string `json:"conflicted,omitempty"`
	// ConflictTheirs holds the other side's values of what Conflicted
	// names ("body" for the body), from the file's conflict entry.
	ConflictTheirs map[string]string `json:"conflict_theirs,omitempty"`
	// Refs name the code the memory is about (paths, "dir/", globs,
	// "path#Symbol").
	Refs []string `json:"refs,omitempty"`
	// VerifiedAt is when someone last confirmed the memory still holds.
	VerifiedAt string `json:"verified_at,omitempty"`
	// Staleness says whether the code its refs name changed since it was
	// last written or confirmed; absent without refs.
	Staleness *Staleness `json:"staleness,omitempty"`
	// Damaged and Redacted are as in vault.Memory: what is served is not
	// the file as it is (see vault.Memory.Labels).
	Damaged  string `json:"damaged,omitempty"`
	Redacted string `json:"redacted,omitempty"`
	Body     string `json:"body"`
}

// MemoryWith is MemoryOf with the memory's staleness from states.
func MemoryWith(m *vault.Memory, vaultName string, related []vault.Ref, supersededBy []string, states map[string]staleness.Staleness) Memory {
	out := MemoryOf(m, vaultName, related, supersededBy)
	out.Staleness = StalenessOf(states, m.ID)
	return out
}

// MemoryOf builds the view of m, which lives in the vault named vaultName;
// related and supersededBy come from the vault (Vault.Related,
// Set.SupersededBy).
func MemoryOf(m *vault.Memory, vaultName string, related []vault.Ref, supersededBy []string) Memory {
	return Memory{
		ID: m.ID, Title: m.Title, Layer: m.Layer.String(), Importance: m.Importance, Tags: orEmpty(m.Tags),
		Aliases: orEmpty(m.Aliases), Status: string(m.Status), Version: m.Version, ETag: m.ETag(),
		CreatedAt: Instant(m.CreatedAt), UpdatedAt: Instant(m.UpdatedAt),
		EffectiveAt: Instant(m.EffectiveAt), ExpiresAt: Instant(m.ExpiresAt),
		Supersedes: orEmpty(m.Supersedes), SupersededBy: orEmpty(supersededBy), Links: orEmpty(m.Links),
		Related: Refs(related), Source: Source{Client: m.Source.Client, Kind: m.Source.Kind},
		Path: m.Path, Vault: vaultName, Stale: m.Stale, Conflicted: m.Conflicted, ConflictTheirs: m.ConflictTheirs, Refs: m.Refs, VerifiedAt: Instant(m.VerifiedAt), Body: m.Body,
		Damaged: m.Damaged, Redacted: m.Redacted,
	}
}

// RecallResult is one recalled or listed memory: an element of `memvault
// recall --json` and of the MCP recall and list_memories tools' results.
type RecallResult struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Layer       string   `json:"layer"`
	Vault       string   `json:"vault"`
	Score       float64  `json:"score"`
	Status      string   `json:"status"`
	Snippet     string   `json:"snippet"`
	Tags        []string `json:"tags"`
	Importance  int      `json:"importance"`
	UpdatedAt   string   `json:"updated_at"`
	EffectiveAt string   `json:"effective_at,omitempty"`
	ExpiresAt   string   `json:"expires_at,omitempty"`
	// Supersedes names the memories this one replaces.
	Supersedes []Ref `json:"supersedes"`
	// SupersededBy names the in-force memories that replace this one
	// (shown with include_inactive only).
	SupersededBy []Ref `json:"superseded_by,omitempty"`
	// PossibleConflict lists the ids of other results that look like
	// rival rules on the same subject.
	PossibleConflict []string `json:"possible_conflict"`
	Path             string   `json:"path"`
	Version          int      `json:"version"`
	// ETag is as in Memory.
	ETag  string `json:"etag"`
	Stale bool   `json:"stale,omitempty"`
	// Match says how well the memory answers the query: strong or weak;
	// absent for a list or a recall without a query. A question no
	// memory answers gets no strong result.
	Match string `json:"match,omitempty"`
	// MatchReason says, for a weak result, why it was kept though weak
	// ("matches 1 of 3 query concepts", "linked from ...").
	MatchReason string `json:"match_reason,omitempty"`
	// Explain says why the result ranks where it does (explain only).
	Explain *Explain `json:"explain,omitempty"`
	// Conflicted is as in Memory.
	Conflicted []string `json:"conflicted,omitempty"`
	// Staleness says whether the code the memory's refs name changed
	// since it was last written or confirmed; absent without refs.
	Staleness *Staleness `json:"staleness,omitempty"`
	// Damaged and Redacted are as in Memory.
	Damaged  string `json:"damaged,omitempty"`
	Redacted string `json:"redacted,omitempty"`
}

// Recall is the answer of a recall, and of a list (vault.Set.List), whose
// results have no score or conflicts.
type Recall struct {
	Results []RecallResult `json:"results"`
}

// RecallResultOf builds the view of one recall result.
func RecallResultOf(r vault.SetResult) RecallResult {
	m := r.Memory
	out := RecallResult{
		ID: m.ID, Title: m.Title, Layer: m.Layer.String(), Vault: r.Vault, Score: Round3(r.Score), Status: r.State,
		Snippet: r.Snippet, Tags: orEmpty(m.Tags), Importance: m.Importance, UpdatedAt: Instant(m.UpdatedAt),
		EffectiveAt: Instant(m.EffectiveAt), ExpiresAt: Instant(m.ExpiresAt), Supersedes: Refs(r.Supersedes),
		PossibleConflict: orEmpty(r.PossibleConflict), Path: m.Path, Version: m.Version, ETag: m.ETag(), Stale: m.Stale,
		Conflicted: m.Conflicted, Damaged: m.Damaged, Redacted: m.Redacted,
	}
	if len(r.SupersededBy) > 0 {
		out.SupersededBy = Refs(r.SupersededBy)
	}
	out.Match = r.Match
	if r.Match == vault.MatchWeak {
		out.MatchReason = r.MatchReason
	}
	out.Explain = ExplainOf(r.Explain, r.Adjustments)
	return out
}

// Write reports a write: `memvault add|update --json` and the MCP
// remember and update_memory tools.
type Write struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Version int    `json:"version"`
	// ETag is the etag of what was written (see Memory.ETag).
	ETag string `json:"etag"`
	// Commit is the commit made; "" for the transient layer, which is
	// never committed.
	Commit string `json:"commit"`
	// Superseded lists the ids this write marked superseded.
	Superseded []string `json:"superseded"`
	// Vault says which vault was written: project or user.
	Vault string `json:"vault"`
	// Refs are the memory's refs after the write.
	Refs []string `json:"refs,omitempty"`
	// ProposedRefs are refs the new memory's text suggests (paths and
	// symbols it mentions that exist at HEAD) and it does not have;
	// accept them with accept_refs, or by updating refs.
	ProposedRefs []string `json:"proposed_refs,omitempty"`
}

// WriteOf builds the view of a write to the vault named vaultName.
func WriteOf(res vault.WriteResult, vaultName string) Write {
	return Write{ID: res.Memory.ID, Path: res.Memory.Path, Version: res.Memory.Version, ETag: res.Memory.ETag(), Commit: res.Commit,
		Superseded: orEmpty(res.Superseded), Vault: vaultName, Refs: res.Memory.Refs, ProposedRefs: res.ProposedRefs}
}

// Forget reports a forget: `memvault forget --json` and the MCP forget
// tool.
type Forget struct {
	ID string `json:"id"`
	// Action is archived or deleted.
	Action  string `json:"action"`
	Path    string `json:"path"`
	Version int    `json:"version"`
	Commit  string `json:"commit"`
	Vault   string `json:"vault"`
}

// ForgetOf builds the view of a forget of id.
func ForgetOf(id string, res vault.WriteResult, deleted bool, vaultName string) Forget {
	out := Forget{ID: id, Action: "archived", Commit: res.Commit, Vault: vaultName}
	if deleted {
		out.Action = "deleted"
	}
	if res.Memory != nil {
		out.Path, out.Version = res.Memory.Path, res.Memory.Version
	}
	return out
}

// VaultStats summarises one vault.
type VaultStats struct {
	// Vault is the vault's folder.
	Vault    string         `json:"vault"`
	Total    int            `json:"total"`
	ByLayer  map[string]int `json:"by_layer"`
	ByStatus map[string]int `json:"by_status"`
	InForce  int            `json:"in_force"`
	Expired  int            `json:"expired"`
	Future   int            `json:"future"`
	// Stale memories are served from their last good version because
	// their file no longer parses.
	Stale    int `json:"stale"`
	Errors   int `json:"parse_errors"`
	Warnings int `json:"warnings"`
	// Secrets counts files holding something the secret guard matches
	// (counted in parse_errors too).
	Secrets int `json:"secret_findings"`
	// Problems lists the first diagnostics as path:line: field: problem.
	Problems []string `json:"problems"`
	// Conflicted lists the files a git merge left in conflict, each with
	// what to do.
	Conflicted []Conflicted `json:"conflicted,omitempty"`
	GitHead    string       `json:"git_head,omitempty"`
	// GitOperation is the merge, rebase, cherry-pick... under way in the
	// vault's repository; WritesRefused says why writes are refused
	// meanwhile and what to run.
	GitOperation  string `json:"git_operation,omitempty"`
	WritesRefused string `json:"writes_refused,omitempty"`
	// GitObjects is the repository's object store, when the server can
	// count it.
	GitObjects *GitObjects `json:"git_objects,omitempty"`
	Indexed    int         `json:"index_docs"`
	LoadedAt   string      `json:"loaded_at"`
	// IndexAge is the wall-clock seconds since the index last changed.
	IndexAge float64 `json:"index_age_seconds"`
}

// MaxProblems caps the diagnostics a summary lists, so a vault with
// thousands of broken files still answers within a small budget; lint
// lists them all.
const MaxProblems = 20

// VaultStatsOf summarises v. head is the repository's HEAD ("" outside
// git); now is the wall clock the index age is measured against.
func VaultStatsOf(v *vault.Vault, head string, now time.Time) VaultStats {
	s := v.Stats()
	out := VaultStats{Vault: s.Dir, Total: s.Total, ByLayer: s.ByLayer, ByStatus: s.ByStatus, InForce: s.InForce,
		Expired: s.Expired, Future: s.Future, Stale: s.Stale, Errors: s.Errors, Warnings: s.Warnings, Secrets: s.Secrets,
		Problems: []string{}, GitHead: head, Indexed: s.Indexed, LoadedAt: Instant(s.LoadedAt),
		IndexAge: max(0, now.Sub(s.UpdatedAt).Round(time.Millisecond).Seconds())}
	for _, c := range s.Conflicted {
		out.Conflicted = append(out.Conflicted, ConflictedOf(c, s.Dir))
	}
	out.Problems = problemLines(v.Diagnostics())
	return out
}

// problemLines renders diagnostics for a summary: one line per distinct
// problem (the same field and message in several files is one line, the
// first file's, with how many more files have it), at most MaxProblems,
// then how many diagnostics were left out.
func problemLines(diags []*vault.Diagnostic) []string {
	type group struct {
		first *vault.Diagnostic
		paths map[string]bool
		n     int
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, d := range diags {
		msg := ""
		if d.Err != nil {
			msg = d.Err.Error()
		}
		key := fmt.Sprintf("%d\x00%s\x00%s", d.Severity, d.Field, msg)
		g, ok := byKey[key]
		if !ok {
			g = &group{first: d, paths: map[string]bool{}}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.paths[d.Path] = true
		g.n++
	}
	out := []string{}
	shown := 0
	for _, g := range groups {
		if len(out) == MaxProblems {
			out = append(out, fmt.Sprintf("… and %d more: run memvault lint", len(diags)-shown))
			break
		}
		line := g.first.Error()
		switch others := len(g.paths) - 1; {
		case others == 1:
			line += " (same in 1 more file)"
		case others > 1:
			line += fmt.Sprintf(" (same in %d more files)", others)
		}
		out = append(out, line)
		shown += g.n
	}
	return out
}

// Conflicted is a memory file a git merge left in conflict.
type Conflicted struct {
	Path string `json:"path"`
	// ID is the memory served for it, "" when none is.
	ID string `json:"id,omitempty"`
	// What names what disagrees: fields, "body" or "markers".
	What []string `json:"what"`
	// Fix says what to run.
	Fix string `json:"fix"`
}

// ConflictedOf builds the view of a conflicted file of the vault at dir.
func ConflictedOf(c vault.ConflictedFile, dir string) Conflicted {
	p := filepath.Join(dir, filepath.FromSlash(c.Path))
	fix := "edit " + p + ": keep the values that hold (theirs are in its conflict entry), delete the conflict entry, then commit the file (git add it first while a merge is under way)"
	if c.ID != "" {
		// Once the merge is committed, a write settles it too.
		fix += "; or, after the merge, `memvault update " + c.ID + "` (update_memory) the fields that disagree, which settles their entries, " +
			"or with --resolve-conflict (resolve_conflict) to keep what the memory holds"
	}
	if slices.Contains(c.What, vault.ConflictedMarkers) {
		fix = "resolve the git conflict markers in " + p + " and git add it; while the merge is under way, " +
			"`memvault doctor --fix` then `git checkout -m -- " + p + "` redoes it field by field, without markers"
	}
	return Conflicted{Path: c.Path, ID: c.ID, What: c.What, Fix: fix}
}

// Stats summarises the project vault, and the user vault when one is
// served: `memvault stats --json` and the MCP memory_stats tool.
type Stats struct {
	VaultStats
	UserVault *VaultStats `json:"user_vault,omitempty"`
	// Sync is the team server's last sync round, when it syncs.
	Sync *SyncStatus `json:"sync,omitempty"`
}
