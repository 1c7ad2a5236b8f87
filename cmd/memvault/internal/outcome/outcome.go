package outcome

import "github.com/memvault/memvault/vault/fault"

// The CLI's exit statuses (the pinned interface, README "Exit status").
const (
	ExitOK = 0
	// ExitUser is a failure the user can act on: input, a missing memory,
	// a conflict, a refused secret, the repository's state.
	ExitUser = 1
	// ExitInternal is anything else.
	ExitInternal = 2
	// ExitSkipped is an import that did its work but refused items of the
	// source; the report lists them.
	ExitSkipped = 3
)

// Door is how both doors answer one kind of failure.
type Door struct {
	// Exit is the CLI's exit status.
	Exit int
	// Caller says whether the caller can act on it: an MCP tool error
	// says so to the model (its _meta "memvault/error" names the kind and
	// this), so it fixes its call rather than reporting a fault.
	Caller bool
}

// table is the one mapping from a kind to each door's answer.
var table = map[fault.Kind]Door{
	fault.Invalid:  {Exit: ExitUser, Caller: true},
	fault.NotFound: {Exit: ExitUser, Caller: true},
	fault.Conflict: {Exit: ExitUser, Caller: true},
	fault.Secret:   {Exit: ExitUser, Caller: true},
	fault.Refused:  {Exit: ExitUser, Caller: true},
	fault.GitState: {Exit: ExitUser, Caller: true},
	fault.Internal: {Exit: ExitInternal},
}

// Kind returns err's kind, Internal when it has none (fault.Of).
func Kind(err error) fault.Kind {
	if k := fault.Of(err); fault.Known(k) {
		return k
	}
	return fault.Internal
}

// For returns how the doors answer err: ExitOK for nil, else by its kind.
func For(err error) Door {
	if err == nil {
		return Door{Exit: ExitOK}
	}
	return table[Kind(err)]
}
