package weaviate

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Filter is a Weaviate where filter, sent as JSON to the REST API and as
// text to GraphQL. A leaf has an Operator ("Equal", "NotEqual",
// "ContainsAny", "ContainsAll", "Like", "LessThan", "LessThanEqual",
// "GreaterThan", "GreaterThanEqual", ...), a Path naming the property and
// exactly one value; "And" and "Or" combine Operands.
type Filter struct {
	Operator string
	Path     []string
	Text     *string
	Texts    []string
	Int      *int64
	Ints     []int64
	Operands []Filter
}

// Equal is a filter for property == text.
func Equal(property, text string) Filter {
	return Filter{Operator: "Equal", Path: []string{property}, Text: &text}
}

// ContainsAnyInt is a filter for an int (or int[]) property holding any
// of ids.
func ContainsAnyInt(property string, ids ...int64) Filter {
	return Filter{Operator: "ContainsAny", Path: []string{property}, Ints: ids}
}

// And combines filters so that all must match.
func And(fs ...Filter) Filter { return Filter{Operator: "And", Operands: fs} }

// Or combines filters so that any may match.
func Or(fs ...Filter) Filter { return Filter{Operator: "Or", Operands: fs} }

// check validates the operator names and that a leaf has a path and
// exactly one value, so that bad filters fail here with a clear message.
func (f Filter) check() error {
	if !nameRE().MatchString(f.Operator) {
		return fmt.Errorf("invalid filter operator %q", f.Operator)
	}
	if f.Operator == "And" || f.Operator == "Or" {
		if len(f.Operands) == 0 {
			return fmt.Errorf("filter %s has no operands", f.Operator)
		}
		for _, o := range f.Operands {
			if err := o.check(); err != nil {
				return err
			}
		}
		return nil
	}
	if len(f.Path) == 0 {
		return fmt.Errorf("filter %s has no path", f.Operator)
	}
	n := 0
	for _, set := range []bool{f.Text != nil, f.Texts != nil, f.Int != nil, f.Ints != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("filter %s on %s has %d values, want 1", f.Operator, strings.Join(f.Path, "."), n)
	}
	return nil
}

// rest returns the REST (JSON) form of the filter.
func (f Filter) rest() (map[string]any, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	return f.restUnchecked(), nil
}

func (f Filter) restUnchecked() map[string]any {
	m := map[string]any{"operator": f.Operator}
	if len(f.Operands) > 0 {
		ops := make([]any, len(f.Operands))
		for i, o := range f.Operands {
			ops[i] = o.restUnchecked()
		}
		m["operands"] = ops
		return m
	}
	m["path"] = f.Path
	switch {
	case f.Text != nil:
		m["valueText"] = *f.Text
	case f.Texts != nil:
		m["valueTextArray"] = f.Texts
	case f.Int != nil:
		m["valueInt"] = *f.Int
	case f.Ints != nil:
		m["valueIntArray"] = f.Ints
	}
	return m
}

// graphql appends the GraphQL input-object form of the filter to b.
func (f Filter) graphql(b []byte) ([]byte, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	return f.graphqlUnchecked(b), nil
}

func (f Filter) graphqlUnchecked(b []byte) []byte {
	b = append(b, "{operator:"...)
	b = append(b, f.Operator...)
	if len(f.Operands) > 0 {
		b = append(b, ",operands:["...)
		for i, o := range f.Operands {
			if i > 0 {
				b = append(b, ',')
			}
			b = o.graphqlUnchecked(b)
		}
		return append(b, "]}"...)
	}
	b = append(b, ",path:"...)
	b = appendStrings(b, f.Path)
	switch {
	case f.Text != nil:
		b = append(b, ",valueText:"...)
		b = appendQuoted(b, *f.Text)
	case f.Texts != nil: // GraphQL takes a list where REST has valueTextArray
		b = append(b, ",valueText:"...)
		b = appendStrings(b, f.Texts)
	case f.Int != nil:
		b = append(b, ",valueInt:"...)
		b = strconv.AppendInt(b, *f.Int, 10)
	case f.Ints != nil:
		b = append(b, ",valueInt:["...)
		for i, n := range f.Ints {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, n, 10)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendQuoted appends s to b as a GraphQL string literal. GraphQL's
// string escapes (\" \\ \/ \b \f \n \r \t \uXXXX) are a superset of what
// encoding/json writes for a string, and json escapes every control
// character, replaces invalid UTF-8 with U+FFFD and escapes U+2028 and
// U+2029, so its output is a valid GraphQL literal that decodes to s
// (with invalid bytes replaced).
func appendQuoted(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

// quote returns s as a GraphQL string literal; see [appendQuoted].
func quote(s string) string { return string(appendQuoted(nil, s)) }

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(b, s)
	}
	return append(b, ']')
}

// appendVector appends v as a GraphQL list of floats, each in the
// shortest form that reads back as the same float32. NaN and infinities
// have no GraphQL form and are an error.
func appendVector(b []byte, v []float32) ([]byte, error) {
	b = append(b, '[')
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("vector component %d is %v", i, x)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return append(b, ']'), nil
}
