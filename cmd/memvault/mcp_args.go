package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memvault/memvault/vault"
)

// toolArgs reads a tool call's arguments. Models guess argument shapes, so
// it accepts the common variants (numbers as strings, tags as a
// comma-separated string, declared aliases) and refuses everything else
// with a message that names the argument and says what was wanted. The
// first problem found is kept; later reads are no-ops.
type toolArgs struct {
	raw   map[string]any
	known map[string]bool
	err   error
}

func newToolArgs(raw map[string]any) *toolArgs {
	return &toolArgs{raw: raw, known: map[string]bool{}}
}

func (a *toolArgs) fail(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf(format, args...)
	}
}

// lookup returns the value under name or the first alias present; giving
// both a name and its alias is refused as ambiguous.
func (a *toolArgs) lookup(name string, aliases ...string) (string, any, bool) {
	keys := append([]string{name}, aliases...)
	var found string
	var val any
	for _, k := range keys {
		a.known[k] = true
		v, ok := a.raw[k]
		if !ok || v == nil {
			continue
		}
		if found != "" {
			a.fail("%s: given twice (as %q and %q); pass it once", name, found, k)
			return "", nil, false
		}
		found, val = k, v
	}
	return found, val, found != ""
}

// str reads a string argument; required ones must be non-blank.
func (a *toolArgs) str(name string, required bool, aliases ...string) (string, bool) {
	key, v, ok := a.lookup(name, aliases...)
	if !ok {
		if required {
			a.fail("%s: required", name)
		}
		return "", false
	}
	s, isStr := v.(string)
	if !isStr {
		a.fail("%s: want a string, got %s", key, jsonKind(v))
		return "", false
	}
	if required && strings.TrimSpace(s) == "" {
		a.fail("%s: must not be empty", key)
		return "", false
	}
	return s, true
}

// integer reads a whole number within [lo, hi]; "5" is accepted too.
func (a *toolArgs) integer(name string, lo, hi int, required bool, aliases ...string) (int, bool) {
	key, v, ok := a.lookup(name, aliases...)
	if !ok {
		if required {
			a.fail("%s: required", name)
		}
		return 0, false
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case string:
		n, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			a.fail("%s: want a whole number, got %q", key, x)
			return 0, false
		}
		f = n
	default:
		a.fail("%s: want a whole number, got %s", key, jsonKind(v))
		return 0, false
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) {
		a.fail("%s: want a whole number, got %v", key, f)
		return 0, false
	}
	if f < float64(lo) || f > float64(hi) {
		a.fail("%s: %v is outside %d..%d", key, f, lo, hi)
		return 0, false
	}
	return int(f), true
}

// boolean reads true/false; "true" and "false" are accepted too.
func (a *toolArgs) boolean(name string) bool {
	key, v, ok := a.lookup(name)
	if !ok {
		return false
	}
	switch x := v.(type) {
	case bool:
		return x
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
			return b
		}
	}
	a.fail("%s: want true or false, got %s", key, jsonKind(v))
	return false
}

// list reads a list of strings, given as a JSON array or as one
// comma-separated string.
func (a *toolArgs) list(name string, aliases ...string) ([]string, bool) {
	key, v, ok := a.lookup(name, aliases...)
	if !ok {
		return nil, false
	}
	switch x := v.(type) {
	case string:
		return splitList(x), true
	case []any:
		out := make([]string, 0, len(x))
		for i, e := range x {
			s, isStr := e.(string)
			if !isStr {
				a.fail("%s[%d]: want a string, got %s", key, i, jsonKind(e))
				return nil, false
			}
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, true
	}
	a.fail("%s: want a list of strings or a comma-separated string, got %s", key, jsonKind(v))
	return nil, false
}

// instant reads an RFC3339 instant or a plain date.
func (a *toolArgs) instant(name string, aliases ...string) (time.Time, bool) {
	s, ok := a.str(name, false, aliases...)
	if !ok || strings.TrimSpace(s) == "" {
		return time.Time{}, false
	}
	t, err := parseTime(strings.TrimSpace(s))
	if err != nil {
		a.fail("%s: %v", name, err)
		return time.Time{}, false
	}
	return t, true
}

// layer reads one layer name (project, preference, L3, 3, ...).
func (a *toolArgs) layer(name string) (vault.Layer, bool) {
	key, v, ok := a.lookup(name)
	if !ok {
		return 0, false
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		a.fail("%s: want a layer name, got %s", key, jsonKind(v))
		return 0, false
	}
	l, err := vault.ParseLayer(s)
	if err != nil {
		a.fail("%s: %v", key, err)
		return 0, false
	}
	return l, true
}

// layers reads a list of layer names.
func (a *toolArgs) layers(name string) []vault.Layer {
	names, ok := a.list(name)
	if !ok {
		return nil
	}
	var out []vault.Layer
	for _, s := range names {
		l, err := vault.ParseLayer(s)
		if err != nil {
			a.fail("%s: %v", name, err)
			return nil
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// done reports the first problem, or an unknown argument.
func (a *toolArgs) done() error {
	if a.err != nil {
		return a.err
	}
	var unknown []string
	for k := range a.raw {
		if !a.known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		accepted := make([]string, 0, len(a.known))
		for k := range a.known {
			accepted = append(accepted, k)
		}
		sort.Strings(accepted)
		return fmt.Errorf("%s: unknown argument; this tool accepts %s", strings.Join(unknown, ", "), strings.Join(accepted, ", "))
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
