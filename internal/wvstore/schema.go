// Package wvstore keeps a ctx index in Weaviate: the chunks of each
// repository as objects of one multi-tenant collection, a tenant per
// repository, with ctx's own vectors (vectorizer none) and ctx's own BM25
// terms. [Sync] writes a repository's local index into it; [Open] returns
// a [Source] that the search package reads like the local store, so
// recall candidates come from Weaviate's BM25 and vector search and
// ctx's fusion and ranking run on them unchanged.
//
// Why a tenant per repository rather than a repo filter in one sharded
// collection: a tenant is its own shard with its own inverted index, so
// BM25's statistics (N, document frequencies, average length) are the
// repository's own, exactly as in the local store, and one repository's
// vocabulary never shifts another's scores; a query reads one shard
// instead of filtering every shard; and removing a repository is
// dropping its tenant. Tenants spread over the cluster's nodes, each
// replicated Replicas times.
package wvstore

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/store"
	"github.com/ctx-dev/ctx/internal/weaviate"
)

// Collection names, after a Params.Prefix ("Ctx" by default): Chunk holds
// one object per chunk (with its vector), File one per indexed file (its
// content hash, for incremental updates), Index one per tenant (the index
// identity, generation and counts).
const (
	chunkClass = "Chunk"
	fileClass  = "File"
	indexClass = "Index"
)

// DefaultPrefix starts every collection name ctx creates.
const DefaultPrefix = "Ctx"

// termProps are the chunk properties holding ctx's analyzed BM25 terms,
// indexed by store.Col*: space-separated, tokenized by whitespace, so
// Weaviate's BM25F sees exactly the terms the local index holds.
var termProps = [store.NumColumns]string{
	store.ColName: "tName",
	store.ColPath: "tPath",
	store.ColDoc:  "tDoc",
	store.ColBody: "tBody",
}

// allProp holds every column's terms in one property, each repeated by
// its column's weight in allWeights: one BM25 over it weighs term
// frequencies by column and saturates them once, as the local index's
// BM25 does (store.BM25TermScore), where a query over the four column
// properties is four BM25 scores added up (Weaviate scores each property
// on its own) and costs four times the work. Only the document length
// differs: the weighted count of terms, not the plain one.
const allProp = "tAll"

// declLowerProp and declsProp hold the names declared inside a chunk
// that are not its own (an interface's methods, an enum's members, a Go
// const group's later entries): lower case, for [Source.DeclaredChunks]'
// filter, and as a JSON array of [declared].
const (
	declLowerProp = "declLower"
	declsProp     = "decls"
)

// allWeights are the column weights allProp bakes in: the search
// package's BM25 weights, recorded in the tenant's Info (a change
// rewrites the tenant). A query with other weights or a column mask
// searches the column properties.
var allWeights = search.ColumnWeights()

// weightedTerms returns the allProp text of a chunk's columns.
func weightedTerms(cols [store.NumColumns]string) string {
	var b strings.Builder
	for c, text := range cols {
		for range int(allWeights[c]) {
			if text == "" {
				break
			}
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(text)
		}
	}
	return b.String()
}

var (
	yes = new(true)
	no  = new(false)
)

func field(name string) weaviate.Property {
	return weaviate.Property{Name: name, DataType: "text", Tokenization: "field", Searchable: no}
}

func stored(name, typ string) weaviate.Property {
	p := weaviate.Property{Name: name, DataType: typ, Filterable: no}
	if typ == "text" {
		p.Searchable = no
	}
	return p
}

func classes(prefix string, replicas int) []weaviate.Class {
	chunk := weaviate.Class{
		Name: prefix + chunkClass, Description: "ctx: one chunk of a repository's code",
		MultiTenancy: true, Replicas: replicas,
		// ctx's query analysis drops its own stopwords and keeps the code
		// words English lists hold ("if", "not", "for"): Weaviate must not
		// drop more.
		Stopwords: "none",
		// The filters' properties, then the row the search reads
		// (rowProp); the terms follow.
		Properties: []weaviate.Property{
			field("chunkId"), field("fileId"), field("path"), field("nameLower"), stored(rowProp, "text"),
			// The names declared inside the chunk (store.Declared), lower
			// case for the filter and as declared.
			{Name: declLowerProp, DataType: "text[]", Tokenization: "field", Filterable: yes, Searchable: no},
			stored(declsProp, "text"),
		},
	}
	for _, p := range termProps {
		chunk.Properties = append(chunk.Properties, weaviate.Property{Name: p, DataType: "text", Tokenization: "whitespace", Searchable: yes, Filterable: yes})
	}
	chunk.Properties = append(chunk.Properties, weaviate.Property{Name: allProp, DataType: "text", Tokenization: "whitespace", Searchable: yes, Filterable: no})
	file := weaviate.Class{
		Name: prefix + fileClass, Description: "ctx: one indexed file of a repository",
		MultiTenancy: true, Replicas: replicas,
		Properties: []weaviate.Property{
			field("fileId"), field("path"), field("base"), field("language"), field("hash"),
			stored("size", "int"), stored("mtime", "text"), stored("chunks", "int"),
		},
	}
	index := weaviate.Class{
		Name: prefix + indexClass, Description: "ctx: a repository's index identity and counts",
		MultiTenancy: true, Replicas: replicas,
		Properties: []weaviate.Property{stored("info", "text")},
	}
	return []weaviate.Class{chunk, file, index, termsClassOf(prefix, replicas)}
}

// tenantRE is Weaviate's tenant name syntax.
var tenantRE = lazyre.New(`^[A-Za-z0-9_-]{1,64}$`)

// CheckTenant returns an error unless name is a valid tenant name: 1 to
// 64 letters, digits, '-' or '_'.
func CheckTenant(name string) error {
	if !tenantRE().MatchString(name) {
		return fmt.Errorf("tenant %q: want 1 to 64 letters, digits, '-' or '_'", name)
	}
	return nil
}

// TenantFor derives a repository's tenant from what names it the same on
// every machine: the clone URL of its "origin" remote when it has one
// (two checkouts of one repository share a tenant), else its absolute
// root. The tenant is the base name, cut to 40 characters and cleaned,
// then "-" and 12 hex digits of SHA-256 of the source, so two
// repositories of the same name never share one.
func TenantFor(root, originURL string) string {
	src := originURL
	if src == "" {
		src = root
	}
	base := strings.TrimSuffix(src[strings.LastIndexAny(src, `/\:`)+1:], ".git")
	var b strings.Builder
	for _, r := range base {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	if b.Len() == 0 {
		b.WriteString("repo")
	}
	sum := sha256.Sum256([]byte(src))
	return fmt.Sprintf("%s-%x", b.String(), sum[:6])
}

// idBits keeps chunk and file ids within the 53 bits a JSON number holds
// exactly. They are stored as text (field tokenization), because
// Weaviate's GraphQL answers an int property beyond 32 bits with null;
// so are file times (Unix ns), which float64 would round.
const idBits = 52

func hashID(parts ...string) (int64, [16]byte) {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	var sum [32]byte
	h.Sum(sum[:0])
	id := int64(binary.BigEndian.Uint64(sum[:8]) >> (64 - idBits))
	var u [16]byte
	copy(u[:], sum[8:24])
	u[6] = u[6]&0x0f | 0x50 // version 5 (name-based, SHA)
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return max(id, 1), u
}

func uuidString(u [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// fileKey returns a file's id and object UUID: both from its path only,
// so a file keeps them across versions.
func fileKey(path string) (int64, string) {
	id, u := hashID("file", path)
	return id, uuidString(u)
}

// chunkKey returns a chunk's id and object UUID from its file's path and
// content hash and its ordinal: a new version of a file gets new ids, and
// writing the same version twice writes the same objects.
func chunkKey(path string, fileHash []byte, i int) (int64, string) {
	id, u := hashID("chunk", path, string(fileHash), strconv.Itoa(i))
	return id, uuidString(u)
}

// indexUUID is the UUID of a tenant's Index object.
func indexUUID() string {
	_, u := hashID("index")
	return uuidString(u)
}
