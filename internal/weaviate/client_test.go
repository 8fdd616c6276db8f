package weaviate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/httpjson"
)

// request is what the fake server saw of one request.
type request struct {
	Method, Path, Query, Auth string
	Body                      any
}

// fake is a Weaviate stand-in: answer returns the status and body for
// the n-th request (0-based); it records every request.
type fake struct {
	mu     sync.Mutex // guards reqs
	reqs   []request
	answer func(n int, r request, w http.ResponseWriter) (int, string)
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	req := request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Auth: r.Header.Get("Authorization")}
	if len(raw) > 0 {
		json.Unmarshal(raw, &req.Body)
	}
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	status, body := f.answer(n, req, w)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func (f *fake) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.reqs...)
}

func newFake(t *testing.T, answer func(n int, r request, w http.ResponseWriter) (int, string)) (*Client, *fake) {
	t.Helper()
	f := &fake{answer: answer}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := New(srv.URL+"/", "key")
	if err != nil {
		t.Fatal(err)
	}
	c.HTTP.Backoff = time.Millisecond
	c.HTTP.MaxBackoff = 5 * time.Millisecond
	return c, f
}

func decode(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "localhost:8080", "ftp://x", "http://"} {
		if _, err := New(u, ""); err == nil {
			t.Errorf("New(%q) succeeded", u)
		}
	}
}

func TestEnsureClassWire(t *testing.T) {
	c, f := newFake(t, func(n int, r request, _ http.ResponseWriter) (int, string) {
		if n == 0 {
			return 404, ""
		}
		return 200, `{}`
	})
	err := c.EnsureClass(t.Context(), Class{Name: "Chunk", MultiTenancy: true, Replicas: 2, Properties: []Property{
		{Name: "body", DataType: "text", Tokenization: "word"},
		{Name: "fileId", DataType: "int", Searchable: new(bool)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []request{
		{Method: "GET", Path: "/v1/schema/Chunk", Auth: "Bearer key"},
		{Method: "POST", Path: "/v1/schema", Auth: "Bearer key", Body: decode(`{"class":"Chunk","vectorizer":"none",
			"properties":[{"name":"body","dataType":["text"],"tokenization":"word"},{"name":"fileId","dataType":["int"],"indexSearchable":false}],
			"multiTenancyConfig":{"enabled":true,"autoTenantCreation":false},"replicationConfig":{"factor":2},
			"vectorIndexConfig":{"distance":"cosine"}}`)},
	}
	if diff := cmp.Diff(want, f.requests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestEnsureClassMismatch(t *testing.T) {
	c, _ := newFake(t, func(int, request, http.ResponseWriter) (int, string) {
		return 200, `{"class":"Chunk","properties":[{"name":"body","dataType":["text"],"tokenization":"whitespace"}],"multiTenancyConfig":{"enabled":false}}`
	})
	for _, tc := range []struct {
		name string
		cl   Class
		ok   bool
	}{
		{"same", Class{Name: "Chunk", Properties: []Property{{Name: "body", DataType: "text", Tokenization: "whitespace"}}}, true},
		{"default tokenization", Class{Name: "Chunk", Properties: []Property{{Name: "body", DataType: "text"}}}, true},
		{"tokenization", Class{Name: "Chunk", Properties: []Property{{Name: "body", DataType: "text", Tokenization: "word"}}}, false},
		{"type", Class{Name: "Chunk", Properties: []Property{{Name: "body", DataType: "text[]"}}}, false},
		{"missing", Class{Name: "Chunk", Properties: []Property{{Name: "path", DataType: "text"}}}, false},
		{"tenancy", Class{Name: "Chunk", MultiTenancy: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := c.EnsureClass(t.Context(), tc.cl)
			if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, ErrSchemaMismatch)) {
				t.Errorf("EnsureClass = %v, want ok=%t or ErrSchemaMismatch", err, tc.ok)
			}
		})
	}
}

func TestHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answers  []string // "status body" per attempt
		header   string   // Retry-After on every answer
		wantErr  string   // "" means success
		attempts int
	}{
		{"422 not retried", []string{`422 {"error":[{"message":"invalid property 'x'"}]}`}, "", "weaviate ready: HTTP 422 Unprocessable Entity: invalid property 'x'", 1},
		{"429 Retry-After then ok", []string{`429 {"error":[{"message":"slow down"}]}`, `200 {}`}, "0", "", 2},
		{"5xx then ok", []string{`503 oops`, `502 `, `200 {}`}, "", "", 3},
		{"5xx exhausted", []string{`500 {"error":[{"message":"boom"}]}`}, "", "HTTP 500 Internal Server Error after 5 attempts: boom", 5},
		{"429 exhausted", []string{`429 {"error":[{"message":"slow"}]}`}, "0", "rate limited", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, f := newFake(t, func(n int, _ request, w http.ResponseWriter) (int, string) {
				if tc.header != "" {
					w.Header().Set("Retry-After", tc.header)
				}
				a := tc.answers[min(n, len(tc.answers)-1)]
				var status int
				fmt.Sscanf(a, "%d", &status)
				return status, strings.TrimSpace(a[3:])
			})
			err := c.Ready(t.Context())
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Ready = %v, want %q", err, tc.wantErr)
			}
			if got := len(f.requests()); got != tc.attempts {
				t.Errorf("attempts = %d, want %d", got, tc.attempts)
			}
		})
	}
}

func TestStatusErrorAndNotFound(t *testing.T) {
	c, _ := newFake(t, func(_ int, r request, _ http.ResponseWriter) (int, string) {
		if r.Method == "GET" && strings.HasPrefix(r.Path, "/v1/objects/") {
			return 404, ""
		}
		return 403, `{"error":[{"message":"forbidden: anonymous"}]}`
	})
	if o, err := c.GetObject(t.Context(), "Chunk", "t", "id"); o != nil || err != nil {
		t.Errorf("GetObject(404) = %v, %v; want nil, nil", o, err)
	}
	err := c.DeleteClass(t.Context(), "Chunk")
	var se *httpjson.StatusError
	if !errors.As(err, &se) || se.Status != 403 || se.Message != "forbidden: anonymous" || !strings.Contains(err.Error(), "delete class Chunk") {
		t.Errorf("DeleteClass = %v, want a 403 StatusError naming the class", err)
	}
}

func TestMalformedJSONAndTimeout(t *testing.T) {
	c, _ := newFake(t, func(_ int, r request, _ http.ResponseWriter) (int, string) {
		if r.Path == "/v1/nodes" {
			return 200, `{"nodes":[`
		}
		time.Sleep(200 * time.Millisecond)
		return 200, `{}`
	})
	if _, err := c.Nodes(t.Context()); err == nil || !strings.Contains(err.Error(), "decoding response") {
		t.Errorf("Nodes(malformed) = %v", err)
	}
	c.HTTP.Timeout = 20 * time.Millisecond
	if err := c.Ready(t.Context()); err == nil {
		t.Errorf("Ready(slow) succeeded")
	}
}

func TestGetWireAndHits(t *testing.T) {
	var query string
	c, _ := newFake(t, func(_ int, r request, _ http.ResponseWriter) (int, string) {
		if r.Path == "/v1/schema/Chunk" {
			return 200, `{"class":"Chunk","replicationConfig":{"factor":2}}`
		}
		query = r.Body.(map[string]any)["query"].(string)
		return 200, `{"data":{"Get":{"Chunk":[
			{"path":"a.go","_additional":{"id":"u1","score":"1.5","distance":null,"vector":[0.5,1]}},
			{"path":"b.go","_additional":{"id":"u2","score":"0.25"}}]}}}`
	})
	c.ConsistencyLevel = ConsistencyOne
	text := "a\"b"
	hits, err := c.Get(t.Context(), Query{
		Class: "Chunk", Tenant: `t"1`, Fields: []string{"path"}, Limit: 5, WithVector: true,
		Where: &Filter{Operator: "And", Operands: []Filter{
			{Operator: "Equal", Path: []string{"lang"}, Text: &text},
			{Operator: "ContainsAny", Path: []string{"fileId"}, Ints: []int64{1, 2}},
			{Operator: "ContainsAny", Path: []string{"tags"}, Texts: []string{"x"}},
		}},
		BM25:       &BM25{Query: "open\nfile", Properties: []string{"name^3", "body"}, And: true},
		NearVector: &NearVector{Vector: []float32{0.1, -2, 1e-7}},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantQuery := `{Get{Chunk(tenant:"t\"1",limit:5,where:{operator:And,operands:[{operator:Equal,path:["lang"],valueText:"a\"b"},` +
		`{operator:ContainsAny,path:["fileId"],valueInt:[1,2]},{operator:ContainsAny,path:["tags"],valueText:["x"]}]},` +
		`bm25:{query:"open\nfile",properties:["name^3","body"],searchOperator:{operator:And}},nearVector:{vector:[0.1,-2,1e-07]},` +
		`consistencyLevel:ONE){path _additional{id score distance vector}}}}`
	if diff := cmp.Diff(wantQuery, query); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}
	want := []Hit{
		{ID: "u1", Props: map[string]json.RawMessage{"path": json.RawMessage(`"a.go"`)}, Score: 1.5, Vector: []float32{0.5, 1}},
		{ID: "u2", Props: map[string]json.RawMessage{"path": json.RawMessage(`"b.go"`)}, Score: 0.25},
	}
	if diff := cmp.Diff(want, hits); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
}

func TestGetRejects(t *testing.T) {
	c, _ := newFake(t, func(int, request, http.ResponseWriter) (int, string) {
		return 200, `{"data":null,"errors":[{"message":"Cannot query field \"nope\" on type \"Chunk\"."}]}`
	})
	_, err := c.Get(t.Context(), Query{Class: "Chunk", Fields: []string{"nope"}})
	var ge *GraphQLError
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), `Cannot query field "nope"`) {
		t.Errorf("Get = %v, want a GraphQLError with the message", err)
	}
	for _, q := range []Query{
		{Class: "Chunk{x}"},
		{Class: "Chunk", Fields: []string{"a b"}},
		{Class: "Chunk", Where: &Filter{Operator: "Equal}", Path: []string{"a"}, Text: new(string)}},
		{Class: "Chunk", Where: &Filter{Operator: "Equal", Path: []string{"a"}}},
		{Class: "Chunk", NearVector: &NearVector{Vector: []float32{float32(math.NaN())}}},
	} {
		if _, err := c.Get(t.Context(), q); err == nil || errors.As(err, &ge) {
			t.Errorf("Get(%+v) = %v, want a local validation error", q, err)
		}
	}
}

func TestBatchPut(t *testing.T) {
	c, f := newFake(t, func(n int, r request, _ http.ResponseWriter) (int, string) {
		objs := r.Body.(map[string]any)["objects"].([]any)
		var out []string
		for i := range objs {
			res := `{"status":"SUCCESS"}`
			if n == 2 && i < 4 {
				res = fmt.Sprintf(`{"errors":{"error":[{"message":"bad %d"}]},"status":"FAILED"}`, i)
			}
			out = append(out, fmt.Sprintf(`{"id":"id%d","result":%s}`, i, res))
		}
		return 200, "[" + strings.Join(out, ",") + "]"
	})
	c.ConsistencyLevel = ConsistencyQuorum
	objs := make([]Object, 2*MaxBatch+1)
	for i := range objs {
		objs[i] = Object{ID: fmt.Sprint(i), Class: "Chunk", Tenant: "t", Properties: map[string]any{"n": i}, Vector: []float32{0.5}}
	}
	err := c.BatchPut(t.Context(), objs)
	if err == nil || !strings.Contains(err.Error(), "weaviate batch put Chunk: 1 of 1 objects failed: id0: bad 0") {
		t.Errorf("BatchPut = %v", err)
	}
	reqs := f.requests()
	if len(reqs) != 3 || reqs[0].Query != "consistency_level=QUORUM" || len(reqs[0].Body.(map[string]any)["objects"].([]any)) != MaxBatch {
		t.Fatalf("requests: %d, first query %q", len(reqs), reqs[0].Query)
	}
	first := reqs[0].Body.(map[string]any)["objects"].([]any)[0]
	if diff := cmp.Diff(decode(`{"class":"Chunk","id":"0","tenant":"t","properties":{"n":0},"vector":[0.5]}`), first); diff != "" {
		t.Errorf("wire object (-want +got):\n%s", diff)
	}
}

func TestBatchDeleteLoops(t *testing.T) {
	c, f := newFake(t, func(n int, r request, _ http.ResponseWriter) (int, string) {
		matches := []int{3, 3, 1}[n]
		return 200, fmt.Sprintf(`{"results":{"matches":%d,"limit":3,"successful":%d,"failed":0}}`, matches, matches)
	})
	n, err := c.BatchDelete(t.Context(), "Chunk", "t1", ContainsAnyInt("fileId", 4, 5))
	if err != nil || n != 7 {
		t.Errorf("BatchDelete = %d, %v; want 7", n, err)
	}
	reqs := f.requests()
	want := request{Method: "DELETE", Path: "/v1/batch/objects", Query: "tenant=t1", Auth: "Bearer key",
		Body: decode(`{"match":{"class":"Chunk","where":{"operator":"ContainsAny","path":["fileId"],"valueIntArray":[4,5]}},"output":"minimal"}`)}
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if diff := cmp.Diff(want, reqs[0]); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestPutObjectCreates(t *testing.T) {
	c, f := newFake(t, func(_ int, r request, _ http.ResponseWriter) (int, string) {
		if r.Method == "HEAD" {
			return 404, ""
		}
		return 200, `{}`
	})
	if err := c.PutObject(t.Context(), Object{ID: "u1", Class: "Chunk", Vector: []float32{1}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range f.requests() {
		got = append(got, r.Method+" "+r.Path)
	}
	if diff := cmp.Diff([]string{"HEAD /v1/objects/Chunk/u1", "POST /v1/objects"}, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestCountEach(t *testing.T) {
	var query string
	c, _ := newFake(t, func(_ int, r request, _ http.ResponseWriter) (int, string) {
		query = r.Body.(map[string]any)["query"].(string)
		return 200, `{"data":{"Aggregate":{"c0":[{"meta":{"count":4}}],"c1":[{"meta":{"count":0}}]}}}`
	})
	got, err := c.CountEach(t.Context(), "Chunk", "t", []Filter{Equal("path", "a"), ContainsAnyInt("fileId", 1)})
	if err != nil || !cmp.Equal(got, []int{4, 0}) {
		t.Errorf("CountEach = %v, %v", got, err)
	}
	want := `{Aggregate{c0:Chunk(tenant:"t",where:{operator:Equal,path:["path"],valueText:"a"}){meta{count}} c1:Chunk(tenant:"t",where:{operator:ContainsAny,path:["fileId"],valueInt:[1]}){meta{count}}}}`
	if query != want {
		t.Errorf("query\n got %s\nwant %s", query, want)
	}
}

// unquoteGraphQL decodes a GraphQL string literal (spec section 2.9.4)
// and reports whether it is one: a quote, characters other than quote,
// backslash and line terminators, escapes, and a closing quote at the end.
func unquoteGraphQL(lit string) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	var b strings.Builder
	s := lit[1 : len(lit)-1]
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '\n' || r == '\r' || (r < 0x20 && r != '\t') || r == utf8.RuneError && size == 1:
			return "", false
		case r != '\\':
			b.WriteRune(r)
			i += size
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			var cp rune
			if i+6 > len(s) {
				return "", false
			}
			if _, err := fmt.Sscanf(s[i+2:i+6], "%04x", &cp); err != nil {
				return "", false
			}
			b.WriteRune(cp)
			i += 4
		default:
			return "", false
		}
		i += 2
	}
	return b.String(), true
}

func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", `"`, `\`, `\"`, `"}}}{Get{X{a}}}#`, "a\nb\r\tc", "\x00\x1f\x7f", "日本 🦫", "\u2028\u2029", "\xff\xfe", `\u0022`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit := quote(s)
		got, ok := unquoteGraphQL(lit)
		if !ok {
			t.Fatalf("quote(%q) = %s is not a single GraphQL string literal", s, lit)
		}
		if want := string([]rune(s)); got != want { // each invalid byte becomes U+FFFD
			t.Fatalf("quote(%q) decodes to %q", s, got)
		}
	})
}

func TestAppendVector(t *testing.T) {
	got, err := appendVector(nil, []float32{0, 1, -0.5, 0.1, 1e-7, 3.4028235e38, 1.0 / 3})
	if err != nil || string(got) != "[0,1,-0.5,0.1,1e-07,3.4028235e+38,0.33333334]" {
		t.Errorf("appendVector = %s, %v", got, err)
	}
}

// TestGetLog: with a debug logger, each Get leaves one record that says
// what it searched by, its limit and hit count, and never the query's
// words; without one, nothing is logged.
func TestGetLog(t *testing.T) {
	c, _ := newFake(t, func(int, request, http.ResponseWriter) (int, string) {
		return 200, `{"data":{"Get":{"Chunk":[{"path":"a.go","_additional":{"id":"u1","score":"1"}}]}}}`
	})
	var buf bytes.Buffer
	c.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if _, err := c.Get(t.Context(), Query{Class: "Chunk", Fields: []string{"path"}, Limit: 7, BM25: &BM25{Query: "secretword"}}); err != nil {
		t.Fatal(err)
	}
	line := buf.String()
	for _, want := range []string{`msg="weaviate get"`, "class=Chunk", "search=bm25", "limit=7", "hits=1", "dur="} {
		if !strings.Contains(line, want) {
			t.Errorf("log %q lacks %s", line, want)
		}
	}
	if strings.Contains(line, "secretword") || strings.Count(line, "\n") != 1 {
		t.Errorf("log %q: want one record without the query's words", line)
	}
	buf.Reset()
	c.Logger = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if _, err := c.Get(t.Context(), Query{Class: "Chunk", Fields: []string{"path"}, Limit: 7}); err != nil || buf.Len() != 0 {
		t.Errorf("Get at info level logged %q (err %v)", buf.String(), err)
	}
}

// TestShardObjects: the object counts of one shard of one class, one per
// healthy node that holds it; other shards, other classes and nodes that
// are not HEALTHY are left out.
func TestShardObjects(t *testing.T) {
	c, f := newFake(t, func(int, request, http.ResponseWriter) (int, string) {
		return 200, `{"nodes":[
			{"name":"n0","status":"HEALTHY","shards":[{"class":"Chunk","name":"a","objectCount":7},{"class":"Chunk","name":"b","objectCount":3}]},
			{"name":"n1","status":"UNAVAILABLE","shards":[{"class":"Chunk","name":"a","objectCount":1}]},
			{"name":"n2","status":"HEALTHY","shards":[{"class":"Other","name":"a","objectCount":9},{"class":"Chunk","name":"a","objectCount":5}]},
			{"name":"n3","status":"HEALTHY","shards":null}]}`
	})
	got, err := c.ShardObjects(t.Context(), "Chunk", "a")
	if err != nil || !cmp.Equal(got, []int{7, 5}) {
		t.Errorf("ShardObjects = %v, %v; want [7 5]", got, err)
	}
	if r := f.requests(); len(r) != 1 || r[0].Method != "GET" || r[0].Path != "/v1/nodes/Chunk" || r[0].Query != "output=verbose" {
		t.Errorf("requests = %+v", r)
	}
	if got, err := c.ShardObjects(t.Context(), "Chunk", "none"); err != nil || len(got) != 0 {
		t.Errorf("ShardObjects of a shard no node holds = %v, %v", got, err)
	}
}
