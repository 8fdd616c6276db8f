package config

import (
	"errors"
	"fmt"
	"strings"
)

// The settings table in README lies between these lines; `go generate
// ./internal/config` rewrites it from [Settings] (scripts/config-docs),
// and a test fails when it is out of date.
const (
	DocBegin = "<!-- settings table: generated from internal/config by `go generate ./internal/config`; do not edit -->"
	DocEnd   = "<!-- end of settings table -->"
)

// DocTable renders [Settings] as a Markdown table: key, variable, kind,
// default, where it may be set, and what it does.
func DocTable() string {
	var b strings.Builder
	b.WriteString("| key | variable | type | default | set in | meaning |\n|---|---|---|---|---|---|\n")
	for _, s := range settings {
		var where []string
		switch {
		case s.Secret:
			where = append(where, "env", "`ctx auth set "+s.AuthHint+"`")
		case s.Trust:
			where = append(where, "env", "user file", "project file once trusted")
		default:
			where = append(where, "env", "user file", "project file")
		}
		if s.Flag != "" {
			where = append(where, "`"+s.Flag+"`")
		}
		kind := s.Kind.String()
		if len(s.Values) > 0 {
			kind = strings.Join(nonEmpty(s.Values), ", ")
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s | %s |\n",
			s.Key, s.Env, cell(kind), cell(defaultDoc(s)), cell(strings.Join(where, ", ")), cell(s.Doc))
	}
	return b.String()
}

// defaultDoc is the default as the table shows it.
func defaultDoc(s *Setting) string {
	if s.DefaultDoc != "" {
		return s.DefaultDoc
	}
	c := Default()
	if t := s.Format(s.Get(&c)); t != "" {
		return "`" + t + "`"
	}
	return "—"
}

func nonEmpty(vals []string) []string {
	var out []string
	for _, v := range vals {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// cell escapes the pipes of a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// ErrNoDocTable is returned by [UpdateDoc] for a text without the
// table's marker lines.
var ErrNoDocTable = errors.New("no settings table markers")

// UpdateDoc returns text (README) with the lines between [DocBegin] and
// [DocEnd] replaced by [DocTable]. Errors: [ErrNoDocTable].
func UpdateDoc(text string) (string, error) {
	i := strings.Index(text, DocBegin+"\n")
	j := strings.Index(text, DocEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("%w (%q … %q)", ErrNoDocTable, DocBegin, DocEnd)
	}
	start := i + len(DocBegin) + 1
	return text[:start] + DocTable() + text[j:], nil
}
