package wvstore

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

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

func TestDecodeRow(t *testing.T) {
	raw := map[string]json.RawMessage{}
	for k, v := range map[string]any{
		"chunkId": "4503599627370495", "fileId": "17", "path": "net/http/server.go", "language": "go", "kind": "function",
		"symbol": "(*conn).serve", "name": "serve", "breadcrumb": "conn", "summary": "serves a connection",
		"startLine": 10, "endLine": 20, "startByte": 100, "endByte": 900, "part": 0, "fileSize": 5000, "fileTime": "1795578252299473453",
		"unknown": true,
	} {
		b, _ := json.Marshal(v)
		raw[k] = b
	}
	var r store.ChunkRow
	if err := decodeRow(raw, &r); err != nil {
		t.Fatal(err)
	}
	want := store.ChunkRow{Chunk: store.Chunk{ID: 1<<52 - 1, FileID: 17, Kind: "function", Symbol: "(*conn).serve", Name: "serve", Breadcrumb: "conn",
		Summary: "serves a connection", StartLine: 10, EndLine: 20, StartByte: 100, EndByte: 900},
		Path: "net/http/server.go", Language: "go", FileSize: 5000, FileTime: 1795578252299473453}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("decodeRow (-want +got):\n%s", diff)
	}
	raw["chunkId"] = json.RawMessage(`"x"`)
	if err := decodeRow(raw, &r); err == nil {
		t.Error("a bad chunkId decoded")
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
