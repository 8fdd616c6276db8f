package config

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/ctx-dev/ctx/internal/tomltext"
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

var errSyntax = errors.New("not TOML this editor can change")

// scanStatements splits src into statements ([tomltext.Scan]), each key
// with its full path and marked when it lies under an array of tables.
// What the scanner cannot follow is errSyntax (the caller has already had
// the TOML library read the file).
func scanStatements(src []byte) ([]stmt, error) {
	ts, err := tomltext.Scan(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errSyntax, err)
	}
	out := make([]stmt, len(ts))
	var table []string
	array := false
	for i, t := range ts {
		st := stmt{header: t.Header, arrayTable: t.Array || !t.Header && array, start: t.Start, end: t.End, valStart: t.ValStart, valEnd: t.ValEnd}
		if t.Header {
			table, array, st.path = t.Key, t.Array, t.Key
		} else {
			st.path = append(slices.Clone(table), t.Key...)
		}
		out[i] = st
	}
	return out, nil
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
	line := tomltext.Key(name) + " = " + lit + "\n"
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
			b.WriteString("[" + tomltext.Key(table...) + "]\n" + line)
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

// describeEditErr words a failed edit for the user.
func describeEditErr(path string, err error) error {
	if errors.Is(err, errSyntax) {
		return fmt.Errorf("%s uses TOML that ctx does not edit (an inline table or array of tables holding its settings); edit it by hand", path)
	}
	return err
}
