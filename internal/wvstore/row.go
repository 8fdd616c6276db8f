package wvstore

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/store"
)

// rowProp is the chunk property holding what the search reads of a chunk
// (a [store.ChunkRow] and its file's content hash) packed into one
// string, neither searchable nor filterable. Weaviate's GraphQL resolves
// each returned property of each hit on its own: on the Go standard
// library a BM25 top 200 asking for the 17 row properties cost the
// server about twice as much as asking for one, and decoding 17 JSON
// fields per hit cost ctx as much again.
//
// The text is rowFields in order, separated by tabs; numbers in decimal,
// and in text fields '\\', tab and newline are written "\\\\", "\\t" and
// "\\n".
const rowProp = "row"

// rowFields are the fields of rowProp, in order.
var rowFields = [...]string{"chunkId", "fileId", "path", "language", "kind", "symbol", "name", "breadcrumb", "summary",
	"startLine", "endLine", "startByte", "endByte", "part", "fileSize", "fileTime", "fileHash"}

// encodeRow returns the rowProp text of r, whose file has the content
// hash fileHash (hex SHA-256).
func encodeRow(r *store.ChunkRow, fileHash string) string {
	var b strings.Builder
	b.Grow(64 + len(r.Path) + len(r.Symbol) + len(r.Name) + len(r.Breadcrumb) + len(r.Summary) + len(fileHash))
	num := func(n int64) {
		b.WriteString(strconv.FormatInt(n, 10))
		b.WriteByte('\t')
	}
	text := func(s string) {
		if strings.ContainsAny(s, "\\\t\n") {
			s = rowEscaper.Replace(s)
		}
		b.WriteString(s)
		b.WriteByte('\t')
	}
	num(r.ID)
	num(r.FileID)
	for _, s := range [...]string{r.Path, r.Language, r.Kind, r.Symbol, r.Name, r.Breadcrumb, r.Summary} {
		text(s)
	}
	for _, n := range [...]int64{int64(r.StartLine), int64(r.EndLine), int64(r.StartByte), int64(r.EndByte), int64(r.Part), r.FileSize, r.FileTime} {
		num(n)
	}
	b.WriteString(fileHash) // hex: nothing to escape
	return b.String()
}

var (
	rowEscaper   = strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`)
	rowUnescaper = strings.NewReplacer(`\\`, "\\", `\t`, "\t", `\n`, "\n")
)

// decodeRow fills r from a rowProp text and returns the file's content
// hash. Errors name the field that does not parse, or the count when
// fields are missing.
func decodeRow(s string, r *store.ChunkRow) (string, error) {
	var f [len(rowFields)]string
	n := 0
	for n < len(f)-1 {
		i := strings.IndexByte(s, '\t')
		if i < 0 {
			break
		}
		f[n], s = s[:i], s[i+1:]
		n++
	}
	f[n] = s
	if n != len(f)-1 {
		return "", fmt.Errorf("row has %d fields, want %d", n+1, len(f))
	}
	for _, i := range [...]int{2, 3, 4, 5, 6, 7, 8} {
		if strings.IndexByte(f[i], '\\') >= 0 {
			f[i] = rowUnescaper.Replace(f[i])
		}
	}
	var ints [len(rowFields)]int64
	for _, i := range [...]int{0, 1, 9, 10, 11, 12, 13, 14, 15} {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return "", fmt.Errorf("row field %s: %q", rowFields[i], f[i])
		}
		ints[i] = v
	}
	*r = store.ChunkRow{
		Chunk: store.Chunk{
			ID: ints[0], FileID: ints[1], Kind: f[4], Symbol: f[5], Name: f[6], Breadcrumb: f[7], Summary: f[8],
			StartLine: int(ints[9]), EndLine: int(ints[10]), StartByte: int(ints[11]), EndByte: int(ints[12]), Part: int(ints[13]),
		},
		Path: f[2], Language: f[3], FileSize: ints[14], FileTime: ints[15],
	}
	return f[16], nil
}
