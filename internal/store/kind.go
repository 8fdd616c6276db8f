package store

import (
	"fmt"
	"strconv"
	"strings"
)

// Chunk and name kinds are stored as small integer codes (schema 13):
// the kind column of chunks and names holds kindCodes' index of a kind
// it lists, and the kind's text for any other. SQLite stores 0 and 1 in
// the row header alone and the other codes in one byte, where the text
// took 5 to 9 (0.69 MB of the Go standard library's chunks table).
//
// kindCodes is append-only: a code names the same kind in every index of
// this schema. The order is by frequency on the Go standard library's
// index, so the commonest kinds take no byte at all.
var kindCodes = [...]string{
	"function", "method", "block", "var", "struct", "window", "const", "type",
	"interface", "section", "macro", "class", "enum", "trait", "impl", "module",
}

// kindCode maps a kind to its code.
var kindCode = func() map[string]int64 {
	m := make(map[string]int64, len(kindCodes))
	for i, k := range kindCodes {
		m[k] = int64(i)
	}
	return m
}()

// kindArg is the value the kind column stores for kind: its code, or the
// text of a kind without one.
func kindArg(kind string) any {
	if c, ok := kindCode[kind]; ok {
		return c
	}
	return kind
}

// kindArgs is kindArg of each of kinds, for an IN list.
func kindArgs(kinds []string) []any {
	out := make([]any, len(kinds))
	for i, k := range kinds {
		out[i] = kindArg(k)
	}
	return out
}

// kindOf returns the kind a kind column value names.
func kindOf(v any) (string, error) {
	switch v := v.(type) {
	case int64:
		if v >= 0 && v < int64(len(kindCodes)) {
			return kindCodes[v], nil
		}
		return "", fmt.Errorf("%w: unknown kind code %d", ErrCorrupt, v)
	case string:
		return v, nil
	case []byte:
		return string(v), nil
	case nil:
		return "", nil
	}
	return "", fmt.Errorf("%w: kind of type %T", ErrCorrupt, v)
}

// kindScan scans a kind column into the string it points to.
type kindScan struct{ dst *string }

// Scan implements sql.Scanner.
func (k kindScan) Scan(src any) error {
	s, err := kindOf(src)
	*k.dst = s
	return err
}

// kindCaseSQL is an SQL expression giving the code of the kind text in
// column col, or the text itself for a kind without a code (migration 12).
func kindCaseSQL(col string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for i, k := range kindCodes {
		b.WriteString(" WHEN '" + k + "' THEN " + strconv.Itoa(i))
	}
	b.WriteString(" ELSE " + col + " END")
	return b.String()
}

// summaryArg is the value the summary column of chunks stores for chunk
// j of cs, the chunks of one file, written with consecutive ids: NULL
// when it is part p > 1 of a split definition whose parts 1..p are
// cs[j-p+1..j] and whose first part has the same summary (the split
// parts of the Go standard library repeat it: 0.45 MB), read back as
// the summary of the chunk with id c.id - c.part + 1 (summarySQL); else
// its summary.
func summaryArg(cs []Chunk, j int) any {
	c := &cs[j]
	p := c.Part
	if p < 2 || j-(p-1) < 0 {
		return c.Summary
	}
	for k := 1; k < p; k++ {
		if cs[j-k].Part != p-k {
			return c.Summary
		}
	}
	if cs[j-p+1].Summary != c.Summary {
		return c.Summary
	}
	return nil
}

// summarySQL is the SQL expression of the summary of a chunk of the
// chunks table named c (see summaryArg).
const summarySQL = `coalesce(c.summary, (SELECT s.summary FROM chunks s WHERE s.id = c.id - c.part + 1))`

// symbolArg is the value the symbol column of chunks stores for a chunk
// of symbol sym and name: NULL when they are equal (read back as
// coalesce(symbol, name)), else sym.
func symbolArg(sym, name string) any {
	if sym == name {
		return nil
	}
	return sym
}
