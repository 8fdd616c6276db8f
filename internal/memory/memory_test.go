package memory

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/secrets"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      Input
		want    Input
		wantErr string
	}{
		{name: "defaults", in: Input{Text: "note"}, want: Input{Text: "note", Kind: DefaultKind, Tags: []string{}}},
		{name: "kind case", in: Input{Text: "x", Kind: " Snippet "}, want: Input{Text: "x", Kind: KindSnippet, Tags: []string{}}},
		{name: "tags", in: Input{Text: "x", Tags: []string{"Retry, http", "retry", " error  handling ", ""}},
			want: Input{Text: "x", Kind: DefaultKind, Tags: []string{"error-handling", "http", "retry"}}},
		{name: "path cleaned", in: Input{Text: "x", Path: `./client\\retry.go`}, want: Input{Text: "x", Kind: DefaultKind, Tags: []string{}, Path: "client/retry.go"}},
		{name: "path dot", in: Input{Text: "x", Path: "."}, want: Input{Text: "x", Kind: DefaultKind, Tags: []string{}}},
		{name: "empty text", in: Input{Text: " \n\t"}, wantErr: "text is empty"},
		{name: "huge text", in: Input{Text: strings.Repeat("a", MaxTextBytes+1)}, wantErr: "the limit is 65536 bytes"},
		{name: "invalid utf8", in: Input{Text: "a\xffb"}, wantErr: "not valid UTF-8"},
		{name: "unknown kind", in: Input{Text: "x", Kind: "todo"}, wantErr: `kind "todo": want one of snippet, explanation`},
		{name: "path escape", in: Input{Text: "x", Path: "a/../../etc/passwd"}, wantErr: "leaves the repository root"},
		{name: "path dotdot", in: Input{Text: "x", Path: ".."}, wantErr: "leaves the repository root"},
		{name: "absolute path", in: Input{Text: "x", Path: "/etc/passwd"}, wantErr: "is absolute"},
		{name: "drive path", in: Input{Text: "x", Path: `C:\x`}, wantErr: "is absolute"},
		{name: "long tag", in: Input{Text: "x", Tags: []string{strings.Repeat("t", MaxTagBytes+1)}}, wantErr: "the limit is 64"},
		{name: "too many tags", in: Input{Text: "x", Tags: strings.Split(strings.Repeat("t,", MaxTags)+"a,b", ",")}, wantErr: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Normalize(tc.in)
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Normalize = %v, want an ErrInvalid saying %q", err, tc.wantErr)
				}
				return
			}
			if tc.name == "too many tags" {
				// t, a and b after deduplication: within the limit.
				if err != nil || len(got.Tags) != 3 {
					t.Fatalf("Normalize = %v, %v", got.Tags, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Normalize (-want +got):\n%s", diff)
			}
		})
	}
	many := make([]string, MaxTags+1)
	for i := range many {
		many[i] = strings.Repeat("x", i+1)
	}
	if _, err := Normalize(Input{Text: "x", Tags: many}); !errors.Is(err, ErrInvalid) {
		t.Errorf("%d tags: %v, want ErrInvalid", len(many), err)
	}
}

func openTest(t *testing.T) *DB {
	t.Helper()
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "cache", "repo.db.memories"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func ids(ms []Memory) []int64 {
	var out []int64
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func hitIDs(hs []Hit) []int64 {
	var out []int64
	for _, h := range hs {
		out = append(out, h.ID)
	}
	return out
}

func TestStore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openTest(t)
	emb := &Embedder{Provider: embedtest.New(32)}
	add := func(in Input) Memory {
		t.Helper()
		m, err := db.Add(ctx, in, emb)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := add(Input{Text: "Retries back off exponentially, capped at 30s.", Tags: []string{"retry", "http"}, Path: "client/retry.go"})
	b := add(Input{Text: "go test -run TestRetry ./client", Kind: "snippet", Tags: []string{"test"}, Path: "client"})
	c := add(Input{Text: "See docs/design.md for the storage invariants.", Kind: "reference", Priority: 2})
	if a.ID == 0 || b.ID == a.ID || a.Duplicate || a.Created.IsZero() || !a.Created.Equal(a.Updated) {
		t.Fatalf("added %+v, %+v", a, b)
	}

	// The same kind, text and path is not stored twice.
	dup := add(Input{Text: a.Text, Tags: []string{"other"}, Path: "./client/retry.go"})
	if !dup.Duplicate || dup.ID != a.ID || !equalTags(dup.Tags, "http", "retry") {
		t.Errorf("duplicate add = %+v, want memory %d back with Duplicate", dup, a.ID)
	}
	// Another kind or path is another memory.
	if other := add(Input{Text: a.Text, Kind: "pattern"}); other.Duplicate {
		t.Errorf("same text of another kind was taken as a duplicate")
	}
	if n, err := db.Count(ctx); err != nil || n != 4 {
		t.Errorf("Count = %d, %v; want 4", n, err)
	}

	for _, tc := range []struct {
		name string
		f    Filter
		want []int64
	}{
		{"all", Filter{}, []int64{a.ID, b.ID, c.ID, 4}},
		{"kind", Filter{Kind: "Snippet"}, []int64{b.ID}},
		{"tag", Filter{Tags: []string{"RETRY"}}, []int64{a.ID}},
		{"two tags", Filter{Tags: []string{"retry", "test"}}, nil},
		{"path prefix", Filter{PathPrefix: "client"}, []int64{a.ID, b.ID}},
		{"path prefix whole elements", Filter{PathPrefix: "cli"}, nil},
		{"file", Filter{PathPrefix: "client/retry.go"}, []int64{a.ID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.List(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, ids(got)); diff != "" {
				t.Errorf("List(%+v) (-want +got):\n%s", tc.f, diff)
			}
		})
	}
	if _, err := db.List(ctx, Filter{Kind: "nope"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("List with a bad kind: %v", err)
	}

	got, err := db.Get(ctx, c.ID)
	if err != nil || got.Priority != 2 || got.Kind != KindReference || len(got.Tags) != 0 || got.Tags == nil {
		t.Errorf("Get = %+v, %v", got, err)
	}
	if err := db.Remove(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.Remove(ctx, c.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Remove of a removed memory: %v, want ErrNotFound", err)
	}
	if _, err := db.Get(ctx, c.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a removed memory: %v, want ErrNotFound", err)
	}
	if _, err := db.Add(ctx, Input{Text: ""}, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("Add of empty text: %v", err)
	}
}

func equalTags(got []string, want ...string) bool { return cmp.Equal(got, want) }

func TestReadOnlyMissing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "none.memories")
	db, err := Open(t.Context(), path, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ms, err := db.List(t.Context(), Filter{})
	if err != nil || len(ms) != 0 {
		t.Errorf("List = %v, %v", ms, err)
	}
	hits, st, err := db.Search(t.Context(), Query{Text: "anything"}, &Embedder{Provider: embedtest.New(8)})
	if err != nil || len(hits) != 0 || st.Memories != 0 {
		t.Errorf("Search = %v, %+v, %v", hits, st, err)
	}
	var buf bytes.Buffer
	if n, err := db.Export(t.Context(), &buf); err != nil || n != 0 || buf.Len() != 0 {
		t.Errorf("Export = %d, %v, %q", n, err, buf.String())
	}
	if _, err := db.Add(t.Context(), Input{Text: "x"}, nil); err == nil {
		t.Errorf("Add on a read-only store succeeded")
	}
	if _, err := filepath.Glob(path + "*"); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(path + "*"); len(m) != 0 {
		t.Errorf("a read-only open created %v", m)
	}
}

func TestExportImport(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	src := openTest(t)
	for _, in := range []Input{
		{Text: "Line one\nline two with \"quotes\" and <html> & unicode ✓", Kind: "example", Tags: []string{"b", "a"}, Path: "x/y.go", Priority: -1},
		{Text: "second", Kind: "pattern"},
	} {
		if _, err := src.Add(ctx, in, nil); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	n, err := src.Export(ctx, &buf)
	if err != nil || n != 2 || strings.Count(buf.String(), "\n") != 2 {
		t.Fatalf("Export = %d, %v:\n%s", n, err, buf.String())
	}
	if strings.Contains(buf.String(), "vec") || !strings.Contains(buf.String(), `"created":"20`) {
		t.Errorf("export line shape:\n%s", buf.String())
	}
	dst := openTest(t)
	emb := &Embedder{Provider: embedtest.New(16)}
	rep, err := dst.Import(ctx, bytes.NewReader(buf.Bytes()), emb)
	if err != nil || rep.Added != 2 || rep.Skipped != 0 || len(rep.Errors) != 0 || rep.Embedded != 2 {
		t.Fatalf("Import = %+v, %v", rep, err)
	}
	want, _ := src.List(ctx, Filter{})
	got, _ := dst.List(ctx, Filter{})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// Importing the same lines again adds nothing.
	rep, err = dst.Import(ctx, bytes.NewReader(buf.Bytes()), emb)
	if err != nil || rep.Added != 0 || rep.Skipped != 2 {
		t.Errorf("second Import = %+v, %v", rep, err)
	}
}

func TestImportMalformed(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openTest(t)
	lines := strings.Join([]string{
		`{"kind":"snippet","text":"good one","tags":["a"]}`,
		`not json`,
		``,
		`{"kind":"todo","text":"bad kind"}`,
		`{"text":"escapes","path":"../../etc"}`,
		`{"text":""}`,
		`{"text":"good one","kind":"snippet"}`,
		`{"text":"` + strings.Repeat("x", MaxImportLine) + `"}`,
		`{"text":"crlf line"}` + "\r",
		`{"text":"last line without newline","created":"2024-05-01T10:00:00Z","future_field":1}`,
	}, "\n")
	rep, err := db.Import(ctx, strings.NewReader(lines), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 3 || rep.Skipped != 6 || len(rep.Errors) != 5 {
		t.Fatalf("Import = %+v", rep)
	}
	for i, want := range []string{"line 2: ", "line 4: invalid memory: kind", "line 5: invalid memory: path", "line 6: invalid memory: the text is empty", "line 8: longer than"} {
		if !strings.HasPrefix(rep.Errors[i], want) {
			t.Errorf("error %d = %q, want it to start %q", i, rep.Errors[i], want)
		}
	}
	ms, _ := db.List(ctx, Filter{})
	if len(ms) != 3 || ms[2].Created.Format("2006-01-02") != "2024-05-01" {
		t.Errorf("imported %+v", ms)
	}
}

// recorder is a provider that remembers what it was sent.
type recorder struct {
	embed.Provider
	mu    sync.Mutex // guards texts
	texts []string
}

func (r *recorder) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	r.mu.Lock()
	r.texts = append(r.texts, texts...)
	r.mu.Unlock()
	return r.Provider.Embed(ctx, texts, kind)
}

func TestMaskBeforeEmbed(t *testing.T) {
	t.Parallel()
	const token = "ghp_" + "Zx8Kq2Lm5Np7Rs9Tv1Wy3Ab6Cd4Ef0Gh2Ij7"
	text := "The deploy bot authenticates with " + token + " (rotate it yearly)."
	if len(secrets.Find(maskName, []byte(text))) == 0 {
		t.Fatal("the detector does not flag the test token; pick another")
	}
	ctx := t.Context()
	for _, mask := range []bool{true, false} {
		db := openTest(t)
		rec := &recorder{Provider: embedtest.New(16)}
		m, err := db.Add(ctx, Input{Text: text}, &Embedder{Provider: rec, Mask: mask})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.Search(ctx, Query{Text: "token " + token}, &Embedder{Provider: rec, Mask: mask}); err != nil {
			t.Fatal(err)
		}
		sent := strings.Join(rec.texts, "\n")
		if got := strings.Contains(sent, token); got == mask {
			t.Errorf("mask %v: token sent = %v:\n%s", mask, got, sent)
		}
		if mask && !strings.Contains(sent, "The deploy bot authenticates with") {
			t.Errorf("masking dropped the rest of the text: %q", sent)
		}
		if got, _ := db.Get(ctx, m.ID); got.Text != text {
			t.Errorf("stored text %q, want the original", got.Text)
		}
	}
}

// renamed gives a provider another model identity.
type renamed struct {
	embed.Provider
	name string
}

func (r renamed) Model() embed.Model {
	m := r.Provider.Model()
	m.Name = r.name
	return m
}

func TestModelChangeReembeds(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openTest(t)
	v1 := &Embedder{Provider: renamed{embedtest.New(16), "v1"}}
	for _, text := range []string{"cache invalidation on deploy", "retry budget per request", "log sampling rate"} {
		if _, err := db.Add(ctx, Input{Text: text}, v1); err != nil {
			t.Fatal(err)
		}
	}
	// A memory stored with no model gets a vector on the next search too.
	if _, err := db.Add(ctx, Input{Text: "no vector yet"}, nil); err != nil {
		t.Fatal(err)
	}
	_, st, err := db.Search(ctx, Query{Text: "retry budget"}, v1)
	if err != nil || st.Reembedded != 1 {
		t.Fatalf("search with v1: %+v, %v; want 1 re-embedded", st, err)
	}
	v2 := &Embedder{Provider: renamed{embedtest.New(24), "v2"}}
	hits, st, err := db.Search(ctx, Query{Text: "retry budget"}, v2)
	if err != nil || st.Reembedded != 4 || len(hits) == 0 || hits[0].Text != "retry budget per request" || hits[0].Channels["dense"].Rank != 1 {
		t.Fatalf("search with v2: %v, %+v, %v; want all 4 re-embedded and the retry memory first by both channels", hitIDs(hits), st, err)
	}
	if _, st, _ = db.Search(ctx, Query{Text: "retry budget"}, v2); st.Reembedded != 0 {
		t.Errorf("second search with v2 re-embedded %d", st.Reembedded)
	}
	recs, _ := db.records(ctx, withText|withVecs)
	for _, r := range recs {
		if r.model != v2.Provider.Model().String() || len(r.vec) != 24 {
			t.Errorf("memory %d: model %q, %d dims", r.ID, r.model, len(r.vec))
		}
	}
	// A read-only open stores the new vectors too.
	ro, err := Open(ctx, db.Path(), &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, st, err := ro.Search(ctx, Query{Text: "log"}, v1); err != nil || st.Reembedded != 4 {
		t.Errorf("read-only search with v1: %+v, %v", st, err)
	}
	if n, err := db.Refresh(ctx, v1); err != nil || n != 0 {
		t.Errorf("Refresh after the read-only search = %d, %v; want the vectors stored", n, err)
	}
}

// failing is a provider whose calls fail.
type failing struct{ embed.Provider }

func (failing) Embed(context.Context, []string, embed.InputKind) ([][]float32, error) {
	return nil, errors.New("connection refused")
}

func TestSearch(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openTest(t)
	emb := &Embedder{Provider: embedtest.New(1024)}
	add := func(in Input) int64 {
		t.Helper()
		m, err := db.Add(ctx, in, emb)
		if err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	retry := add(Input{Text: "HTTP calls are retried with exponential backoff.", Tags: []string{"network"}, Path: "client/retry.go"})
	tagged := add(Input{Text: "Keep the limiter in front of every outbound call.", Tags: []string{"ratelimit"}, Path: "client/limit.go"})
	pathOnly := add(Input{Text: "Tokens are refreshed five minutes before expiry.", Path: "auth/refresh.go"})
	low := add(Input{Text: "parse config flags", Kind: "snippet", Priority: -3})
	high := add(Input{Text: "parse config flags", Kind: "example", Priority: 3})

	for _, tc := range []struct {
		name string
		q    Query
		want []int64
	}{
		{"text", Query{Text: "backoff"}, []int64{retry}},
		{"stem", Query{Text: "retrying"}, []int64{retry}},
		{"tag field", Query{Text: "ratelimit"}, []int64{tagged}},
		{"path words", Query{Text: "auth"}, []int64{pathOnly}},
		{"priority breaks ties", Query{Text: "parse config"}, []int64{high, low}},
		{"kind filter", Query{Text: "parse config", Filter: Filter{Kind: "snippet"}}, []int64{low}},
		{"tag filter", Query{Text: "call", Filter: Filter{Tags: []string{"network"}}}, []int64{retry}},
		{"path filter", Query{Text: "outbound limiter calls", Filter: Filter{PathPrefix: "client"}}, []int64{tagged, retry}},
		{"path filter leaves out", Query{Text: "backoff", Filter: Filter{PathPrefix: "auth"}}, nil},
		{"limit", Query{Text: "outbound limiter calls", Limit: 1}, []int64{tagged}},
		{"nothing", Query{Text: "zzqx"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits, _, err := db.Search(ctx, tc.q, emb)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, hitIDs(hits)); diff != "" {
				t.Errorf("Search(%q) (-want +got):\n%s", tc.q.Text, diff)
			}
		})
	}

	// Without a model, or with a failing one, BM25 answers alone.
	hits, st, err := db.Search(ctx, Query{Text: "exponential backoff"}, nil)
	if err != nil || len(hits) != 1 || hits[0].ID != retry || st.Degraded != "" || len(hits[0].Channels) != 1 {
		t.Errorf("lexical search = %v, %+v, %v", hitIDs(hits), st, err)
	}
	hits, st, err = db.Search(ctx, Query{Text: "exponential backoff"}, &Embedder{Provider: failing{emb.Provider}})
	if err != nil || len(hits) != 1 || !strings.Contains(st.Degraded, "connection refused") {
		t.Errorf("search with a failing provider = %v, %+v, %v", hitIDs(hits), st, err)
	}
}

func TestTermIndexVersion(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := openTest(t)
	for _, text := range []string{"retries back off", "the cache expires hourly"} {
		if _, err := db.Add(ctx, Input{Text: text}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Terms written by another analyzer version are not used: a
	// read-only open analyses the memories, a writable one rewrites them.
	if _, err := db.conn.ExecContext(ctx, `UPDATE meta SET value = '0'; DELETE FROM memory_terms`); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(ctx, db.Path(), &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if hits, _, err := ro.Search(ctx, Query{Text: "retrying"}, nil); err != nil || len(hits) != 1 || ro.termsCurrent {
		t.Errorf("read-only search over stale terms = %v, %v (terms current %v)", hitIDs(hits), err, ro.termsCurrent)
	}
	rw, err := Open(ctx, db.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if hits, _, err := rw.Search(ctx, Query{Text: "cache"}, nil); err != nil || len(hits) != 1 || !rw.termsCurrent {
		t.Errorf("search after the rewrite = %v, %v", hitIDs(hits), err)
	}
	var n int
	db.conn.QueryRowContext(ctx, `SELECT count(*) FROM memory_terms`).Scan(&n)
	if n == 0 {
		t.Errorf("the writable open did not rewrite the terms")
	}
}
