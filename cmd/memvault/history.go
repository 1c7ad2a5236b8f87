package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"
	"github.com/spf13/cobra"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// maxBodyDiffLines caps the body diff shown per revision: history is a
// summary, `git show` has the rest.
const maxBodyDiffLines = 20

// Kinds of revision.
const (
	revAdded     = "added"
	revChanged   = "changed"
	revMoved     = "moved"
	revDeleted   = "deleted"
	revMentioned = "mentioned" // the commit names the memory but left its file as it was
)

// revision is one commit in a memory's history and what it changed.
type revision struct {
	Commit  string        `json:"commit"`
	Date    time.Time     `json:"date"`
	Author  string        `json:"author"`
	Email   string        `json:"email"`
	Client  string        `json:"client,omitempty"`
	Subject string        `json:"subject"`
	Reason  string        `json:"reason,omitempty"`
	Path    string        `json:"path"`               // vault-relative, at this commit
	OldPath string        `json:"old_path,omitempty"` // vault-relative, in the parent, when moved
	Kind    string        `json:"kind"`
	Version int           `json:"version,omitempty"`
	Changes []fieldChange `json:"changes,omitempty"`
	// BodyDiff holds "+ line" / "- line" entries, at most
	// maxBodyDiffLines; BodyDiffMore counts the ones left out.
	BodyDiff     []string `json:"body_diff,omitempty"`
	BodyDiffMore int      `json:"body_diff_more,omitempty"`

	before, after *vault.Memory // the memory in the parent and at this commit
}

// fieldChange is one front-matter field that differs between two versions.
type fieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// memoryHistory lists the commits that touched the memory id, whose file
// is at vaultRel now (or was when last seen), newest first. Commits carrying
// its Memory-Id trailer are followed across moves between layer folders.
func memoryHistory(ctx context.Context, g *gitView, id, vaultRel string) ([]revision, error) {
	infos, err := g.store.History(ctx, g.repoRel(vaultRel), gitstore.HistoryOptions{Follow: "Memory-Id: " + id})
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", id, err)
	}
	// Consecutive revisions share a version of the file: parse each
	// content once.
	parsed := map[string]*vault.Memory{}
	parse := func(rel string, data []byte, when time.Time) *vault.Memory {
		key := rel + "\x00" + string(data)
		if m, ok := parsed[key]; ok {
			return m
		}
		m, _ := vault.ParseMemory(rel, data, when)
		parsed[key] = m
		return m
	}
	read := func(rev, repoRel string, when time.Time) (*vault.Memory, error) {
		rel, ok := g.vaultRel(repoRel)
		if !ok {
			return nil, nil
		}
		data, err := g.store.ReadFile(ctx, rev, repoRel)
		if errors.Is(err, gitstore.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return parse(rel, data, when), nil
	}
	out := make([]revision, 0, len(infos))
	for _, ci := range infos {
		subject, reason, trailers := splitMessage(ci.Message)
		r := revision{
			Commit: ci.Hash, Date: ci.When.UTC(), Author: ci.Author.Name, Email: ci.Author.Email,
			Client: firstOf(trailers["memory-client"]), Subject: subject, Reason: reason,
		}
		r.Path, _ = g.vaultRel(ci.Path)
		parentPath := ci.Path
		if ci.OldPath != "" && ci.OldPath != ci.Path {
			parentPath = ci.OldPath
			r.OldPath, _ = g.vaultRel(ci.OldPath)
		}
		if !ci.Deleted {
			if r.after, err = read(ci.Hash, ci.Path, ci.When); err != nil {
				return nil, err
			}
		}
		if r.before, err = read(ci.Hash+"^", parentPath, ci.When); err != nil {
			return nil, err
		}
		// A commit found by its trailer may not contain this memory's
		// file at all (it names the memory in another file's commit).
		if (r.after == nil || r.after.ID != id) && (r.before == nil || r.before.ID != id) {
			r.after, r.before = nil, nil
		}
		describeRevision(&r)
		out = append(out, r)
	}
	return out, nil
}

// describeRevision fills Kind, Version, Changes and BodyDiff from the
// before and after versions.
func describeRevision(r *revision) {
	switch {
	case r.after == nil && r.before != nil:
		r.Kind = revDeleted
		r.Version = r.before.Version
		return
	case r.after == nil:
		r.Kind = revMentioned
		return
	case r.before == nil:
		r.Kind = revAdded
		r.Version = r.after.Version
		return
	}
	r.Version = r.after.Version
	r.Changes = fieldChanges(r.before, r.after)
	r.BodyDiff, r.BodyDiffMore = bodyDiff(r.before.Body, r.after.Body, maxBodyDiffLines)
	switch {
	case r.OldPath != "":
		r.Kind = revMoved
	case len(r.Changes) == 0 && len(r.BodyDiff) == 0:
		r.Kind = revMentioned
	default:
		r.Kind = revChanged
	}
}

// fieldChanges compares the fields people care about between two versions
// of a memory, in a fixed order.
func fieldChanges(a, b *vault.Memory) []fieldChange {
	var out []fieldChange
	add := func(field, x, y string) {
		if x != y {
			out = append(out, fieldChange{Field: field, Old: x, New: y})
		}
	}
	add("title", a.Title, b.Title)
	add("layer", a.Layer.String(), b.Layer.String())
	add("importance", strconv.Itoa(a.Importance), strconv.Itoa(b.Importance))
	add("tags", fmtList(a.Tags), fmtList(b.Tags))
	add("status", string(a.Status), string(b.Status))
	add("effective_at", fmtTime(a.EffectiveAt), fmtTime(b.EffectiveAt))
	add("expires_at", fmtTime(a.ExpiresAt), fmtTime(b.ExpiresAt))
	add("supersedes", fmtList(a.Supersedes), fmtList(b.Supersedes))
	add("links", fmtList(a.Links), fmtList(b.Links))
	add("version", strconv.Itoa(a.Version), strconv.Itoa(b.Version))
	return out
}

// listDelta renders the change of a list field ("[a, b]" → "[b, c]") as
// "+c −a", which reads better than two long lists of ids.
func listDelta(old, new string) string {
	parse := func(s string) []string {
		s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		if s == "" {
			return nil
		}
		return strings.Split(s, ", ")
	}
	a, b := parse(old), parse(new)
	var parts []string
	for _, x := range b {
		if !slices.Contains(a, x) {
			parts = append(parts, "+"+x)
		}
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			parts = append(parts, "−"+x)
		}
	}
	if len(parts) == 0 {
		return "reordered"
	}
	return strings.Join(parts, " ")
}

// isListField reports whether a field change holds lists.
func isListField(field string) bool {
	switch field {
	case "tags", "supersedes", "links":
		return true
	}
	return false
}

// fmtChange renders one field change for people.
func fmtChange(c fieldChange) string {
	if isListField(c.Field) {
		return c.Field + " " + listDelta(c.Old, c.New)
	}
	return fmt.Sprintf("%s %s → %s", c.Field, orNone(c.Old), orNone(c.New))
}

func fmtList(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return "[" + strings.Join(l, ", ") + "]"
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// bodyDiff is a line diff of two bodies: "- " for removed lines, "+ " for
// added ones, at most max entries plus the count left out.
func bodyDiff(a, b string, max int) ([]string, int) {
	if a == b {
		return nil, 0
	}
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var out []string
	more := 0
	for _, d := range diffs {
		var sign string
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			sign = "- "
		case diffmatchpatch.DiffInsert:
			sign = "+ "
		default:
			continue
		}
		for _, line := range strings.SplitAfter(d.Text, "\n") {
			if line == "" {
				continue
			}
			if len(out) >= max {
				more++
				continue
			}
			out = append(out, sign+strings.TrimRight(line, "\n"))
		}
	}
	return out, more
}

// splitMessage splits a commit message into its subject, its body without
// trailers (the reason), and its trailers by lower-case key. Trailers are
// the last paragraph when every line of it is "Key: value".
func splitMessage(msg string) (subject, body string, trailers map[string][]string) {
	msg = strings.ReplaceAll(strings.TrimSpace(msg), "\r\n", "\n")
	subject, rest, _ := strings.Cut(msg, "\n")
	paras := strings.Split(strings.TrimSpace(rest), "\n\n")
	trailers = map[string][]string{}
	if n := len(paras); n > 0 {
		last := strings.TrimSpace(paras[n-1])
		if t, ok := parseTrailers(last); ok {
			trailers = t
			paras = paras[:n-1]
		}
	}
	return strings.TrimSpace(subject), strings.TrimSpace(strings.Join(paras, "\n\n")), trailers
}

func parseTrailers(para string) (map[string][]string, bool) {
	if para == "" {
		return nil, false
	}
	t := map[string][]string{}
	for line := range strings.SplitSeq(para, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, false
		}
		key := strings.ToLower(k)
		t[key] = append(t[key], strings.TrimSpace(v))
	}
	return t, true
}

func firstOf(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return l[0]
}

// locateMemory finds where memory id lives: its current file (found by
// current, which returns "" when the work tree has none), or for a memory
// deleted from the work tree, the file named in the newest commit carrying
// its Memory-Id trailer. The returned path is vault-relative.
func locateMemory(ctx context.Context, g *gitView, id string, current func(id string) (string, error)) (string, error) {
	if rel, err := current(id); err != nil || rel != "" {
		return rel, err
	}
	if vault.IsMemoryPath(id + ".md") {
		// A hand-written file's id is its path.
		if mem, _, err := g.readMemory(ctx, "", id+".md", time.Time{}); err == nil && mem != nil {
			return id + ".md", nil
		}
	}
	// Follow a path that never exists: only commits with the trailer match.
	cs, err := g.store.History(ctx, g.repoRel(".memvault-none/"+id), gitstore.HistoryOptions{Follow: "Memory-Id: " + id, Limit: 1, NoRenames: true})
	if err != nil {
		return "", err
	}
	if len(cs) == 0 {
		return "", fmt.Errorf("%w: %s (not in the vault, and no commit names it)", vault.ErrNotFound, id)
	}
	base := cs[0].Hash + "^"
	if _, err := g.store.Resolve(ctx, base); errors.Is(err, gitstore.ErrNotFound) {
		base = ""
	}
	changes, err := g.store.DiffTrees(ctx, base, cs[0].Hash, g.dir)
	if err != nil {
		return "", err
	}
	for _, c := range changes {
		for _, side := range []struct {
			path string
			data []byte
		}{{c.Path, c.New}, {c.OldPath, c.Old}} {
			rel, ok := g.vaultRel(side.path)
			if !ok || side.data == nil || !vault.IsMemoryPath(rel) {
				continue
			}
			if mem, _ := vault.ParseMemory(rel, side.data, time.Time{}); mem != nil && mem.ID == id {
				return rel, nil
			}
		}
	}
	return "", fmt.Errorf("%w: %s (commit %s names it but changed no file with that id)", vault.ErrNotFound, id, shortHash(cs[0].Hash))
}

// findMemoryFile finds memory id's file in the work tree without loading
// the vault: a hand-written file's id is its path; otherwise only files
// that contain the id are parsed. It returns nil when there is none.
func findMemoryFile(ctx context.Context, dir, id string) (*vault.Memory, error) {
	parse := func(rel string) (*vault.Memory, bool) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, false
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, false
		}
		m, _ := vault.ParseMemory(rel, data, fi.ModTime())
		return m, m != nil && m.ID == id
	}
	if rel := id + ".md"; vault.IsMemoryPath(rel) {
		if m, ok := parse(rel); ok {
			return m, nil
		}
	}
	var found *vault.Memory
	needle := []byte(id)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !vault.IsMemoryPath(rel) || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, needle) {
			return nil
		}
		if m, ok := parse(rel); ok {
			found = m
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("look for %s in %s: %w", id, dir, err)
	}
	return found, nil
}

func (m *Main) historyCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "history ID",
		Short: "List every commit that changed a memory, newest first",
		Long: `history lists the commits that touched a memory, newest first, following it
when it moved between layer folders: when, who (author and client), why (the
commit message body), which fields changed and a short diff of its body.
The memory may have been deleted since; its history is still found through
the Memory-Id trailer of memvault's commits.`,
		Example: `  memvault history 01M1JYSK001JFGN6A8F2MM0K3R
  memvault history 01M1JYSK001JFGN6A8F2MM0K3R --json`,
		Args: exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			id := args[0]
			g, err := m.needGitView(ctx, "history")
			if err != nil {
				return err
			}
			defer g.Close()
			// One memory's story does not need the whole vault loaded.
			var cur *vault.Memory
			rel, err := locateMemory(ctx, g, id, func(id string) (string, error) {
				var err error
				cur, err = findMemoryFile(ctx, g.dir, id)
				if cur == nil {
					return "", err
				}
				return cur.Path, err
			})
			if err != nil {
				return err
			}
			revs, err := memoryHistory(ctx, g, id, rel)
			if err != nil {
				return err
			}
			title := historyTitle(cur, id, revs)
			if asJSON {
				return writeJSON(m.Stdout, map[string]any{"id": id, "title": title, "path": rel, "revisions": orEmptyRevs(revs)})
			}
			printHistory(m.Stdout, id, title, revs)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// historyTitle names the memory: its current title, else the last one
// recorded.
func historyTitle(cur *vault.Memory, id string, revs []revision) string {
	if cur != nil {
		return cur.Title
	}
	for _, r := range revs {
		for _, m := range []*vault.Memory{r.after, r.before} {
			if m != nil {
				return m.Title
			}
		}
	}
	return id
}

func orEmptyRevs(r []revision) []revision {
	if r == nil {
		return []revision{}
	}
	return r
}

// printHistory writes revisions as readable blocks.
func printHistory(w io.Writer, id, title string, revs []revision) {
	fmt.Fprintf(w, "%s (%s)\n", title, id)
	if len(revs) == 0 {
		fmt.Fprintln(w, "no commits yet: the memory is not committed (L1 transient, or a hand edit; see memvault doctor)")
		return
	}
	fmt.Fprintf(w, "%s, newest first\n", plural(len(revs), "revision"))
	for _, r := range revs {
		fmt.Fprintln(w)
		who := r.Author
		if r.Client != "" {
			who += " via " + r.Client
		}
		head := fmt.Sprintf("%s  %s  %s  %s", r.Date.Format("2006-01-02 15:04 MST"), shortHash(r.Commit), who, r.Kind)
		if r.Version > 0 {
			head += fmt.Sprintf(" (version %d)", r.Version)
		}
		fmt.Fprintln(w, head)
		fmt.Fprintf(w, "  %s\n", r.Subject)
		if r.Reason != "" {
			fmt.Fprintf(w, "  why: %s\n", indentRest(r.Reason, "       "))
		}
		if r.OldPath != "" {
			fmt.Fprintf(w, "  moved: %s → %s\n", r.OldPath, r.Path)
		}
		for _, c := range r.Changes {
			fmt.Fprintf(w, "  %s\n", fmtChange(c))
		}
		if len(r.BodyDiff) > 0 {
			fmt.Fprintln(w, "  body:")
			for _, l := range r.BodyDiff {
				fmt.Fprintf(w, "    %s\n", l)
			}
			if r.BodyDiffMore > 0 {
				fmt.Fprintf(w, "    … %d more changed lines (git show %s)\n", r.BodyDiffMore, shortHash(r.Commit))
			}
		}
	}
}

// changeSummary is a one-line account of a revision's changes, for why.
func changeSummary(r revision) string {
	var parts []string
	for _, c := range r.Changes {
		if c.Field == "version" {
			continue
		}
		switch c.Field {
		case "status", "importance", "layer":
			parts = append(parts, fmt.Sprintf("%s %s → %s", c.Field, orNone(c.Old), orNone(c.New)))
		default:
			parts = append(parts, c.Field)
		}
	}
	if len(r.BodyDiff) > 0 {
		parts = append(parts, "body")
	}
	if r.OldPath != "" {
		parts = append(parts, "moved from "+r.OldPath)
	}
	if len(parts) == 0 {
		return r.Kind
	}
	return r.Kind + " (" + strings.Join(parts, ", ") + ")"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// indentRest indents every line after the first.
func indentRest(s, indent string) string {
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}

// containsID reports whether a memory lists id.
func containsID(list []string, id string) bool { return slices.Contains(list, id) }
