package merge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/fault"
)

// ErrUnmergeable means one side is not a memory file that can be merged
// field by field (binary, front matter that does not parse or is not
// closed): a person must decide.
var ErrUnmergeable = fault.New(fault.Conflict, "cannot merge the memory field by field")

// ErrTwoMemories means the two sides hold two different memories (two
// ids) at one path: the same title added on two branches, or a path one
// side gave to another memory (an earlier split) while the other edited
// the memory that was there. An id is what a memory is: merging the two
// would put one memory's changes into the other. Neither may win:
// memvault resolve keeps both, each in a file of its own. It matches
// ErrUnmergeable, so the driver leaves ours as it is and git keeps both
// sides in its index.
var ErrTwoMemories = fmt.Errorf("%w: two different memories were added at one path", ErrUnmergeable)

// MaxKeys is the most top-level front-matter keys a side may have for a
// field-by-field merge. A memory has about twenty (README.md, "The memory file format"); a file
// with thousands is not one a person keeps, and merging it would cost
// time for nothing. Past it Files refuses with ErrTooManyKeys.
const MaxKeys = 1000

// ErrTooManyKeys means a side has more than MaxKeys front-matter keys. It
// matches ErrUnmergeable: a person decides.
var ErrTooManyKeys = fmt.Errorf("%w: too many front-matter keys", ErrUnmergeable)

// ErrTooLarge means the merged file would pass the parser's size limit
// (both sides' bodies kept, one as the conflict record). It matches
// ErrUnmergeable: a person decides.
var ErrTooLarge = fmt.Errorf("%w: the merged file would be too large", ErrUnmergeable)

// FileField names a whole side's file in a record Keep writes.
const FileField = "file"

// ConflictKey is the front-matter key of the conflict record a merge
// writes when both sides changed something differently.
const ConflictKey = "conflict"

// BodyField names the body in Result.Conflicts and in the record.
const BodyField = "body"

// Result is the outcome of Files.
type Result struct {
	// Data is the merged file: our file with the merged fields and body,
	// edited line by line.
	Data []byte
	// Conflicts names what both sides changed to different values in this
	// merge, in front-matter order, BodyField last. Empty when the merge
	// is clean (the file may still carry an earlier merge's record).
	Conflicts []string
	// TheirsMarkers is the line of the first git conflict marker in
	// theirs' body when it holds markers the base did not: a merge left
	// half done and committed on their side. Their body is then a
	// conflict, never merged in.
	TheirsMarkers int
}

// Files merges two versions of a memory file (ours and theirs) with their
// common ancestor base; see the package documentation for the rules. base
// may be empty (both sides added the file). It returns ErrUnmergeable when
// ours or theirs cannot be merged field by field, and a *TwoMemoriesError
// (matching ErrTwoMemories and ErrUnmergeable) when ours and theirs carry
// two different ids: two memories, not two edits of one. A base that does
// not parse counts as empty front matter. A side with more than MaxKeys
// keys is refused (ErrTooManyKeys), and so is a result over the parser's
// size limit (ErrTooLarge).
func Files(base, ours, theirs []byte) (Result, error) {
	return FilesContext(context.Background(), base, ours, theirs)
}

// FilesContext is Files, stopping with the context's error once ctx is
// done.
func FilesContext(ctx context.Context, base, ours, theirs []byte) (Result, error) {
	return files(ctx, base, ours, theirs, MaxKeys)
}

// files is Files with the key limit as a parameter, so that a benchmark
// can measure the cost past it.
func files(ctx context.Context, base, ours, theirs []byte, maxKeys int) (Result, error) {
	o, err := side("ours", ours, maxKeys)
	if err != nil {
		return Result{}, err
	}
	t, err := side("theirs", theirs, maxKeys)
	if err != nil {
		return Result{}, err
	}
	b, _ := parser.Parse("base", base)
	if b == nil || len(b.Keys()) > maxKeys {
		b = parser.New(nil)
	}
	if o.Meta.ID != "" && t.Meta.ID != "" && o.Meta.ID != t.Meta.ID {
		return Result{}, &TwoMemoriesError{Ours: o.Meta.ID, Theirs: t.Meta.ID}
	}
	out, _ := parser.Parse("ours", ours)
	m := merger{b: b, o: o, t: t, out: out, vals: map[*parser.Document]docValues{}}
	for i, key := range keysOf(o, t, b) {
		if i%256 == 0 && ctx.Err() != nil {
			return Result{}, fmt.Errorf("merge stopped: %w", context.Cause(ctx))
		}
		if key == ConflictKey {
			continue // merged below, entry by entry
		}
		if err := m.field(key); err != nil {
			return Result{}, err
		}
	}
	m.flush()
	m.body()
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("merge stopped: %w", context.Cause(ctx))
	}
	if err := m.bumpSameVersion(); err != nil {
		return Result{}, err
	}
	if err := m.writeRecord(); err != nil {
		return Result{}, err
	}
	data := out.Format()
	if len(data) > parser.MaxFileSize {
		return Result{}, fmt.Errorf("%w: %d bytes, limit %d (parser.MaxFileSize)", ErrTooLarge, len(data), parser.MaxFileSize)
	}
	if err := check(data, o.Meta.ID); err != nil {
		return Result{}, err
	}
	return Result{Data: data, Conflicts: m.conflicts, TheirsMarkers: m.theirsMarkers}, nil
}

// TwoMemoriesError is ErrTwoMemories with the two ids.
type TwoMemoriesError struct{ Ours, Theirs string }

func (e *TwoMemoriesError) Error() string {
	return fmt.Sprintf("%v: ours %s, theirs %s", ErrTwoMemories, e.Ours, e.Theirs)
}

func (e *TwoMemoriesError) Unwrap() error { return ErrTwoMemories }

// side parses ours or theirs, refusing what cannot be merged by fields. A
// file without front matter (a hand-written note) is a memory.
func side(name string, data []byte, maxKeys int) (*parser.Document, error) {
	d, diags := parser.Parse(name, data)
	if d == nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnmergeable, name, diags[0].Err)
	}
	for _, e := range diags {
		if e.Severity == parser.SeverityError && !errors.Is(e.Err, parser.ErrNoFrontMatter) {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnmergeable, name, e)
		}
	}
	if n := len(d.Keys()); n > maxKeys {
		return nil, fmt.Errorf("%w: %s has %d, limit %d (merge.MaxKeys)", ErrTooManyKeys, name, n, maxKeys)
	}
	return d, nil
}

// check holds the merge to its promise: the result parses and keeps our
// id.
func check(data []byte, id string) error {
	d, diags := parser.Parse("merged", data)
	if d == nil {
		return fmt.Errorf("merged file does not parse: %v", diags[0])
	}
	for _, e := range diags {
		if e.Severity == parser.SeverityError && !errors.Is(e.Err, parser.ErrNoFrontMatter) {
			return fmt.Errorf("merged file does not parse: %v", e)
		}
	}
	if id != "" && d.Meta.ID != id {
		return fmt.Errorf("merged file has id %q, want %q", d.Meta.ID, id)
	}
	return nil
}

// keysOf lists the top-level keys of the documents, each once, in the
// order of their first appearance (ours first). The conflict record is
// merged like any key.
func keysOf(docs ...*parser.Document) []string {
	var keys []string
	seen := map[string]bool{}
	for _, d := range docs {
		for _, k := range d.Keys() {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// merger holds one merge in progress.
type merger struct {
	b, o, t   *parser.Document
	out       *parser.Document // ours, edited into the result
	conflicts []string
	record    []parser.KV
	// vals holds each side's decoded values, read once: looking a key up
	// in a document searches its keys, which made a merge quadratic.
	vals map[*parser.Document]docValues
	// take lists the keys to take from theirs, in one edit of out
	// (flush): one edit per key made a merge cubic in the keys.
	take []string
	// theirsMarkers is the line of the first marker in theirs' body.
	theirsMarkers int
}

// docValues is a document's keys and decoded values.
type docValues struct {
	keys map[string]bool
	vals map[string]any
}

func valuesOf(d *parser.Document) docValues {
	keys := d.Keys()
	dv := docValues{keys: make(map[string]bool, len(keys)), vals: d.Values()}
	for _, k := range keys {
		dv.keys[k] = true
	}
	return dv
}

// valueOf is key's value in d, one of the merge's three sides.
func (m *merger) valueOf(d *parser.Document, key string) value {
	dv, ok := m.vals[d]
	if !ok {
		dv = valuesOf(d)
		m.vals[d] = dv
	}
	return dv.value(key)
}

// value is a key's decoded value on one side; a value the parser cannot
// decode is opaque and equal to nothing, so it is never merged silently.
type value struct {
	present bool
	v       any
}

type opaque struct{}

func (dv docValues) value(key string) value {
	if !dv.keys[key] {
		return value{}
	}
	v, ok := dv.vals[key]
	if !ok {
		return value{present: true, v: opaque{}}
	}
	return value{present: true, v: v}
}

func (a value) equal(b value) bool {
	if _, ok := a.v.(opaque); ok {
		return false
	}
	return a.present == b.present && reflect.DeepEqual(a.v, b.v)
}

// field merges one top-level key into m.out.
func (m *merger) field(key string) error {
	vb, vo, vt := m.valueOf(m.b, key), m.valueOf(m.o, key), m.valueOf(m.t, key)
	switch {
	case vo.equal(vt), vb.equal(vt):
		return nil // ours already holds the answer
	case key == "id" && vo.present:
		// The id is what the memory is: theirs never changes ours.
		m.conflict(key, vt)
		return nil
	case vb.equal(vo):
		return m.takeTheirs(key, vt)
	}
	// Both sides changed the key, differently.
	om, tm := m.o.Meta, m.t.Meta
	switch key {
	case "tags", "aliases", "links", "supersedes":
		merged := set3(list(m.b.Meta, key), list(om, key), list(tm, key), key == "tags")
		if slices.Equal(merged, list(om, key)) && vo.present {
			return nil
		}
		if merged == nil {
			merged = []string{}
		}
		return m.set(key, merged)
	case "importance":
		if om.Importance != nil && tm.Importance != nil {
			return m.pick(key, vt, *tm.Importance > *om.Importance)
		}
	case "created_at":
		if om.CreatedAt != nil && tm.CreatedAt != nil {
			return m.pick(key, vt, tm.CreatedAt.Before(*om.CreatedAt))
		}
	case "updated_at":
		if om.UpdatedAt != nil && tm.UpdatedAt != nil {
			return m.pick(key, vt, tm.UpdatedAt.After(*om.UpdatedAt))
		}
	case "status":
		ro, rt := statusRank(om.Status, vo), statusRank(tm.Status, vt)
		if ro >= 0 && rt >= 0 {
			return m.pick(key, vt, rt > ro)
		}
	case "version":
		if om.Version != nil && tm.Version != nil {
			return m.set(key, max(*om.Version, *tm.Version)+1)
		}
	case "expires_at":
		// An expiry comes with the layer (short-term memories get a TTL,
		// project ones none): the side that moved the memory to another
		// layer set it for that layer, and the other side's change (a
		// TTL renewed by an edit) belonged to the old one.
		lb, lo, lt := m.valueOf(m.b, "layer"), m.valueOf(m.o, "layer"), m.valueOf(m.t, "layer")
		switch {
		case !lb.equal(lo) && lb.equal(lt):
			return nil
		case lb.equal(lo) && !lb.equal(lt):
			return m.takeTheirs(key, vt)
		}
		// Every write of a short-term memory renews its expiry, so two
		// edits of different fields both move it: the later renewal holds,
		// as the later updated_at does. A side that brought the expiry
		// earlier than the base meant to, and that stays for a person.
		if eo, et := om.ExpiresAt, tm.ExpiresAt; eo != nil && et != nil && !earlier(eo, m.b.Meta.ExpiresAt) && !earlier(et, m.b.Meta.ExpiresAt) {
			return m.pick(key, vt, et.After(*eo))
		}
	}
	m.conflict(key, vt)
	return nil
}

// earlier reports whether t is before base; nothing is before no base.
func earlier(t, base *time.Time) bool { return base != nil && t.Before(*base) }

// bumpSameVersion gives the merge a new version when both sides bumped
// the version to the same number (two edits made from one version, on two
// branches) and the merged memory is neither side's: without it, three
// different contents (ours, theirs, the merge) would carry one version,
// and an update expecting that version could overwrite the merge. field
// took that version once, as for any same change; a merge equal to one
// side keeps it, because it is that side's content.
func (m *merger) bumpSameVersion() error {
	vb, vo, vt := m.valueOf(m.b, "version"), m.valueOf(m.o, "version"), m.valueOf(m.t, "version")
	if !vo.equal(vt) || vb.equal(vo) || m.o.Meta.Version == nil {
		return nil
	}
	if sameContent(m.out, m.o) || sameContent(m.out, m.t) {
		return nil
	}
	return m.set("version", *m.o.Meta.Version+1)
}

// sameContent reports whether two documents hold the same values for every
// key but version, and the same body.
func sameContent(a, b *parser.Document) bool {
	if string(a.BodyBytes()) != string(b.BodyBytes()) {
		return false
	}
	va, vb := valuesOf(a), valuesOf(b)
	for _, k := range keysOf(a, b) {
		if k != "version" && !va.value(k).equal(vb.value(k)) {
			return false
		}
	}
	return true
}

// takeTheirs makes the result's key what theirs has: their entry's lines,
// or no entry. The keys wait for flush, which takes them all in one edit.
func (m *merger) takeTheirs(key string, _ value) error {
	m.take = append(m.take, key)
	return nil
}

// flush takes the keys takeTheirs listed from theirs into out.
func (m *merger) flush() {
	if len(m.take) == 0 {
		return
	}
	for _, key := range m.out.TakeKeys(m.t, m.take) {
		// Their value cannot be carried over (an alias): keep ours and
		// let a person decide.
		m.conflict(key, m.valueOf(m.t, key))
	}
	m.take = m.take[:0]
}

// pick takes theirs when theirs wins a rule, else keeps ours.
func (m *merger) pick(key string, vt value, theirs bool) error {
	if !theirs {
		return nil
	}
	return m.takeTheirs(key, vt)
}

func (m *merger) set(key string, v any) error {
	m.flush() // keys come out in the order they were merged
	if err := m.out.Set(key, v); err != nil {
		return fmt.Errorf("merge %s: %w", key, err)
	}
	return nil
}

// conflict keeps our value of key and records theirs.
func (m *merger) conflict(key string, vt value) {
	m.conflicts = append(m.conflicts, key)
	if vt.present {
		m.record = append(m.record, parser.KV{Key: "theirs_" + key, Value: text(vt.v)})
	}
}

// body merges the bodies line by line; on a conflict ours stays and
// theirs goes into the record.
func (m *merger) body() {
	base, ours, theirs := string(m.b.BodyBytes()), string(m.o.BodyBytes()), string(m.t.BodyBytes())
	merged, ok := Text(base, ours, theirs)
	if line := MarkerLine(m.t.BodyBytes()); line > 0 && MarkerLine(m.b.BodyBytes()) == 0 && theirs != ours {
		// Their side committed a merge left half done: never merged in.
		m.theirsMarkers = MarkerLine(m.t.Format())
		ok = false
	}
	if !ok {
		m.conflicts = append(m.conflicts, BodyField)
		m.record = append(m.record, parser.KV{Key: "theirs_" + BodyField, Value: theirs})
		return
	}
	if merged != ours {
		m.out.SetBody([]byte(merged))
	}
}

// writeRecord writes the conflict record: this merge's conflicts, then the
// entries of earlier records, merged as a three-way set of field names (an
// entry one side resolved, by deleting it, stays resolved). Values come
// from this merge, then ours' record, then theirs'. Without conflicts
// old or new, the record goes; with only ours' old entries, ours' lines
// stay as they are.
func (m *merger) writeRecord() error {
	bf, _ := Record(m.b)
	of, ov := Record(m.o)
	tf, tv := Record(m.t)
	kept := set3(bf, of, tf, false)
	if len(m.conflicts) == 0 {
		switch {
		case len(kept) == 0:
			m.out.Delete(ConflictKey)
			return nil
		case slices.Equal(kept, of):
			return nil
		}
	}
	fields, record := slices.Clone(m.conflicts), slices.Clone(m.record)
	for _, f := range kept {
		if slices.Contains(fields, f) {
			continue
		}
		fields = append(fields, f)
		if v, ok := ov[f]; ok {
			record = append(record, parser.KV{Key: "theirs_" + f, Value: v})
		} else if v, ok := tv[f]; ok {
			record = append(record, parser.KV{Key: "theirs_" + f, Value: v})
		}
	}
	record = append([]parser.KV{{Key: "fields", Value: strings.Join(fields, ", ")}}, record...)
	if err := m.out.Set(ConflictKey, record); err != nil {
		return fmt.Errorf("write the conflict record: %w", err)
	}
	return nil
}

// text renders a decoded value for the record: strings as they are,
// timestamps in RFC 3339, anything else as JSON.
func text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	case opaque:
		return "(a value that cannot be decoded)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// statusRank orders statuses for the rule "superseded > archived >
// active"; -1 for a status memvault does not know.
func statusRank(s string, v value) int {
	if _, isString := v.v.(string); v.present && !isString {
		return -1
	}
	switch s {
	case "", "active":
		return 0
	case "archived":
		return 1
	case "superseded":
		return 2
	}
	return -1
}

// list returns the list field key of m.
func list(m parser.Meta, key string) []string {
	switch key {
	case "tags":
		return m.Tags
	case "aliases":
		return m.Aliases
	case "links":
		return m.Links
	}
	return m.Supersedes
}

// set3 merges two edits of the set base: an item stays when both sides
// kept it, or when a side added it (it was not in base); a removal on
// either side wins. Ours' order first, then theirs' additions. Tags
// compare without case, as the vault does.
func set3(base, ours, theirs []string, fold bool) []string {
	norm := func(s string) string {
		if fold {
			return strings.ToLower(s)
		}
		return s
	}
	in := func(l []string, s string) bool {
		return slices.ContainsFunc(l, func(x string) bool { return norm(x) == norm(s) })
	}
	var out []string
	keep := func(s string, other []string) bool { return !in(base, s) || in(other, s) }
	for _, s := range ours {
		if keep(s, theirs) && !in(out, s) {
			out = append(out, s)
		}
	}
	for _, s := range theirs {
		if keep(s, ours) && !in(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Settle removes fields from d's conflict record: a write that sets a
// field the record lists is a person's decision about it, and the record
// holds only what is still open. The record goes when nothing is left in
// it; an unreadable one (Record gives [ConflictKey]) stays. It reports
// whether d changed.
func Settle(d *parser.Document, fields []string) (bool, error) {
	open, theirs := Record(d)
	if len(open) == 0 || slices.Equal(open, []string{ConflictKey}) {
		return false, nil
	}
	left := slices.DeleteFunc(slices.Clone(open), func(f string) bool { return slices.Contains(fields, f) })
	switch len(left) {
	case len(open):
		return false, nil
	case 0:
		d.Delete(ConflictKey)
		return true, nil
	}
	record := []parser.KV{{Key: "fields", Value: strings.Join(left, ", ")}}
	for _, f := range left {
		if v, ok := theirs[f]; ok {
			record = append(record, parser.KV{Key: "theirs_" + f, Value: v})
		}
	}
	if err := d.Set(ConflictKey, record); err != nil {
		return false, fmt.Errorf("rewrite the conflict record: %w", err)
	}
	return true, nil
}

// Record reads the conflict record of a parsed memory: the names it gives
// for what disagrees (nil when there is no record) and their side's
// values, by name ("body" for the body; a name without a value was
// deleted on their side). A record whose field list cannot be read still
// marks the memory: fields is then [ConflictKey]. Nothing returned points
// into the parser's scratch memory.
func Record(d *parser.Document) (fields []string, theirs map[string]string) {
	if d == nil || d.FieldLine(ConflictKey) == 0 {
		return nil, nil
	}
	v, _ := d.Value(ConflictKey)
	rec, _ := v.(map[string]any)
	list, _ := rec["fields"].(string)
	for f := range strings.SplitSeq(list, ",") {
		if f = strings.TrimSpace(f); f != "" {
			fields = append(fields, strings.Clone(f))
		}
	}
	for k, x := range rec {
		name, ok := strings.CutPrefix(k, "theirs_")
		if !ok || !slices.Contains(fields, name) {
			continue
		}
		if theirs == nil {
			theirs = map[string]string{}
		}
		theirs[strings.Clone(name)] = strings.Clone(text(x))
	}
	if fields == nil {
		return []string{ConflictKey}, nil
	}
	return fields, theirs
}
