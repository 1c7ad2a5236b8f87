package fault

import (
	"errors"
	"fmt"
	"testing"
)

type adapterError struct{}

func (adapterError) Error() string     { return "locked" }
func (adapterError) ErrorKind() string { return "git_state" }

type multi struct{ errs []error }

func (m multi) Error() string   { return "multi" }
func (m multi) Unwrap() []error { return m.errs }

func TestOf(t *testing.T) {
	errNotFound := New(NotFound, "memory not found")
	errInvalid := New(Invalid, "invalid memory")
	tests := []struct {
		name string
		err  error
		want Kind
	}{
		{"nil", nil, None},
		{"plain", errors.New("boom"), None},
		{"sentinel", errNotFound, NotFound},
		{"wrapped sentinel", fmt.Errorf("show x: %w", errNotFound), NotFound},
		{"adapter's own type", fmt.Errorf("commit: %w", adapterError{}), GitState},
		{"Wrap gives a plain error a kind", Wrap(Invalid, errors.New("bad flag")), Invalid},
		{"the outermost kind wins", Wrap(Conflict, fmt.Errorf("x: %w", errInvalid)), Conflict},
		{"first of several, in order", multi{[]error{errors.New("a"), errNotFound, errInvalid}}, NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of(tt.err); got != tt.want {
				t.Errorf("Of(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

func TestWrapKeepsTheChain(t *testing.T) {
	base := New(NotFound, "memory not found")
	err := Wrap(Invalid, fmt.Errorf("get: %w", base))
	if !errors.Is(err, base) || err.Error() != "get: memory not found" {
		t.Errorf("Wrap: %v, Is %v", err, errors.Is(err, base))
	}
	if Wrap(Invalid, nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
}

func TestKnown(t *testing.T) {
	for _, k := range Kinds {
		if !Known(k) {
			t.Errorf("Known(%q) = false", k)
		}
	}
	for _, k := range []Kind{None, "notfound", "Invalid"} {
		if Known(k) {
			t.Errorf("Known(%q) = true", k)
		}
	}
}
