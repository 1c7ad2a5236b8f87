package mcpserver

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/memvault/memvault/vault"
)

// A tool's arguments are one Go struct type: the JSON schema the tool
// declares is generated from it, and the parser fills it from that same
// schema, so the two cannot drift apart (TestSchemaAndParserAgree holds
// them to it). The struct's tags say, per field:
//
//	json:"name,omitempty"  the argument's name; without omitempty it is required
//	jsonschema:"…"         its description
//	alias:"name"           it is another name for that argument (q for query)
//	min:"1" max:"50"       bounds of a number
//	enum:"a,b"             the values a string may take
//
// vault.Layer, vault.Status and time.Time fields take strings (a layer
// name, a state, an RFC 3339 instant or a date).
//
// The parser is strict where the schema is: integers are JSON numbers,
// booleans JSON booleans, lists JSON arrays (mcp-go's typed handlers would
// bind with encoding/json, which ignores unknown arguments and names Go
// types in its errors). Its messages name the argument and say what was
// wanted, so the model can correct its call. A null is taken as absent.

// argField is one argument of a tool.
type argField struct {
	name     string
	index    []int // of the struct field
	required bool
	alias    string // the argument this one is another name for
	prop     *jsonschema.Schema
}

// argSpec is a tool's arguments: the schema generated from their type,
// and the fields the parser fills.
type argSpec struct {
	typ    reflect.Type
	schema *jsonschema.Schema
	raw    json.RawMessage
	fields []argField
}

// layerValues are the layer names the tools accept, as the schema lists
// them: the names and L1..L5.
func layerValues() []any {
	var out []any
	for _, l := range vault.AllLayers() {
		out = append(out, l.String())
	}
	for _, l := range vault.AllLayers() {
		out = append(out, fmt.Sprintf("L%d", int(l)))
	}
	return out
}

// stateValues are the states list_memories filters on (vault.ListQuery).
func stateValues() []any {
	return []any{string(vault.StatusActive), string(vault.StatusArchived), string(vault.StatusSuperseded), "expired", "future"}
}

// typeSchemas are the schemas of the argument types that JSON spells
// otherwise than Go.
func typeSchemas() map[reflect.Type]*jsonschema.Schema {
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[vault.Layer]():  {Type: "string", Enum: layerValues()},
		reflect.TypeFor[vault.Status](): {Type: "string", Enum: stateValues()},
		reflect.TypeFor[time.Time]():    {Type: "string"},
	}
}

// specOf generates the argument spec of the struct type A.
func specOf[A any]() (*argSpec, error) {
	typ := reflect.TypeFor[A]()
	s, err := jsonschema.For[A](&jsonschema.ForOptions{TypeSchemas: typeSchemas()})
	if err != nil {
		return nil, fmt.Errorf("arguments of %s: %w", typ, err)
	}
	spec := &argSpec{typ: typ, schema: s}
	for _, f := range reflect.VisibleFields(typ) {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		prop := s.Properties[name]
		if prop == nil {
			return nil, fmt.Errorf("arguments of %s: no schema for %s", typ, name)
		}
		dropNull(prop)
		if err := constrain(prop, f); err != nil {
			return nil, fmt.Errorf("arguments of %s: %s: %w", typ, name, err)
		}
		a := argField{name: name, index: f.Index, required: !strings.Contains(opts, "omitempty"), alias: f.Tag.Get("alias"), prop: prop}
		if a.required && prop.Type == "string" {
			// A required text must say something.
			prop.Pattern = `\S`
		}
		spec.fields = append(spec.fields, a)
	}
	for _, f := range spec.fields {
		if f.alias == "" {
			continue
		}
		if i := slices.IndexFunc(spec.fields, func(p argField) bool { return p.name == f.alias && p.alias == "" }); i < 0 ||
			typ.FieldByIndex(spec.fields[i].index).Type != typ.FieldByIndex(f.index).Type {
			return nil, fmt.Errorf("arguments of %s: %s is an alias of %q, which is no argument of the same type", typ, f.name, f.alias)
		}
	}
	if spec.raw, err = json.Marshal(s); err != nil {
		return nil, fmt.Errorf("arguments of %s: %w", typ, err)
	}
	return spec, nil
}

// dropNull narrows a pointer's or a slice's ["null", T] to T: a null is
// taken as absent, and strict clients refuse type unions.
func dropNull(s *jsonschema.Schema) {
	if i := slices.Index(s.Types, "null"); i >= 0 && len(s.Types) == 2 {
		s.Type, s.Types = s.Types[1-i], nil
	}
}

// constrain applies a field's min, max and enum tags to its schema.
func constrain(prop *jsonschema.Schema, f reflect.StructField) error {
	for _, b := range []struct {
		tag string
		dst **float64
	}{{"min", &prop.Minimum}, {"max", &prop.Maximum}} {
		if v, ok := f.Tag.Lookup(b.tag); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("%s tag: %w", b.tag, err)
			}
			*b.dst = &n
		}
	}
	if v, ok := f.Tag.Lookup("enum"); ok {
		for e := range strings.SplitSeq(v, ",") {
			prop.Enum = append(prop.Enum, e)
		}
	}
	return nil
}

// names lists the arguments, sorted.
func (s *argSpec) names() []string {
	out := make([]string, 0, len(s.fields))
	for _, f := range s.fields {
		out = append(out, f.name)
	}
	slices.Sort(out)
	return out
}

// parse fills dst, a pointer to the spec's type, from a tool call's
// arguments (a JSON object, or nil).
func (s *argSpec) parse(raw json.RawMessage, dst any) error {
	args := map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return errors.New("arguments: want a JSON object")
		}
	}
	var unknown []string
	for k := range args {
		if !slices.ContainsFunc(s.fields, func(f argField) bool { return f.name == k }) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		if len(s.fields) == 0 {
			return fmt.Errorf("%s: unknown argument; this tool takes none", strings.Join(unknown, ", "))
		}
		return fmt.Errorf("%s: unknown argument; this tool accepts %s", strings.Join(unknown, ", "), strings.Join(s.names(), ", "))
	}
	out := reflect.ValueOf(dst).Elem()
	given := map[string]string{} // argument -> the name it was given under
	for _, f := range s.fields {
		v, ok := args[f.name]
		if !ok || v == nil {
			continue
		}
		target := cmp.Or(f.alias, f.name)
		if first, twice := given[target]; twice {
			return fmt.Errorf("%s: given twice (as %q and %q); pass it once", target, first, f.name)
		}
		given[target] = f.name
		if err := setValue(out.FieldByIndex(f.index), v, f.prop, f.name); err != nil {
			return err
		}
		if f.alias != "" {
			primary := s.field(f.alias)
			out.FieldByIndex(primary.index).Set(out.FieldByIndex(f.index))
		}
	}
	for _, f := range s.fields {
		if _, ok := given[f.name]; f.required && !ok {
			return fmt.Errorf("%s: required", f.name)
		}
	}
	return nil
}

// field returns the argument called name (specOf checked aliases name
// one).
func (s *argSpec) field(name string) argField {
	i := slices.IndexFunc(s.fields, func(f argField) bool { return f.name == name })
	return s.fields[i]
}

// setValue parses the JSON value v into dst, checking it against prop;
// name is the argument (or list element) the messages speak of.
func setValue(dst reflect.Value, v any, prop *jsonschema.Schema, name string) error {
	switch dst.Type() {
	case reflect.TypeFor[vault.Layer]():
		s, err := wantString(v, prop, name)
		if err != nil {
			return err
		}
		l, err := vault.ParseLayer(s)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		dst.Set(reflect.ValueOf(l))
		return nil
	case reflect.TypeFor[time.Time]():
		s, err := wantString(v, prop, name)
		if err != nil || strings.TrimSpace(s) == "" {
			return err // "" is no instant: it removes one in update_memory
		}
		t, err := vault.ParseInstant(s)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		dst.Set(reflect.ValueOf(t))
		return nil
	}
	switch dst.Kind() {
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		if err := setValue(p.Elem(), v, prop, name); err != nil {
			return err
		}
		dst.Set(p)
	case reflect.String:
		s, err := wantString(v, prop, name)
		if err != nil {
			return err
		}
		dst.SetString(s)
	case reflect.Int:
		n, err := wantInt(v, prop, name)
		if err != nil {
			return err
		}
		dst.SetInt(int64(n))
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("%s: want true or false (a JSON boolean), got %s", name, jsonKind(v))
		}
		dst.SetBool(b)
	case reflect.Slice:
		return setList(dst, v, prop, name)
	default:
		return fmt.Errorf("%s: arguments of type %s are not supported", name, dst.Type())
	}
	return nil
}

// setList parses a JSON array into dst, dropping blank strings where any
// text is allowed (a blank tag says nothing); where the schema lists the
// values, a blank is refused as the schema refuses it.
func setList(dst reflect.Value, v any, prop *jsonschema.Schema, name string) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf(`%s: want a list (a JSON array, e.g. ["a", "b"]), got %s`, name, jsonKind(v))
	}
	out := reflect.MakeSlice(dst.Type(), 0, len(list))
	for i, e := range list {
		if s, isStr := e.(string); isStr && strings.TrimSpace(s) == "" && (prop.Items == nil || len(prop.Items.Enum) == 0) {
			continue
		}
		el := reflect.New(dst.Type().Elem()).Elem()
		if err := setValue(el, e, prop.Items, fmt.Sprintf("%s[%d]", name, i)); err != nil {
			return err
		}
		if el.Kind() == reflect.String {
			el.SetString(strings.TrimSpace(el.String()))
		}
		out = reflect.Append(out, el)
	}
	dst.Set(out)
	return nil
}

// wantString checks that v is a string that prop allows.
func wantString(v any, prop *jsonschema.Schema, name string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string, got %s", name, jsonKind(v))
	}
	if prop.Pattern != "" && strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("%s: must not be empty", name)
	}
	if len(prop.Enum) > 0 && !slices.Contains(prop.Enum, any(s)) {
		return "", fmt.Errorf("%s: %q is not one of %s", name, s, enumList(prop.Enum))
	}
	return s, nil
}

// wantInt checks that v is a whole JSON number within prop's bounds.
func wantInt(v any, prop *jsonschema.Schema, name string) (int, error) {
	num, ok := v.(json.Number)
	if !ok {
		if s, isStr := v.(string); isStr {
			return 0, fmt.Errorf("%s: want a JSON number, got the string %q: write it without quotes", name, s)
		}
		return 0, fmt.Errorf("%s: want a whole number, got %s", name, jsonKind(v))
	}
	f, err := num.Float64()
	if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s: want a whole number, got %s", name, num)
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	if prop.Minimum != nil {
		lo = *prop.Minimum
	}
	if prop.Maximum != nil {
		hi = *prop.Maximum
	}
	if f < lo || f > hi || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("%s: %s is outside %s", name, num, bounds(lo, hi))
	}
	return int(f), nil
}

// bounds renders a number range for messages: 1..50, or at least 1.
func bounds(lo, hi float64) string {
	switch {
	case !math.IsInf(lo, 0) && !math.IsInf(hi, 0):
		return fmt.Sprintf("%g..%g", lo, hi)
	case !math.IsInf(lo, 0):
		return fmt.Sprintf("the range (at least %g)", lo)
	case !math.IsInf(hi, 0):
		return fmt.Sprintf("the range (at most %g)", hi)
	}
	return "the range of whole numbers"
}

// enumList renders allowed values: a, b or c.
func enumList(values []any) string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = fmt.Sprint(v)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// jsonKind names a decoded JSON value's kind for messages.
func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case json.Number:
		return "the number " + x.String()
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
