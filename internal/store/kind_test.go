package store_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/store"
)

// TestKindsAndSymbolsRoundTrip checks that kinds (stored as codes, or as
// text for a kind without one) and symbols (stored once when a chunk's
// symbol is its name) read back as written, through every read path,
// and that a kind filter finds chunks and names by kind.
func TestKindsAndSymbolsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openDB(t)
	method := chunk("Close", 0, "close")
	method.Kind, method.Symbol, method.Breadcrumb = "method", "(*Server).Close", "Server"
	odd := chunk("widget", 20, "widget")
	odd.Kind = "gadget" // no code: stored as text
	typ := chunk("Server", 40, "server")
	typ.Kind, typ.Summary = "struct", "type Server struct { conn Conn }"
	anon := chunk("", 60, "anon")
	anon.Kind, anon.Symbol = "block", ""
	u := file("a/server.go", "go", method, odd, typ, anon)
	u.Names = []store.Name{{Name: "MaxConns", Kind: "const", Line: 9}, {Name: "Mode", Kind: "oddity", Line: 10}}
	apply(t, db, u)

	type ks struct{ Kind, Symbol, Name string }
	want := []ks{{"method", "(*Server).Close", "Close"}, {"gadget", "widget", "widget"}, {"struct", "Server", "Server"}, {"block", "", ""}}
	got := func(rows []store.ChunkRow) []ks {
		var out []ks
		for _, r := range rows {
			out = append(out, ks{r.Kind, r.Symbol, r.Name})
		}
		return out
	}
	rows, err := db.FileChunks(ctx, "a/server.go")
	if err != nil {
		t.Fatal(err)
	}
	if d := gocmp.Diff(want, got(rows)); d != "" {
		t.Errorf("FileChunks (-want +got):\n%s", d)
	}
	tab, err := db.ReadChunkTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := gocmp.Diff(want, got(tab.Chunks([]int64{rows[0].ID, rows[1].ID, rows[2].ID, rows[3].ID}))); d != "" {
		t.Errorf("ChunkTable.Chunks (-want +got):\n%s", d)
	}

	syms, err := db.Symbols(ctx, []string{"method", "gadget", "const", "oddity"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var gotSyms []ks
	for _, s := range syms {
		gotSyms = append(gotSyms, ks{s.Kind, s.Symbol, s.Name})
	}
	wantSyms := []ks{{"method", "(*Server).Close", "Close"}, {"gadget", "widget", "widget"}, {"const", "MaxConns", "MaxConns"}, {"oddity", "Mode", "Mode"}}
	if d := gocmp.Diff(wantSyms, gotSyms); d != "" {
		t.Errorf("Symbols by kind (-want +got):\n%s", d)
	}

	types, err := db.TypesMentioning(ctx, "Conn", 10)
	if err != nil {
		t.Fatal(err)
	}
	if d := gocmp.Diff([]ks{{"struct", "Server", "Server"}}, got(types)); d != "" {
		t.Errorf("TypesMentioning (-want +got):\n%s", d)
	}
	names, err := db.NamesByName(ctx, []string{"maxconns", "mode"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if d := gocmp.Diff([]ks{{"const", "MaxConns", "MaxConns"}, {"oddity", "Mode", "Mode"}}, got(names)); d != "" {
		t.Errorf("NamesByName (-want +got):\n%s", d)
	}
}

// TestSplitSummariesRoundTrip checks that the parts of a split
// definition read back with their summaries, whether a part repeats the
// first part's (stored once) or not, through every read path, after a
// later file's rows were written and the first file was rewritten.
func TestSplitSummariesRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openDB(t)
	part := func(name string, start, p int, summary string) store.Chunk {
		c := chunk(name, start, "body") // no body term "conn": only summaries match
		c.Kind, c.Part, c.Summary = "struct", p, summary
		return c
	}
	chunks := []store.Chunk{
		part("Server", 0, 1, "type Server struct { conn Conn }"),
		part("Server", 10, 2, "type Server struct { conn Conn }"),
		part("Server", 20, 3, "type Server struct { conn Conn }"),
		part("Client", 30, 2, "type Client struct { conn Conn }"), // no part 1 before it
		part("Pool", 40, 1, "type Pool struct"),
		part("Pool", 50, 2, "type Pool struct { conn Conn }"), // another summary
		part("Pool", 60, 3, "type Pool struct { conn Conn }"),
	}
	var want []string
	for _, c := range chunks {
		want = append(want, c.Summary)
	}
	summaries := func(rows []store.ChunkRow) []string {
		var out []string
		for _, r := range rows {
			out = append(out, r.Summary)
		}
		return out
	}
	for range 2 {
		apply(t, db, file("a/server.go", "go", chunks...), file("b/other.go", "go", part("Other", 0, 2, "other")))
		rows, err := db.FileChunks(ctx, "a/server.go")
		if err != nil {
			t.Fatal(err)
		}
		if d := gocmp.Diff(want, summaries(rows)); d != "" {
			t.Errorf("FileChunks (-want +got):\n%s", d)
		}
		var ids []int64
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
		tab, err := db.ReadChunkTable(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d := gocmp.Diff(want, summaries(tab.Chunks(ids))); d != "" {
			t.Errorf("ChunkTable.Chunks (-want +got):\n%s", d)
		}
		types, err := db.TypesMentioning(ctx, "Conn", 10)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(types); got != 6 {
			t.Errorf("TypesMentioning(Conn) = %d chunks %q, want the 6 whose summary holds it", got, summaries(types))
		}
	}
}
