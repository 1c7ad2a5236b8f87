package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// etagHexLen is how many hex digits of the SHA-256 an etag keeps: 48
// bits, plenty to tell apart the few contents that can share one version
// after a merge.
const etagHexLen = 12

// ETag identifies the memory's content: "<version>-<12 hex digits>", the
// hex being the start of the SHA-256 of what the memory says (every field
// read from its file, body and merge-conflict entry included). Unlike
// Version, which two branches can both raise to the same number, two
// contents that differ have different etags; like Hash (which names the
// file's bytes), it is the same in every process, so a caller can keep it
// and hand it back (Patch.ExpectedETag).
//
// It hashes the parsed memory rather than the file bytes so that a load
// pays nothing for it: it is computed only for the memories shown or
// checked. Files that differ only in layout (key order, quoting) share
// an etag, as they say the same thing.
func (m *Memory) ETag() string {
	c := etagContent{
		ID: m.ID, Title: m.Title, Layer: m.Layer.String(), Importance: m.Importance,
		Tags: m.Tags, Aliases: m.Aliases, CreatedAt: etagTime(m.CreatedAt), UpdatedAt: etagTime(m.UpdatedAt),
		EffectiveAt: etagTime(m.EffectiveAt), ExpiresAt: etagTime(m.ExpiresAt), Status: string(m.Status),
		Supersedes: m.Supersedes, Links: m.Links, Refs: m.Refs, VerifiedAt: etagTime(m.VerifiedAt),
		SourceClient: m.Source.Client, SourceKind: m.Source.Kind, Version: m.Version, Body: m.Body,
		Conflicted: m.Conflicted, ConflictTheirs: m.ConflictTheirs,
	}
	// Marshalling strings, ints, string slices and a string map cannot
	// fail.
	b, _ := json.Marshal(c)
	sum := sha256.Sum256(b)
	return strconv.Itoa(m.Version) + "-" + hex.EncodeToString(sum[:])[:etagHexLen]
}

// etagContent is what an etag hashes, in a fixed order (JSON of a struct
// keeps field order).
type etagContent struct {
	ID, Title, Layer                             string
	Importance                                   int
	Tags, Aliases                                []string
	CreatedAt, UpdatedAt, EffectiveAt, ExpiresAt string
	Status                                       string
	Supersedes, Links, Refs                      []string
	VerifiedAt, SourceClient, SourceKind         string
	Version                                      int
	Body                                         string
	Conflicted                                   []string
	ConflictTheirs                               map[string]string // JSON sorts its keys
}

func etagTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// IsETag reports whether s has the form of an etag ("<version>-<hex>"),
// so that a caller accepting a version or an etag can tell them apart.
func IsETag(s string) bool {
	v, h, ok := strings.Cut(s, "-")
	if !ok || len(h) != etagHexLen {
		return false
	}
	if n, err := strconv.Atoi(v); err != nil || n < 1 {
		return false
	}
	for _, r := range h {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// OnlyConfirmed reports whether after is before re-checked and nothing
// else: a later verified_at (memvault confirm), every other thing the
// etag covers equal. Reports that tell who changed a memory and why
// (diff, digest, history) tell such a commit as a confirm, not as the
// memory's last change.
func OnlyConfirmed(before, after *Memory) bool {
	if before == nil || after == nil || !after.VerifiedAt.After(before.VerifiedAt) {
		return false
	}
	b := before.Clone()
	b.VerifiedAt = after.VerifiedAt
	return b.ETag() == after.ETag()
}
