package config

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Kind is the type of a setting's value. Each kind reads the text of an
// environment variable, a flag or `ctx config set`, reads a TOML value from
// a file, and writes both back.
type Kind int

// The kinds of settings. The Go type each holds is given in brackets.
const (
	// KindString is text [string]; an enum when [Setting.Values] is set.
	KindString Kind = iota
	// KindBool is true or false [bool]; the text form takes what
	// strconv.ParseBool takes (1, t, true, 0, f, false, …).
	KindBool
	// KindInt is a decimal integer [int].
	KindInt
	// KindBytes is a byte count [int64]: an integer, or one with a KiB,
	// MiB or GiB suffix ("1MiB").
	KindBytes
	// KindDuration is a Go duration such as "300ms" or "2s"
	// [time.Duration]; a TOML string in files.
	KindDuration
	// KindUSD is an amount in US dollars [float64].
	KindUSD
	// KindList is a list of strings [[]string]: comma-separated in text,
	// a TOML array of strings (or one comma-separated string) in files.
	KindList
	// KindPrices is a price table [map[string]Price] written
	// "model=in/out[/request],…" everywhere (see [ParsePrices]).
	KindPrices
)

// String names the kind as the settings table in README shows it.
func (k Kind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindBool:
		return "bool"
	case KindInt:
		return "integer"
	case KindBytes:
		return "bytes"
	case KindDuration:
		return "duration"
	case KindUSD:
		return "USD"
	case KindList:
		return "list"
	case KindPrices:
		return "prices"
	}
	return "unknown"
}

// errWant marks a value of the wrong form: the setting's Want phrase says
// what is wanted, and the caller names the value.
type errWant struct{}

func (errWant) Error() string { return "bad value" }

// parseText reads the text form of a value (an environment variable, a
// flag, `ctx config set`). An error is errWant, or one that describes the
// problem itself (a bad price entry).
func (k Kind) parseText(s string) (any, error) {
	switch k {
	case KindString:
		return s, nil
	case KindBool:
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return nil, errWant{}
		}
		return b, nil
	case KindInt:
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, errWant{}
		}
		return n, nil
	case KindBytes:
		return parseBytes(s)
	case KindDuration:
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return nil, errWant{}
		}
		return d, nil
	case KindUSD:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, errWant{}
		}
		return f, nil
	case KindList:
		var out []string
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	case KindPrices:
		return ParsePrices(s)
	}
	return nil, fmt.Errorf("unknown kind %d", k)
}

// parseTOML reads a value decoded from a TOML file (string, int64,
// float64, bool, []any, …).
func (k Kind) parseTOML(raw any) (any, error) {
	switch k {
	case KindString, KindPrices:
		s, ok := raw.(string)
		if !ok {
			return nil, errWant{}
		}
		return k.parseText(s)
	case KindBool:
		b, ok := raw.(bool)
		if !ok {
			return nil, errWant{}
		}
		return b, nil
	case KindInt:
		n, ok := raw.(int64)
		if !ok || n > math.MaxInt || n < math.MinInt {
			return nil, errWant{}
		}
		return int(n), nil
	case KindBytes:
		switch v := raw.(type) {
		case int64:
			return v, nil
		case string:
			return parseBytes(v)
		}
		return nil, errWant{}
	case KindDuration:
		s, ok := raw.(string)
		if !ok {
			return nil, errWant{}
		}
		return k.parseText(s)
	case KindUSD:
		switch v := raw.(type) {
		case float64:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, errWant{}
			}
			return v, nil
		case int64:
			return float64(v), nil
		}
		return nil, errWant{}
	case KindList:
		switch v := raw.(type) {
		case string:
			return k.parseText(v)
		case []any:
			out := make([]string, 0, len(v))
			for _, e := range v {
				s, ok := e.(string)
				if !ok {
					return nil, errWant{}
				}
				if s = strings.TrimSpace(s); s != "" {
					out = append(out, s)
				}
			}
			return out, nil
		}
		return nil, errWant{}
	}
	return nil, fmt.Errorf("unknown kind %d", k)
}

// formatText writes v in the text form parseText reads back.
func (k Kind) formatText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		if k == KindBytes {
			return formatBytes(x)
		}
		return strconv.FormatInt(x, 10)
	case time.Duration:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []string:
		return strings.Join(x, ",")
	case map[string]Price:
		return FormatPrices(x)
	}
	return fmt.Sprint(v)
}

// formatTOML writes v as a TOML value literal for a file.
func (k Kind) formatTOML(v any) (string, error) {
	switch x := v.(type) {
	case time.Duration:
		v = x.String()
	case int64:
		if t := formatBytes(x); k == KindBytes && t != strconv.FormatInt(x, 10) {
			v = t
		}
	case map[string]Price:
		v = FormatPrices(x)
	case []string:
		if x == nil {
			v = []string{}
		}
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(map[string]any{"v": v}); err != nil {
		return "", err
	}
	_, lit, ok := strings.Cut(strings.TrimSpace(b.String()), "=")
	if !ok {
		return "", fmt.Errorf("encoding %v", v)
	}
	return strings.TrimSpace(lit), nil
}

// formatTOMLRaw writes a value decoded from a TOML file for an error
// message: strings quoted, other values as TOML writes them.
func formatTOMLRaw(raw any) string {
	if s, ok := raw.(string); ok {
		return strconv.Quote(s)
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(map[string]any{"v": raw}); err != nil {
		return fmt.Sprint(raw)
	}
	_, lit, _ := strings.Cut(strings.TrimSpace(b.String()), "=")
	return strings.TrimSpace(lit)
}

var byteUnits = []struct {
	suffix string
	n      int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

// parseBytes reads a byte count: an integer, or one followed by KiB, MiB
// or GiB. Decimal units (k, MB) are refused as ambiguous.
func parseBytes(s string) (any, error) {
	s = strings.TrimSpace(s)
	mul := int64(1)
	for _, u := range byteUnits {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mul = strings.TrimSpace(rest), u.n
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > math.MaxInt64/mul || n < math.MinInt64/mul {
		return nil, errWant{}
	}
	return n * mul, nil
}

// formatBytes writes a byte count with the largest binary unit that
// divides it ("2MiB"), else as an integer.
func formatBytes(n int64) string {
	for _, u := range byteUnits {
		if n != 0 && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// FormatPrices writes a price table in the syntax [ParsePrices] reads,
// models sorted by name.
func FormatPrices(p map[string]Price) string {
	names := make([]string, 0, len(p))
	for m := range p {
		names = append(names, m)
	}
	slices.Sort(names)
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	parts := make([]string, 0, len(names))
	for _, m := range names {
		pr := p[m]
		s := m + "=" + f(pr.InPerMTok) + "/" + f(pr.OutPerMTok)
		if pr.PerRequest != 0 {
			s += "/" + f(pr.PerRequest)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ",")
}

// number returns a numeric value as a float64, for range checks.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case time.Duration:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
