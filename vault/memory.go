package vault

// The memory model is vault/memory's: what a memory is and what a
// file's bytes make. This file gives its names in vault, so that the
// doors speak of vault.Memory and vault.Project as before, and declares
// the vault's errors.

import (
	"fmt"
	"io"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/diskwrite"
	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/memory"
	"github.com/memvault/memvault/vault/store"
)

// Sentinel errors. Callers test them with errors.Is; messages carry details.
// ErrInvalid and ErrOutsideVault are the write layer's (vault/diskwrite),
// so a path it refuses matches them too.
var (
	ErrNotFound       = fault.New(fault.NotFound, "memory not found")
	ErrConflict       = fault.New(fault.Conflict, "version conflict")
	ErrInvalid        = diskwrite.ErrInvalid
	ErrInvalidLayer   = memory.ErrInvalidLayer
	ErrReadOnly       = fault.New(fault.Refused, "vault is read-only")
	ErrNoCommitter    = fault.New(fault.Internal, "vault has no committer")
	ErrUnchanged      = fault.New(fault.Invalid, "nothing to change")
	ErrMalformedFile  = fault.New(fault.Invalid, "memory file is malformed")
	ErrDuplicateID    = fault.New(fault.Invalid, "duplicate memory id")
	ErrOutsideVault   = diskwrite.ErrOutsideVault
	ErrSupersedesSelf = memory.ErrSupersedesSelf
	ErrSecret         = memory.ErrSecret
	// ErrLinkedFile reports a memory file that is a symbolic link: it is
	// never loaded.
	ErrLinkedFile = fault.New(fault.Invalid, "linked memory file")
	// ErrConflictMarkers reports a file holding git conflict markers: it
	// is never loaded, written or committed as a memory.
	ErrConflictMarkers = memory.ErrConflictMarkers
	// ErrDuplicate is wrapped by *DuplicateError: Remember found an active
	// memory with the same or a near-identical title.
	ErrDuplicate = fault.New(fault.Conflict, "a memory with this title exists")
	// ErrNoVault means a Set was asked for a vault it does not have.
	ErrNoVault = fault.New(fault.NotFound, "no such vault in the set")
	// ErrSupersessionCycle means memories would supersede each other in a
	// ring (A supersedes B, B supersedes A): each would hide the others.
	ErrSupersessionCycle = fault.New(fault.Invalid, "supersession cycle")
	// ErrDangling means a supersedes or links entry names an id no memory
	// of the vault carries (lint warns about it).
	ErrDangling = fault.New(fault.Invalid, "names no memory of this vault")
	// ErrStatusDisagrees means a file's status says active while an
	// in-force successor supersedes it, or superseded while nothing does
	// (lint warns about it).
	ErrStatusDisagrees = fault.New(fault.Invalid, "disagrees with supersession")
	// ErrAmbiguousID means two files carry the id a write names.
	ErrAmbiguousID = fault.New(fault.Invalid, "ambiguous memory id")
	// ErrRefNeverExisted is wrapped by the diagnostics of
	// NeverExistedRefs: a ref naming no path of the repository's history.
	ErrRefNeverExisted = fault.New(fault.Invalid, "names a path that never existed in this repository's history")
	// ErrHeadersOnly refuses a text recall on a vault opened with
	// Options.HeadersOnly, which has no full-text index.
	ErrHeadersOnly = fault.New(fault.Internal, "vault opened with headers only: no full-text index")
)

// The model's types and constants, as vault names them.
type (
	// Memory is one memory as loaded from its file (memory.Memory).
	Memory = memory.Memory
	// Status is a memory's lifecycle state.
	Status = memory.Status
	// Source records who wrote a memory.
	Source = memory.Source
	// Layer is a memory's lifetime class, L1 (transient) to L5 (meta).
	Layer = memory.Layer
	// Diagnostic is a problem found in a vault file, with its place.
	Diagnostic = parser.Error
)

// The layers, statuses and limits of the model.
const (
	Transient  = memory.Transient
	ShortTerm  = memory.ShortTerm
	Project    = memory.Project
	Preference = memory.Preference
	Meta       = memory.Meta

	StatusActive     = memory.StatusActive
	StatusArchived   = memory.StatusArchived
	StatusSuperseded = memory.StatusSuperseded
	// ConflictedMarkers is the Memory.Conflicted label of a memory whose
	// file holds git conflict markers.
	ConflictedMarkers = memory.ConflictedMarkers

	MaxIDLen          = memory.MaxIDLen
	MaxEchoedID       = memory.MaxEchoedID
	MaxRefs           = memory.MaxRefs
	MaxRefGlobstars   = memory.MaxRefGlobstars
	MaxRefBytes       = memory.MaxRefBytes
	ProtectionPeriod  = memory.ProtectionPeriod
	NoDecayImportance = memory.NoDecayImportance
)

// ParseLayer is memory.ParseLayer.
func ParseLayer(s string) (Layer, error) { return memory.ParseLayer(s) }

// AllLayers is memory.AllLayers.
func AllLayers() []Layer { return memory.AllLayers() }

// ParseStatus is memory.ParseStatus.
func ParseStatus(s string) (Status, error) { return memory.ParseStatus(s) }

// ParseState is memory.ParseState.
func ParseState(s string) (Status, error) { return memory.ParseState(s) }

// ParseInstant is memory.ParseInstant.
func ParseInstant(s string) (time.Time, error) { return memory.ParseInstant(s) }

// Labels is memory.Labels.
func Labels(damaged, redacted string) []string { return memory.Labels(damaged, redacted) }

// IsETag is memory.IsETag.
func IsETag(s string) bool { return memory.IsETag(s) }

// OnlyConfirmed is memory.OnlyConfirmed.
func OnlyConfirmed(before, after *Memory) bool { return memory.OnlyConfirmed(before, after) }

// NewULID is memory.NewULID.
func NewULID(t time.Time, entropy io.Reader) (string, error) { return memory.NewULID(t, entropy) }

// ValidateID is memory.ValidateID.
func ValidateID(id string) error { return memory.ValidateID(id) }

// ShortID is memory.ShortID.
func ShortID(id string) string { return memory.ShortID(id) }

// Slug is memory.Slug.
func Slug(title string) string { return memory.Slug(title) }

// DerivedID is memory.DerivedID.
func DerivedID(rel string) string { return memory.DerivedID(rel) }

// HoldsSecret is memory.HoldsSecret: the rule every door applies before
// it shows a memory to anyone.
func HoldsSecret(m *Memory) bool { return memory.HoldsSecret(m) }

// Weight is memory.Weight: the non-relevance part of a memory's score.
func Weight(m *Memory, at time.Time) float64 { return memory.Weight(m, at) }

// IsMemoryPath reports whether a vault-relative slash path names a memory
// file: a .md file, no dot-file or dot-folder on the way, not the root
// README.md. The watcher uses it to ignore everything else.
func IsMemoryPath(rel string) bool { return store.IsMemoryPath(rel) }

// StaleError refuses an update prepared against a content the memory no
// longer has: its version (Expected is a number) or its etag (Expected is
// an etag) is not the one the caller read. It wraps ErrConflict and names
// what the memory is at now, so the caller can read it again.
type StaleError struct {
	ID string
	// Expected is the version or etag the caller gave.
	Expected string
	// ByETag is set when Expected is an etag.
	ByETag bool
	// Version and ETag are the memory's current ones.
	Version int
	ETag    string
}

func (e *StaleError) Error() string {
	if e.ByETag {
		return fmt.Sprintf("%v: %s is at etag %s (version %d), not %s: it changed since you read it (a merge can keep the version number); get it again and reapply your change",
			ErrConflict, e.ID, e.ETag, e.Version, e.Expected)
	}
	return fmt.Sprintf("%v: %s is at version %d (etag %s), not %s; get it again and reapply your change", ErrConflict, e.ID, e.Version, e.ETag, e.Expected)
}

// Unwrap makes a StaleError an ErrConflict.
func (e *StaleError) Unwrap() error { return ErrConflict }
