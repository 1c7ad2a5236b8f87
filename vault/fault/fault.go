package fault

import "errors"

// Kind is a kind of failure: what the caller can do about it, which is
// what a door needs to know to answer (an exit status, the words an
// assistant reads).
type Kind string

// The kinds. Adapters, which do not import the domain, name theirs with
// the same words through an ErrorKind method (see Of).
const (
	// None is no kind: an error nobody classified. Doors treat it as
	// Internal; a test of the module fails on a sentinel that has none.
	None Kind = ""
	// Invalid is input the caller can fix: a field, a flag, a query past
	// a limit, a file that does not parse.
	Invalid Kind = "invalid"
	// NotFound is a memory, commit, path or vault that is not there.
	NotFound Kind = "not_found"
	// Conflict is a change that lost a race or meets another: a version
	// or etag that moved, a title an active memory has, a merge that
	// needs a person.
	Conflict Kind = "conflict"
	// Secret is a write refused because it holds a secret.
	Secret Kind = "secret"
	// Refused is an action the vault or repository does not allow: a
	// read-only vault, a hook name another tool holds.
	Refused Kind = "refused"
	// GitState is a repository state the user must change first: no
	// identity, an operation in progress, a detached HEAD, a locked
	// index, not a repository.
	GitState Kind = "git_state"
	// Internal is a failure of memvault or its machine: I/O, a bug, a
	// damaged cache. Declared, it says the error was classified as such.
	Internal Kind = "internal"
)

// Kinds lists every kind but None, in the order doors document them.
var Kinds = []Kind{Invalid, NotFound, Conflict, Secret, Refused, GitState, Internal}

// Known reports whether k is one of Kinds.
func Known(k Kind) bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// kinded is an error that says its kind. The method returns a string so
// that adapters (gitstore, watcher), which never import the domain, can
// classify their errors with the same words.
type kinded interface {
	error
	ErrorKind() string
}

// Of returns the kind of err: that of the first error in its chain that
// says one (errors.As order), None when none does.
func Of(err error) Kind {
	var k kinded
	if errors.As(err, &k) {
		return Kind(k.ErrorKind())
	}
	return None
}

// Error is a sentinel error with a kind.
type Error struct {
	kind Kind
	msg  string
}

// New returns a sentinel error of kind k with message msg, for a
// package's var block of sentinels.
func New(k Kind, msg string) *Error { return &Error{kind: k, msg: msg} }

func (e *Error) Error() string { return e.msg }

// ErrorKind returns the error's kind.
func (e *Error) ErrorKind() string { return string(e.kind) }

// Wrap returns err with kind k, or nil when err is nil. The message and
// the chain (errors.Is, errors.As) are err's.
func Wrap(k Kind, err error) error {
	if err == nil {
		return nil
	}
	return &wrapped{kind: k, err: err}
}

type wrapped struct {
	kind Kind
	err  error
}

func (w *wrapped) Error() string     { return w.err.Error() }
func (w *wrapped) Unwrap() error     { return w.err }
func (w *wrapped) ErrorKind() string { return string(w.kind) }
