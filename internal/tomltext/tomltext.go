// Package tomltext finds the statements of a TOML document in its text:
// each table header and key/value line with the byte offsets of its line
// and its value, so a file can be edited in place and keep its comments,
// order and blank lines (a TOML library reads whole documents and writes
// them anew, without comments). It also writes keys and strings as TOML
// spells them. Checking that an edit is valid TOML is the caller's, with a
// library, before and after.
package tomltext

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Key writes a dotted key, each part bare when TOML allows it, else quoted.
func Key(parts ...string) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		if p != "" && strings.Trim(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == "" {
			out[i] = p
		} else {
			out[i] = String(p)
		}
	}
	return strings.Join(out, ".")
}

// String encodes s as a TOML basic string.
func String(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Stmt is one header or key/value statement of a TOML document. Offsets
// are byte offsets into the document, 0-based.
type Stmt struct {
	Header bool // [table] or [[array]]
	Array  bool // [[array]]
	// Key is a header's table, or a key/value statement's key as written
	// (relative to its table), split into its dotted parts, unquoted.
	Key []string
	// Start is the offset of the statement's line; End is just after its
	// line ending (or the end of the document), past every line of a
	// multi-line value.
	Start, End int
	// ValStart and ValEnd delimit a key/value statement's value.
	ValStart, ValEnd int
}

// scanTOML splits doc into headers and key/value statements, far enough to
// know which table each key belongs to and where values start and end:
// strings of all four kinds, multi-line arrays and inline tables, comments.
// It checks little else; the library does that before and after the edit.
func Scan(doc []byte) ([]Stmt, error) {
	var out []Stmt
	i := 0
	for i < len(doc) {
		start := i
		i = skipBlank(doc, i)
		if i >= len(doc) {
			break
		}
		switch doc[i] {
		case '\n':
			i++
			continue
		case '\r', '#':
			j, err := endLine(doc, i)
			if err != nil {
				return nil, err
			}
			i = j
			continue
		}
		s := Stmt{Start: start}
		var err error
		if doc[i] == '[' {
			s.Header = true
			i++
			if i < len(doc) && doc[i] == '[' {
				s.Array = true
				i++
			}
			if s.Key, i, err = scanKey(doc, i); err != nil {
				return nil, err
			}
			close := "]"
			if s.Array {
				close = "]]"
			}
			if !bytes.HasPrefix(doc[i:], []byte(close)) {
				return nil, syntaxErr(doc, i, "header without "+close)
			}
			i += len(close)
		} else {
			if s.Key, i, err = scanKey(doc, i); err != nil {
				return nil, err
			}
			if i >= len(doc) || doc[i] != '=' {
				return nil, syntaxErr(doc, i, "key without '='")
			}
			s.ValStart = skipBlank(doc, i+1)
			if s.ValEnd, err = skipValue(doc, s.ValStart); err != nil {
				return nil, err
			}
			i = s.ValEnd
		}
		if s.End, err = endLine(doc, i); err != nil {
			return nil, err
		}
		i = s.End
		out = append(out, s)
	}
	return out, nil
}

// syntaxErr is an error at offset off of doc, naming its line.
func syntaxErr(doc []byte, off int, msg string) error {
	line := 1 + bytes.Count(doc[:min(off, len(doc))], []byte("\n"))
	return fmt.Errorf("line %d: %s", line, msg)
}

func skipBlank(doc []byte, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t') {
		i++
	}
	return i
}

// endLine skips blanks and a comment and returns the offset after the
// line ending.
func endLine(doc []byte, i int) (int, error) {
	i = skipBlank(doc, i)
	if i < len(doc) && doc[i] == '#' {
		for i < len(doc) && doc[i] != '\n' && doc[i] != '\r' {
			i++
		}
	}
	switch {
	case i >= len(doc):
		return i, nil
	case doc[i] == '\n':
		return i + 1, nil
	case doc[i] == '\r' && i+1 < len(doc) && doc[i+1] == '\n':
		return i + 2, nil
	}
	return 0, syntaxErr(doc, i, fmt.Sprintf("unexpected %q", doc[i]))
}

// scanKey reads a dotted key of bare and quoted parts and the blanks
// after it.
func scanKey(doc []byte, i int) ([]string, int, error) {
	var key []string
	for {
		i = skipBlank(doc, i)
		if i >= len(doc) {
			return nil, i, syntaxErr(doc, i, "key expected")
		}
		switch doc[i] {
		case '"', '\'':
			j, err := skipString(doc, i)
			if err != nil {
				return nil, i, err
			}
			part := string(doc[i+1 : j-1])
			if doc[i] == '"' {
				if part, err = strconv.Unquote(string(doc[i:j])); err != nil {
					return nil, i, syntaxErr(doc, i, "quoted key: "+err.Error())
				}
			}
			key = append(key, part)
			i = j
		default:
			j := i
			for j < len(doc) && (doc[j] == '_' || doc[j] == '-' || '0' <= doc[j] && doc[j] <= '9' || 'a' <= doc[j]|0x20 && doc[j]|0x20 <= 'z') {
				j++
			}
			if j == i {
				return nil, i, syntaxErr(doc, i, fmt.Sprintf("unexpected %q in a key", doc[i]))
			}
			key = append(key, string(doc[i:j]))
			i = j
		}
		i = skipBlank(doc, i)
		if i >= len(doc) || doc[i] != '.' {
			return key, i, nil
		}
		i++
	}
}

// skipString returns the offset after the string that opens at doc[i]:
// basic or literal, single- or multi-line.
func skipString(doc []byte, i int) (int, error) {
	q := doc[i]
	triple := bytes.Repeat([]byte{q}, 3)
	if bytes.HasPrefix(doc[i:], triple) {
		for j := i + 3; j < len(doc); j++ {
			if q == '"' && doc[j] == '\\' {
				j++
				continue
			}
			if bytes.HasPrefix(doc[j:], triple) {
				j += 3
				// Up to two quotes may end the content right before the
				// closing delimiter.
				for k := 0; k < 2 && j < len(doc) && doc[j] == q; k++ {
					j++
				}
				return j, nil
			}
		}
		return 0, syntaxErr(doc, i, "unterminated multi-line string")
	}
	for j := i + 1; j < len(doc); j++ {
		switch {
		case q == '"' && doc[j] == '\\':
			j++
		case doc[j] == q:
			return j + 1, nil
		case doc[j] == '\n':
			return 0, syntaxErr(doc, i, "unterminated string")
		}
	}
	return 0, syntaxErr(doc, i, "unterminated string")
}

// skipValue returns the offset after the value that starts at doc[i]
// on a key/value line.
func skipValue(doc []byte, i int) (int, error) {
	if i >= len(doc) {
		return 0, syntaxErr(doc, i, "value expected")
	}
	switch doc[i] {
	case '"', '\'':
		return skipString(doc, i)
	case '[', '{':
		depth := 0
		for j := i; j < len(doc); j++ {
			switch doc[j] {
			case '"', '\'':
				k, err := skipString(doc, j)
				if err != nil {
					return 0, err
				}
				j = k - 1
			case '#':
				for j < len(doc) && doc[j] != '\n' {
					j++
				}
			case '[', '{':
				depth++
			case ']', '}':
				if depth--; depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, syntaxErr(doc, i, "unterminated array or inline table")
	}
	// A number, boolean or date-time, which may hold a space
	// (1979-05-27 07:32:00): the rest of the line up to a comment.
	j := i
	for j < len(doc) && doc[j] != '#' && doc[j] != '\n' && doc[j] != '\r' {
		j++
	}
	for j > i && (doc[j-1] == ' ' || doc[j-1] == '\t') {
		j--
	}
	if j == i {
		return 0, syntaxErr(doc, i, "value expected")
	}
	// None of these holds a comma or a closing bracket: one there is a
	// stray ("a = 1 ]").
	if k := bytes.IndexAny(doc[i:j], ",]}"); k >= 0 {
		return 0, syntaxErr(doc, i+k, fmt.Sprintf("unexpected %q after a value", doc[i+k]))
	}
	return j, nil
}
