package wvstore

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/embed"
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
// "\\n". The last field, vector, is the chunk's stored embedding (the
// int8 blob of [embed.EncodeVector], 261 bytes for 256 dimensions) in
// unpadded standard base64, empty on a lexical-only index: a search scores
// its candidates against the query's embedding from the rows it already
// has, instead of a vector search restricted to them (one request fewer
// on a search's critical path; see [Source.Cosines]).
const rowProp = "row"

// rowFields are the fields of rowProp, in order.
var rowFields = [...]string{"chunkId", "fileId", "path", "language", "kind", "symbol", "name", "breadcrumb", "summary",
	"startLine", "endLine", "startByte", "endByte", "part", "fileSize", "fileTime", "fileHash", "vector"}

// encodeRow returns the rowProp text of r, whose file has the content
// hash fileHash (hex SHA-256) and whose stored embedding blob is vec (nil:
// none).
func encodeRow(r *store.ChunkRow, fileHash string, vec []byte) string {
	var b strings.Builder
	b.Grow(64 + len(r.Path) + len(r.Symbol) + len(r.Name) + len(r.Breadcrumb) + len(r.Summary) + len(fileHash) + base64.RawStdEncoding.EncodedLen(len(vec)))
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
	b.WriteByte('\t')
	b.WriteString(base64.RawStdEncoding.EncodeToString(vec)) // base64: nothing to escape
	return b.String()
}

var (
	rowEscaper   = strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`)
	rowUnescaper = strings.NewReplacer(`\\`, "\\", `\t`, "\t", `\n`, "\n")
)

// decodeRow fills r from a rowProp text and returns the file's content
// hash and the base64 text of the chunk's embedding blob ("" when none),
// left encoded: most rows a search reads are never scored by vector.
// Errors name the field that does not parse, or the count when fields are
// missing.
func decodeRow(s string, r *store.ChunkRow) (hash, vec string, err error) {
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
		return "", "", fmt.Errorf("row has %d fields, want %d", n+1, len(f))
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
			return "", "", fmt.Errorf("row field %s: %q", rowFields[i], f[i])
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
	return f[16], f[17], nil
}

// rowCosine returns q's similarity to the embedding of a row's vector
// field (its base64 text), computed as the local store computes it for an
// int8 row ([embed.DotInt8]; q being unit length, the cosine up to
// quantisation). buf is scratch for the decoded blob; the grown buffer
// comes back for the next call. Errors: base64, [embed.ErrBadVector], or
// a length other than q's.
func rowCosine(q []float32, text string, buf []byte) (float64, []byte, error) {
	n := base64.RawStdEncoding.DecodedLen(len(text))
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	n, err := base64.RawStdEncoding.Decode(buf[:n], []byte(text))
	if err != nil {
		return 0, buf, fmt.Errorf("row field vector: %w", err)
	}
	blob := buf[:n]
	if x, scale, ok := embed.Int8View(blob); ok {
		if len(x) != len(q) {
			return 0, buf, fmt.Errorf("row field vector: %d dimensions, the query %d", len(x), len(q))
		}
		return float64(embed.DotInt8(q, x, scale)), buf, nil
	}
	// The float32 form (a vector int8 cannot hold), or a bad blob.
	v, err := embed.DecodeVector(blob)
	if err != nil {
		return 0, buf, err
	}
	if len(v) != len(q) {
		return 0, buf, fmt.Errorf("row field vector: %d dimensions, the query %d", len(v), len(q))
	}
	return float64(embed.Dot(q, v)), buf, nil
}
