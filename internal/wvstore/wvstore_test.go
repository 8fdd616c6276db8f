package wvstore

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/store"
)

func TestTenantFor(t *testing.T) {
	for _, tc := range []struct {
		root, origin, prefix string
	}{
		{"/home/a/src/api", "git@github.com:team/api.git", "api-"},
		{"/home/a/src/api", "", "api-"},
		{"/srv/x/Weird Name+v2", "", "Weird_Name_v2-"},
		{"/", "", "repo-"},
		{"/a/averyveryveryveryveryveryverylongrepositoryname", "", "averyveryveryveryveryveryverylongreposit-"},
	} {
		got := TenantFor(tc.root, tc.origin)
		if err := CheckTenant(got); err != nil {
			t.Errorf("TenantFor(%q, %q) = %q: %v", tc.root, tc.origin, got, err)
		}
		if len(got) < len(tc.prefix) || got[:len(tc.prefix)] != tc.prefix {
			t.Errorf("TenantFor(%q, %q) = %q, want prefix %q", tc.root, tc.origin, got, tc.prefix)
		}
	}
	// Two clones of one repository share a tenant; two repositories of
	// one name do not.
	if TenantFor("/a/api", "https://x/team/api.git") != TenantFor("/b/api", "https://x/team/api.git") {
		t.Error("two clones of one origin got different tenants")
	}
	if TenantFor("/a/api", "") == TenantFor("/b/api", "") {
		t.Error("two roots named api got one tenant")
	}
	for _, bad := range []string{"", "a b", "x/y", string(make([]byte, 65))} {
		if CheckTenant(bad) == nil {
			t.Errorf("CheckTenant(%q) accepted it", bad)
		}
	}
}

func TestKeys(t *testing.T) {
	id1, u1 := chunkKey("a.go", []byte{1}, 0)
	id2, u2 := chunkKey("a.go", []byte{1}, 0)
	id3, u3 := chunkKey("a.go", []byte{2}, 0)
	if id1 != id2 || u1 != u2 {
		t.Error("chunkKey is not deterministic")
	}
	if id1 == id3 || u1 == u3 {
		t.Error("a new version of a file kept its chunk keys")
	}
	if id1 <= 0 || id1 >= 1<<idBits {
		t.Errorf("chunk id %d outside (0, 2^%d)", id1, idBits)
	}
	if len(u1) != 36 || u1[14] != '5' {
		t.Errorf("uuid %q is not a version 5 UUID", u1)
	}
	f1, _ := fileKey("a.go")
	f2, _ := fileKey("b.go")
	if f1 == f2 {
		t.Error("two paths share a file id")
	}
}

func TestBuckets(t *testing.T) {
	for _, tc := range []struct{ terms, want int }{{0, 16}, {100, 16}, {2000, 32}, {290000, 8192}, {1 << 30, 65536}} {
		if got := bucketCount(tc.terms); got != tc.want {
			t.Errorf("bucketCount(%d) = %d, want %d", tc.terms, got, tc.want)
		}
	}
	counts := make([]int, 64)
	for i := range 6400 {
		b := bucketOf(fmt.Sprintf("term%d", i), 64)
		if b < 0 || b >= 64 {
			t.Fatalf("bucketOf = %d, outside 0..63", b)
		}
		counts[b]++
	}
	for b, n := range counts {
		if n < 50 || n > 150 {
			t.Errorf("bucket %d holds %d of 6400 terms: hash badly spread", b, n)
		}
	}
}

func TestRowRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  store.ChunkRow
		hash string
		vec  []float32
	}{
		{"plain", store.ChunkRow{Chunk: store.Chunk{ID: 1<<52 - 1, FileID: 17, Kind: "function", Symbol: "(*conn).serve", Name: "serve", Breadcrumb: "conn",
			Summary: "serves a connection", StartLine: 10, EndLine: 20, StartByte: 100, EndByte: 900, Part: 2},
			Path: "net/http/server.go", Language: "go", FileSize: 5000, FileTime: 1795578252299473453}, strings.Repeat("ab", 32), []float32{0.6, -0.8, 0, 0.001}},
		{"empty", store.ChunkRow{Chunk: store.Chunk{ID: 1, FileID: 2}}, "", nil},
		{"escapes", store.ChunkRow{Chunk: store.Chunk{ID: 3, FileID: 4, Summary: "a\tb\t\\n\n", Breadcrumb: "x\ty\nz\\",
			Symbol: `\`, Name: "\\t"}, Path: "dir with\ttab/f.go", Language: "\\"}, "h", []float32{1}},
		{"negative", store.ChunkRow{Chunk: store.Chunk{ID: 5, FileID: 6, StartLine: -1}, FileTime: -7}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var blob []byte
			if tc.vec != nil {
				blob = embed.EncodeVector(tc.vec)
			}
			text := encodeRow(&tc.row, tc.hash, blob)
			if n := strings.Count(text, "\t"); n != len(rowFields)-1 {
				t.Errorf("encodeRow = %q: %d tabs, want %d", text, n, len(rowFields)-1)
			}
			if strings.Contains(text, "\n") {
				t.Errorf("encodeRow = %q holds a newline", text)
			}
			var got store.ChunkRow
			hash, vec, err := decodeRow(text, &got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.row, got); diff != "" || hash != tc.hash {
				t.Errorf("decodeRow(encodeRow(row)) (-want +got):\n%s\nhash %q, want %q", diff, hash, tc.hash)
			}
			if tc.vec == nil {
				if vec != "" {
					t.Errorf("decodeRow: vector %q of a row without one", vec)
				}
				return
			}
			q := make([]float32, len(tc.vec))
			q[0] = 1
			c, _, err := rowCosine(q, vec, nil)
			x, scale, _ := embed.Int8View(blob)
			if want := float64(embed.DotInt8(q, x, scale)); err != nil || c != want {
				t.Errorf("rowCosine of the row's vector = %v, %v; want the stored vector's %v", c, err, want)
			}
		})
	}
}

func TestDecodeRowRejects(t *testing.T) {
	good := encodeRow(&store.ChunkRow{Chunk: store.Chunk{ID: 9, FileID: 8}, Path: "a.go"}, "h", nil)
	for name, text := range map[string]string{
		"short":      strings.Join(strings.Split(good, "\t")[:len(rowFields)-1], "\t"),
		"bad id":     "x" + good[1:],
		"bad number": strings.Replace(good, "\t0\t", "\tz\t", 1),
		"empty":      "",
	} {
		var r store.ChunkRow
		if _, _, err := decodeRow(text, &r); err == nil {
			t.Errorf("decodeRow(%s %q) succeeded", name, text)
		}
	}
	two := base64.RawStdEncoding.EncodeToString(embed.EncodeVector([]float32{0.6, 0.8}))
	for name, text := range map[string]string{"not base64": "a*b", "not a vector": "AAAA", "other dimensions": two} {
		if c, _, err := rowCosine([]float32{1, 0, 0}, text, nil); err == nil {
			t.Errorf("rowCosine(%s %q) = %v, want an error", name, text, c)
		}
	}
}

func TestTermFilter(t *testing.T) {
	f := termFilter("http", 0)
	if f.Operator != "Or" || len(f.Operands) != store.NumColumns {
		t.Errorf("termFilter(all) = %+v, want an Or over %d columns", f, store.NumColumns)
	}
	f = termFilter("http", 1<<store.ColPath)
	if f.Operator != "Equal" || f.Path[0] != "tPath" {
		t.Errorf("termFilter(path) = %+v, want Equal on tPath", f)
	}
}

func TestWeightedTerms(t *testing.T) {
	defer func(w store.BM25Weights) { allWeights = w }(allWeights)
	allWeights = store.BM25Weights{3, 2, 2, 1}
	got := weightedTerms([store.NumColumns]string{store.ColName: "serve conn", store.ColPath: "net http", store.ColBody: "read loop"})
	want := "serve conn serve conn serve conn net http net http read loop"
	if got != want {
		t.Errorf("weightedTerms = %q, want %q", got, want)
	}
}

// TestDeclaredIn: a name goes to the chunk holding its first line (the
// first by position when pieces overlap), and never to a chunk of its
// own name.
func TestDeclaredIn(t *testing.T) {
	u := &store.Update{
		Chunks: []store.Chunk{
			{Name: "Reader", StartLine: 3, EndLine: 8, StartByte: 20},
			{Name: "Sunday", StartLine: 10, EndLine: 15, StartByte: 90},
			{Name: "Sunday", StartLine: 12, EndLine: 20, StartByte: 120}, // a later piece
		},
		Names: []store.Name{
			{Name: "Read", Kind: "method", Symbol: "Reader.Read", Breadcrumb: "Reader", Line: 5},
			{Name: "Monday", Kind: "const", Line: 12},
			{Name: "sunday", Kind: "const", Line: 11}, // the chunk's own name
			{Name: "Orphan", Kind: "var", Line: 40},   // in no chunk
		},
	}
	got := declaredIn(u)
	want := map[int][]declared{
		0: {{Name: "Read", Kind: "method", Symbol: "Reader.Read", Crumb: "Reader", Line: 5}},
		1: {{Name: "Monday", Kind: "const", Line: 12}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("declaredIn (-want +got):\n%s", diff)
	}
}
