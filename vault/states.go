package vault

import (
	"fmt"
	"slices"
	"strings"
)

// States lists the states a memory can be in at an instant, as
// Result.State and ListQuery.Statuses name them: the statuses a file may
// declare, then expired and future (not yet effective).
func States() []Status {
	return []Status{StatusActive, StatusArchived, StatusSuperseded, "expired", "future"}
}

// ParseState validates a state a caller asks for, case aside.
func ParseState(s string) (Status, error) {
	st := Status(strings.ToLower(strings.TrimSpace(s)))
	if !slices.Contains(States(), st) {
		return "", fmt.Errorf("%w: unknown state %q (want active|archived|superseded|expired|future)", ErrInvalid, s)
	}
	return st, nil
}
