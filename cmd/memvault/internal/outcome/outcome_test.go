package outcome

import (
	"errors"
	"fmt"
	"testing"

	"github.com/memvault/memvault/vault/fault"
)

func TestFor(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Door
	}{
		{"nil", nil, Door{Exit: ExitOK}},
		{"no kind", errors.New("disk on fire"), Door{Exit: ExitInternal}},
		{"unknown word", kindWord("bogus"), Door{Exit: ExitInternal}},
		{"internal", fault.New(fault.Internal, "x"), Door{Exit: ExitInternal}},
		{"wrapped not found", fmt.Errorf("show: %w", fault.New(fault.NotFound, "x")), Door{Exit: ExitUser, Caller: true}},
		{"adapter's git state", kindWord("git_state"), Door{Exit: ExitUser, Caller: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := For(tt.err); got != tt.want {
				t.Errorf("For(%v) = %+v, want %+v", tt.err, got, tt.want)
			}
		})
	}
}

// TestEveryKindHasADoor fails when a kind is added without a row.
func TestEveryKindHasADoor(t *testing.T) {
	for _, k := range fault.Kinds {
		if _, ok := table[k]; !ok {
			t.Errorf("kind %q has no row in the table", k)
		}
	}
	if len(table) != len(fault.Kinds) {
		t.Errorf("the table has %d rows for %d kinds", len(table), len(fault.Kinds))
	}
}

type kindWord string

func (k kindWord) Error() string     { return "adapter error" }
func (k kindWord) ErrorKind() string { return string(k) }
