package config

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The settings files are edited as text, one statement at a time, so that
// everything else in them (comments, order, blank lines, workspaces) stays
// as the user wrote it: the TOML library reads files but writes only whole
// documents, without comments. Every edit is read back by the library and
// checked before it is written.

// stmt is one statement of a TOML document: a table header or a
// key = value line.
type stmt struct {
	header bool
	// arrayTable marks [[x]] and the keys under it, which the editor
	// never changes.
	arrayTable bool
	// path is a header's table, or a key's full path (its table's path
	// and the key's parts).
	path []string
	// start is the offset of the statement's line; end is past the end of
	// its last line (its newline included).
	start, end int
	// valStart and valEnd delimit a key's value.
	valStart, valEnd int
}

type scanner struct {
	src []byte
	i   int
}

var errSyntax = errors.New("not TOML this editor can change")

// scanStatements splits src into statements. It accepts what it needs
// for the settings files; anything else is errSyntax (the caller has
// already had the TOML library read the file).
func scanStatements(src []byte) ([]stmt, error) {
	sc := &scanner{src: src}
	var out []stmt
	var table []string
	array := false
	for {
		sc.skipBlank(true)
		if sc.i >= len(src) {
			return out, nil
		}
		st := stmt{start: bytes.LastIndexByte(src[:sc.i], '\n') + 1}
		if src[sc.i] == '[' {
			st.header = true
			st.arrayTable = sc.i+1 < len(src) && src[sc.i+1] == '['
			sc.i++
			if st.arrayTable {
				sc.i++
			}
			key, err := sc.key()
			if err != nil {
				return nil, err
			}
			closing := "]"
			if st.arrayTable {
				closing = "]]"
			}
			if !bytes.HasPrefix(src[sc.i:], []byte(closing)) {
				return nil, errSyntax
			}
			sc.i += len(closing)
			table, array, st.path = key, st.arrayTable, key
		} else {
			key, err := sc.key()
			if err != nil {
				return nil, err
			}
			if sc.i >= len(src) || src[sc.i] != '=' {
				return nil, errSyntax
			}
			sc.i++
			sc.skipSpace()
			st.valStart = sc.i
			if err := sc.value(); err != nil {
				return nil, err
			}
			st.valEnd = sc.i
			st.path = append(slices.Clone(table), key...)
			st.arrayTable = array
		}
		sc.skipSpace()
		if sc.i < len(src) && src[sc.i] == '#' {
			sc.skipComment()
		}
		if sc.i < len(src) && src[sc.i] == '\r' {
			sc.i++
		}
		if sc.i < len(src) {
			if src[sc.i] != '\n' {
				return nil, errSyntax
			}
			sc.i++
		}
		st.end = sc.i
		out = append(out, st)
	}
}

func (sc *scanner) skipSpace() {
	for sc.i < len(sc.src) && (sc.src[sc.i] == ' ' || sc.src[sc.i] == '\t') {
		sc.i++
	}
}

func (sc *scanner) skipComment() {
	for sc.i < len(sc.src) && sc.src[sc.i] != '\n' {
		sc.i++
	}
}

// skipBlank skips spaces, and newlines and comments when lines is set.
func (sc *scanner) skipBlank(lines bool) {
	for sc.i < len(sc.src) {
		switch sc.src[sc.i] {
		case ' ', '\t':
			sc.i++
		case '\r', '\n':
			if !lines {
				return
			}
			sc.i++
		case '#':
			if !lines {
				return
			}
			sc.skipComment()
		default:
			return
		}
	}
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+`)

// key reads a dotted key and the spaces after it.
func (sc *scanner) key() ([]string, error) {
	var parts []string
	for {
		sc.skipSpace()
		if sc.i >= len(sc.src) {
			return nil, errSyntax
		}
		switch sc.src[sc.i] {
		case '"':
			j := sc.i + 1
			for j < len(sc.src) && sc.src[j] != '"' && sc.src[j] != '\n' {
				if sc.src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(sc.src) || sc.src[j] != '"' {
				return nil, errSyntax
			}
			s, err := strconv.Unquote(string(sc.src[sc.i : j+1]))
			if err != nil {
				s = string(sc.src[sc.i+1 : j])
			}
			parts = append(parts, s)
			sc.i = j + 1
		case '\'':
			j := bytes.IndexAny(sc.src[sc.i+1:], "'\n")
			if j < 0 || sc.src[sc.i+1+j] != '\'' {
				return nil, errSyntax
			}
			parts = append(parts, string(sc.src[sc.i+1:sc.i+1+j]))
			sc.i += j + 2
		default:
			m := bareKey.Find(sc.src[sc.i:])
			if m == nil {
				return nil, errSyntax
			}
			parts = append(parts, string(m))
			sc.i += len(m)
		}
		sc.skipSpace()
		if sc.i < len(sc.src) && sc.src[sc.i] == '.' {
			sc.i++
			continue
		}
		return parts, nil
	}
}

// value skips one value: a string of any of the four forms, an array, an
// inline table, or a bare scalar (number, bool, date).
func (sc *scanner) value() error {
	src := sc.src
	if sc.i >= len(src) {
		return errSyntax
	}
	switch {
	case bytes.HasPrefix(src[sc.i:], []byte(`"""`)), bytes.HasPrefix(src[sc.i:], []byte(`'''`)):
		delim := src[sc.i : sc.i+3]
		escapes := delim[0] == '"'
		j := sc.i + 3
		for {
			if j >= len(src) {
				return errSyntax
			}
			if escapes && src[j] == '\\' {
				j += 2
				continue
			}
			if bytes.HasPrefix(src[j:], delim) {
				j += 3
				// Up to two quotes right before the delimiter belong to
				// the string.
				for k := 0; k < 2 && j < len(src) && src[j] == delim[0]; k++ {
					j++
				}
				sc.i = j
				return nil
			}
			j++
		}
	case src[sc.i] == '"':
		j := sc.i + 1
		for j < len(src) && src[j] != '"' && src[j] != '\n' {
			if src[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(src) || src[j] != '"' {
			return errSyntax
		}
		sc.i = j + 1
		return nil
	case src[sc.i] == '\'':
		j := bytes.IndexAny(src[sc.i+1:], "'\n")
		if j < 0 || src[sc.i+1+j] != '\'' {
			return errSyntax
		}
		sc.i += j + 2
		return nil
	case src[sc.i] == '[':
		sc.i++
		for {
			sc.skipBlank(true)
			if sc.i >= len(src) {
				return errSyntax
			}
			switch src[sc.i] {
			case ']':
				sc.i++
				return nil
			case ',':
				sc.i++
				continue
			}
			if err := sc.value(); err != nil {
				return err
			}
		}
	case src[sc.i] == '{':
		sc.i++
		for {
			sc.skipBlank(true)
			if sc.i >= len(src) {
				return errSyntax
			}
			switch src[sc.i] {
			case '}':
				sc.i++
				return nil
			case ',':
				sc.i++
				continue
			}
			if _, err := sc.key(); err != nil {
				return err
			}
			if sc.i >= len(src) || src[sc.i] != '=' {
				return errSyntax
			}
			sc.i++
			sc.skipSpace()
			if err := sc.value(); err != nil {
				return err
			}
		}
	}
	start := sc.i
	for sc.i < len(src) && !strings.ContainsRune("\r\n#,]}", rune(src[sc.i])) {
		sc.i++
	}
	for sc.i > start && (src[sc.i-1] == ' ' || src[sc.i-1] == '\t') {
		sc.i--
	}
	if sc.i == start {
		return errSyntax
	}
	return nil
}

// setText returns src with the key at path set to the TOML literal lit:
// its value replaced where it is set, else a line added to its table (the
// table added at the end when the file has none).
func setText(src []byte, path []string, lit string) ([]byte, error) {
	stmts, err := scanStatements(src)
	if err != nil {
		return nil, err
	}
	if i := findKey(stmts, path); i >= 0 {
		st := stmts[i]
		return splice(src, st.valStart, st.valEnd, lit), nil
	}
	table, name := path[:len(path)-1], path[len(path)-1]
	line := keyText([]string{name}) + " = " + lit + "\n"
	at := -1
	if len(table) == 0 {
		// Top-level keys go after the last one, else before the first
		// table and the comments right above it.
		for _, st := range stmts {
			if st.header {
				break
			}
			at = st.end
		}
		if at < 0 {
			for _, st := range stmts {
				if st.header {
					at = commentsAbove(src, st.start)
					line += "\n"
					break
				}
			}
		}
	} else {
		for i, st := range stmts {
			if !st.header || st.arrayTable || !slices.Equal(st.path, table) {
				continue
			}
			at = st.end
			for _, kv := range stmts[i+1:] {
				if kv.header {
					break
				}
				at = kv.end
			}
			break
		}
		if at < 0 {
			var b bytes.Buffer
			b.Write(src)
			if len(src) > 0 {
				if src[len(src)-1] != '\n' {
					b.WriteByte('\n')
				}
				b.WriteByte('\n')
			}
			b.WriteString("[" + keyText(table) + "]\n" + line)
			return b.Bytes(), nil
		}
	}
	if at < 0 {
		at = len(src)
	}
	if at > 0 && src[at-1] != '\n' {
		line = "\n" + line
	}
	return splice(src, at, at, line), nil
}

// unsetText returns src without the key at path (its whole line, or
// lines), and whether it was there.
func unsetText(src []byte, path []string) ([]byte, bool, error) {
	stmts, err := scanStatements(src)
	if err != nil {
		return nil, false, err
	}
	i := findKey(stmts, path)
	if i < 0 {
		return src, false, nil
	}
	return splice(src, stmts[i].start, stmts[i].end, ""), true, nil
}

// findKey returns the index of the statement that sets path, or -1.
func findKey(stmts []stmt, path []string) int {
	for i, st := range stmts {
		if !st.header && !st.arrayTable && slices.Equal(st.path, path) {
			return i
		}
	}
	return -1
}

// commentsAbove returns the start of the comment lines right above the
// line at off, which belong to it; off itself when there are none, or
// when they open the file (a comment about the whole file).
func commentsAbove(src []byte, off int) int {
	at := off
	for at > 0 {
		prev := bytes.LastIndexByte(src[:at-1], '\n') + 1
		if !bytes.HasPrefix(bytes.TrimLeft(src[prev:at], " \t"), []byte("#")) {
			return at
		}
		at = prev
	}
	return off
}

func splice(src []byte, from, to int, with string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(with))
	out = append(out, src[:from]...)
	out = append(out, with...)
	return append(out, src[to:]...)
}

// keyText writes a dotted key, quoting the parts that are not bare.
func keyText(parts []string) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		if m := bareKey.FindString(p); m == p && p != "" {
			out[i] = p
		} else {
			out[i] = strconv.Quote(p)
		}
	}
	return strings.Join(out, ".")
}

// describeEditErr words a failed edit for the user.
func describeEditErr(path string, err error) error {
	if errors.Is(err, errSyntax) {
		return fmt.Errorf("%s uses TOML that ctx does not edit (an inline table or array of tables holding its settings); edit it by hand", path)
	}
	return err
}
