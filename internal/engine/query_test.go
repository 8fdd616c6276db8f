package engine_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/engine"
)

// TestCutQuery: a query over the configured maximum is cut at a UTF-8
// boundary at or before it; one that fits is kept whole.
func TestCutQuery(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.MaxQueryBytes = 8
	e := open(t, cfg, t.TempDir(), nil)
	for _, tc := range []struct {
		name, in, want string
		cut            bool
	}{
		{"short", "retry", "retry", false},
		{"exact", "12345678", "12345678", false},
		{"ascii", "123456789", "12345678", true},
		{"two-byte rune across the cut", "1234567é", "1234567", true},
		{"four-byte rune across the cut", "12345😀", "12345", true},
		{"rune ending at the cut", "123456é9", "123456é", true},
		{"invalid bytes", "1234567\xff\xfe\xfd", "1234567\xff", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := e.CutQuery(tc.in)
			if got != tc.want || cut != tc.cut {
				t.Errorf("CutQuery(%q) = %q, %v; want %q, %v", tc.in, got, cut, tc.want, tc.cut)
			}
		})
	}

	// The default is 32 KiB.
	def := testConfig(t)
	e = open(t, def, t.TempDir(), nil)
	if got, cut := e.CutQuery(strings.Repeat("a", 40<<10)); len(got) != 32<<10 || !cut {
		t.Errorf("default cut: %d bytes, cut %v; want 32768, true", len(got), cut)
	}
}

// TestEchoQuery: answers repeat at most 200 bytes of a query, cut at a
// UTF-8 boundary, then "…".
func TestEchoQuery(t *testing.T) {
	t.Parallel()
	if got := engine.EchoQuery("where is auth handled"); got != "where is auth handled" {
		t.Errorf("short query echoed as %q", got)
	}
	long := strings.Repeat("é", 150) // 300 bytes
	got := engine.EchoQuery(long)
	if !strings.HasSuffix(got, "…") || len(got) > engine.EchoBytes+len("…") || !utf8.ValidString(got) || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Errorf("EchoQuery of 300 bytes = %q (%d bytes), want a valid prefix of at most %d bytes and …", got, len(got), engine.EchoBytes)
	}
}

// TestFindLongQuery: a query far over the limit is searched by its first
// bytes, fast, and the answer says so without echoing the query: the
// results are those of the cut query, the JSON stays small.
func TestFindLongQuery(t *testing.T) {
	t.Parallel()
	root := repo(t)
	cfg := testConfig(t)
	e := open(t, cfg, root, nil)
	index(t, e, engine.IndexOptions{})

	head := "ParseConfig reads the JSON configuration file "
	query := head + strings.Repeat("lorem ipsum dolor sit amet ", 10<<20/27) // ~10 MB
	start := time.Now()
	resp := find(t, e, engine.FindRequest{Query: query})
	took := time.Since(start)
	if took > 10*time.Second {
		t.Errorf("a 10 MB query took %s", took)
	}
	st := resp.Stats
	if !st.QueryTruncated || st.QueryBytes != len(query) || st.QuerySearchedBytes != 32<<10 {
		t.Errorf("stats: truncated %v, query_bytes %d, query_searched_bytes %d; want true, %d, %d", st.QueryTruncated, st.QueryBytes, st.QuerySearchedBytes, len(query), 32<<10)
	}
	if len(resp.Query) > engine.EchoBytes+len("…") || !strings.HasPrefix(query, strings.TrimSuffix(resp.Query, "…")) {
		t.Errorf("echoed query is %d bytes, want a prefix of at most %d", len(resp.Query), engine.EchoBytes)
	}
	if len(st.DenseQuery) > engine.EchoBytes+len("…") {
		t.Errorf("dense_query is %d bytes, want at most %d", len(st.DenseQuery), engine.EchoBytes)
	}
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 16<<10 {
		t.Errorf("answer JSON is %d bytes", len(b))
	}
	if !strings.Contains(string(b), `"query_truncated":true`) || !strings.Contains(string(b), `"query_bytes":`) {
		t.Errorf("answer JSON does not say the query was cut: %s", b)
	}
	notes := st.Notes()
	if len(notes) != 1 || !strings.Contains(notes[0], "CTX_MAX_QUERY_BYTES") {
		t.Errorf("Notes() = %q, want one line naming CTX_MAX_QUERY_BYTES", notes)
	}

	// The results are those of the query's first 32 KiB.
	cut, _ := e.CutQuery(query)
	want := find(t, e, engine.FindRequest{Query: cut})
	if got, w := hitKeys(resp.Results), hitKeys(want.Results); strings.Join(got, " ") != strings.Join(w, " ") || len(got) == 0 {
		t.Errorf("results = %v, want those of the cut query %v", got, w)
	}
	if want.Stats.QueryTruncated || len(want.Stats.Notes()) != 0 {
		t.Errorf("a query within the limit: stats %+v, notes %q", want.Stats, want.Stats.Notes())
	}
	if resp.Results[0].Path != "config/config.go" {
		t.Errorf("first result %s, want config/config.go (the query's head names ParseConfig)", resp.Results[0].Path)
	}
}
