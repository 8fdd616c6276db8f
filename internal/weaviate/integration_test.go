package weaviate_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/weaviate"
)

// uniqueClass returns a class name no other test run uses.
func uniqueClass(t *testing.T, prefix string) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	return "Ctxtest" + prefix + hex.EncodeToString(b[:])
}

// newClass creates cl on the server behind c and deletes it when the test
// ends.
func newClass(t *testing.T, c *weaviate.Client, cl weaviate.Class) {
	t.Helper()
	if err := c.EnsureClass(t.Context(), cl); err != nil {
		t.Fatalf("EnsureClass(%s): %v", cl.Name, err)
	}
	t.Cleanup(func() {
		if err := c.DeleteClass(context.WithoutCancel(t.Context()), cl.Name); err != nil {
			t.Errorf("DeleteClass(%s): %v", cl.Name, err)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// uuidFor returns a deterministic UUID for n.
func uuidFor(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

func integrationClient(t *testing.T) *weaviate.Client {
	t.Helper()
	c, err := weaviate.New(testURL(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Ready(t.Context()); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestIntegrationSchema(t *testing.T) {
	c := integrationClient(t)
	ctx := t.Context()
	name := uniqueClass(t, "Schema")
	cl := weaviate.Class{Name: name, Description: "chunks", Properties: []weaviate.Property{
		{Name: "body", DataType: "text", Tokenization: "word"},
		{Name: "path", DataType: "text", Tokenization: "field", Searchable: ptr(false)},
		{Name: "line", DataType: "int"},
	}}
	newClass(t, c, cl)
	if err := c.EnsureClass(ctx, cl); err != nil {
		t.Fatalf("EnsureClass again: %v", err)
	}
	got, err := c.Class(ctx, name)
	if err != nil || got == nil {
		t.Fatalf("Class = %v, %v", got, err)
	}
	if got.Distance != "cosine" || got.MultiTenancy || len(got.Properties) != 3 || *got.Properties[1].Searchable {
		t.Errorf("Class = %+v", got)
	}
	for _, tc := range []struct {
		name string
		edit func(*weaviate.Class)
	}{
		{"tokenization", func(c *weaviate.Class) { c.Properties[0].Tokenization = "whitespace" }},
		{"data type", func(c *weaviate.Class) { c.Properties[2].DataType = "number" }},
		{"multi-tenancy", func(c *weaviate.Class) { c.MultiTenancy = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := cl
			want.Properties = slices.Clone(cl.Properties)
			tc.edit(&want)
			if err := c.EnsureClass(ctx, want); !errors.Is(err, weaviate.ErrSchemaMismatch) {
				t.Errorf("EnsureClass = %v, want ErrSchemaMismatch", err)
			}
		})
	}
	// A property the class lacks is added to it (a newer object layout).
	more := cl
	more.Properties = append(slices.Clone(cl.Properties), weaviate.Property{Name: "extra", DataType: "text", Searchable: new(false)})
	if err := c.EnsureClass(ctx, more); err != nil {
		t.Errorf("EnsureClass(a property more) = %v", err)
	}
	if got, err := c.Class(ctx, name); err != nil || got == nil || len(got.Properties) != 4 || got.Properties[3].Name != "extra" || *got.Properties[3].Searchable {
		t.Errorf("Class after EnsureClass(a property more) = %+v, %v", got, err)
	}
	if got, err := c.Class(ctx, name+"Absent"); got != nil || err != nil {
		t.Errorf("Class(absent) = %v, %v", got, err)
	}
	if err := c.DeleteClass(ctx, name+"Absent"); err != nil {
		t.Errorf("DeleteClass(absent) = %v", err)
	}
	if nodes, err := c.Nodes(ctx); err != nil || len(nodes) == 0 || nodes[0].Status != "HEALTHY" {
		t.Errorf("Nodes = %+v, %v", nodes, err)
	}
}

func TestIntegrationTenants(t *testing.T) {
	c := integrationClient(t)
	ctx := t.Context()
	name := uniqueClass(t, "Tenants")
	newClass(t, c, weaviate.Class{Name: name, MultiTenancy: true, Properties: []weaviate.Property{{Name: "body", DataType: "text"}}})
	if err := c.AddTenants(ctx, name, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if err := c.AddTenants(ctx, name, "a", "c", "c"); err != nil {
		t.Fatalf("AddTenants with existing ones: %v", err)
	}
	if got, err := c.Tenants(ctx, name); err != nil || !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("Tenants = %v, %v", got, err)
	}
	if err := c.BatchPut(ctx, []weaviate.Object{{ID: uuidFor(1), Class: name, Tenant: "a", Properties: map[string]any{"body": "x"}, Vector: []float32{1, 0}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteTenants(ctx, name, "b"); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Tenants(ctx, name); err != nil || !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("Tenants after delete = %v, %v", got, err)
	}
	if n, err := c.Count(ctx, name, "a", nil); err != nil || n != 1 {
		t.Errorf("Count(a) = %d, %v", n, err)
	}
	if n, err := c.Count(ctx, name, "c", nil); err != nil || n != 0 {
		t.Errorf("Count(c) = %d, %v", n, err)
	}
	if err := c.BatchPut(ctx, []weaviate.Object{{ID: uuidFor(2), Class: name, Tenant: "nope", Properties: map[string]any{"body": "x"}}}); err == nil {
		t.Errorf("BatchPut to a missing tenant succeeded")
	}
}

// hostile strings must round-trip through GraphQL text unchanged.
var hostile = []string{
	`plain`, `"`, `\`, `\"`, `"}}}{Get{X{a}}}#`, "line\nbreak\r\ttab", "\x00\x01\x1f", `\u0041`,
	"ünïcødé ✓ 日本 🦫", "\u2028\u2029", `<script>&amp;`, `'single'`, `$var`, "#comment\n",
}

func TestIntegrationSearch(t *testing.T) {
	c := integrationClient(t)
	ctx := t.Context()
	name := uniqueClass(t, "Search")
	newClass(t, c, weaviate.Class{Name: name, Properties: []weaviate.Property{
		{Name: "title", DataType: "text", Tokenization: "whitespace"},
		{Name: "body", DataType: "text", Tokenization: "word"},
		{Name: "path", DataType: "text", Tokenization: "field"},
		{Name: "fileId", DataType: "int"},
		{Name: "tags", DataType: "text[]", Tokenization: "field"},
	}})
	objs := []weaviate.Object{
		{ID: uuidFor(1), Class: name, Properties: map[string]any{"title": "parseConfig loadConfig", "body": "reads the settings file", "path": "internal/config/config.go", "fileId": 1, "tags": []string{"go"}}, Vector: []float32{1, 0, 0}},
		{ID: uuidFor(2), Class: name, Properties: map[string]any{"title": "render", "body": "parseConfig is called before render", "path": "internal/ui/render.go", "fileId": 2, "tags": []string{"go", "ui"}}, Vector: []float32{0, 1, 0}},
		{ID: uuidFor(3), Class: name, Properties: map[string]any{"title": "main", "body": "entry point", "path": "cmd/main.py", "fileId": 3, "tags": []string{"py"}}, Vector: []float32{0.6, 0.8, 0}},
	}
	for i, h := range hostile {
		objs = append(objs, weaviate.Object{ID: uuidFor(100 + i), Class: name, Properties: map[string]any{"title": "hostile", "path": h, "fileId": 100 + i}, Vector: []float32{0, 0, 1}})
	}
	if err := c.BatchPut(ctx, objs); err != nil {
		t.Fatal(err)
	}
	ids := func(hits []weaviate.Hit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.ID)
		}
		return out
	}

	t.Run("bm25 weighted", func(t *testing.T) {
		for _, tc := range []struct {
			props []string
			want  []string
		}{
			{[]string{"title^5", "body"}, []string{uuidFor(1), uuidFor(2)}},
			{[]string{"title", "body^5"}, []string{uuidFor(2), uuidFor(1)}},
		} {
			hits, err := c.Get(ctx, weaviate.Query{Class: name, Fields: []string{"title", "path"}, BM25: &weaviate.BM25{Query: "parseConfig", Properties: tc.props}, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, ids(hits)); diff != "" {
				t.Errorf("bm25 %v ids (-want +got):\n%s", tc.props, diff)
			}
			if len(hits) == 2 && !(hits[0].Score > hits[1].Score && hits[1].Score > 0) {
				t.Errorf("bm25 scores %v, %v not descending and positive", hits[0].Score, hits[1].Score)
			}
		}
		hits, err := c.Get(ctx, weaviate.Query{Class: name, BM25: &weaviate.BM25{Query: "parseConfig render", Properties: []string{"title", "body"}, And: true}})
		if err != nil || !slices.Equal(ids(hits), []string{uuidFor(2)}) {
			t.Errorf("bm25 And = %v, %v", ids(hits), err)
		}
	})

	t.Run("nearVector", func(t *testing.T) {
		hits, err := c.Get(ctx, weaviate.Query{Class: name, NearVector: &weaviate.NearVector{Vector: []float32{1, 0, 0}}, Limit: 2, WithVector: true, Where: ptr(weaviate.Equal("title", "parseConfig"))})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].ID != uuidFor(1) || math.Abs(hits[0].Distance) > 1e-6 || !slices.Equal(hits[0].Vector, []float32{1, 0, 0}) {
			t.Errorf("nearVector filtered = %+v", hits)
		}
		hits, err = c.Get(ctx, weaviate.Query{Class: name, NearVector: &weaviate.NearVector{Vector: []float32{1, 0, 0}}, Limit: 2})
		if err != nil || len(hits) != 2 || hits[1].ID != uuidFor(3) || math.Abs(hits[1].Distance-0.4) > 1e-5 {
			t.Errorf("nearVector = %+v, %v; want second %s at cosine distance 0.4", hits, err, uuidFor(3))
		}
	})

	t.Run("filters", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			where weaviate.Filter
			want  int
		}{
			{"Equal", weaviate.Equal("path", "cmd/main.py"), 1},
			{"ContainsAny int", weaviate.ContainsAnyInt("fileId", 1, 3, 999), 2},
			{"ContainsAny text[]", weaviate.Filter{Operator: "ContainsAny", Path: []string{"tags"}, Texts: []string{"ui", "py"}}, 2},
			{"Like", weaviate.Filter{Operator: "Like", Path: []string{"path"}, Text: ptr("internal/*")}, 2},
			{"And", weaviate.And(weaviate.Filter{Operator: "Like", Path: []string{"path"}, Text: ptr("internal/*")}, weaviate.Filter{Operator: "GreaterThanEqual", Path: []string{"fileId"}, Int: ptr[int64](2)}), 1},
			{"Or", weaviate.Or(weaviate.Equal("path", "cmd/main.py"), weaviate.Equal("title", "render")), 2},
		} {
			t.Run(tc.name, func(t *testing.T) {
				hits, err := c.Get(ctx, weaviate.Query{Class: name, Where: &tc.where, Limit: 100})
				if err != nil || len(hits) != tc.want {
					t.Errorf("Get = %d hits, %v; want %d", len(hits), err, tc.want)
				}
				n, err := c.Count(ctx, name, "", &tc.where)
				if err != nil || n != tc.want {
					t.Errorf("Count = %d, %v; want %d", n, err, tc.want)
				}
			})
		}
	})

	t.Run("hostile strings", func(t *testing.T) {
		for i, h := range hostile {
			hits, err := c.Get(ctx, weaviate.Query{Class: name, Fields: []string{"path"}, Where: ptr(weaviate.Equal("path", h))})
			if err != nil {
				t.Fatalf("Equal(%q): %v", h, err)
			}
			want := []string{uuidFor(100 + i)}
			if diff := cmp.Diff(want, ids(hits)); diff != "" {
				t.Errorf("Equal(%q) (-want +got):\n%s", h, diff)
				continue
			}
			var got string
			if err := json.Unmarshal(hits[0].Props["path"], &got); err != nil || got != h {
				t.Errorf("path = %q, %v; want %q", got, err, h)
			}
			if _, err := c.Get(ctx, weaviate.Query{Class: name, BM25: &weaviate.BM25{Query: h}}); err != nil {
				t.Errorf("bm25 %q: %v", h, err)
			}
		}
	})

	t.Run("CountEach", func(t *testing.T) {
		wheres := []weaviate.Filter{weaviate.ContainsAnyInt("fileId", 1), weaviate.ContainsAnyInt("fileId", 2, 3), weaviate.Equal("title", "hostile"), weaviate.Equal("title", "none")}
		got, err := c.CountEach(ctx, name, "", wheres)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]int{1, 2, len(hostile), 0}, got); diff != "" {
			t.Errorf("CountEach (-want +got):\n%s", diff)
		}
	})

	t.Run("object", func(t *testing.T) {
		o, err := c.GetObject(ctx, name, "", uuidFor(1))
		if err != nil || o == nil || o.Properties["path"] != "internal/config/config.go" || !slices.Equal(o.Vector, []float32{1, 0, 0}) {
			t.Fatalf("GetObject = %+v, %v", o, err)
		}
		if o, err := c.GetObject(ctx, name, "", uuidFor(999)); o != nil || err != nil {
			t.Errorf("GetObject(absent) = %+v, %v", o, err)
		}
		for _, id := range []string{uuidFor(1), uuidFor(50)} { // replace, then create
			put := weaviate.Object{ID: id, Class: name, Properties: map[string]any{"title": "replaced", "fileId": 7}, Vector: []float32{0, 0, 1}}
			if err := c.PutObject(ctx, put); err != nil {
				t.Fatalf("PutObject(%s): %v", id, err)
			}
			o, err := c.GetObject(ctx, name, "", id)
			if err != nil || o == nil || o.Properties["title"] != "replaced" || o.Properties["path"] != nil {
				t.Errorf("after PutObject(%s): %+v, %v", id, o, err)
			}
		}
	})

	t.Run("BatchDelete", func(t *testing.T) {
		n, err := c.BatchDelete(ctx, name, "", weaviate.Equal("title", "hostile"))
		if err != nil || n != len(hostile) {
			t.Errorf("BatchDelete = %d, %v; want %d", n, err, len(hostile))
		}
		if n, err := c.Count(ctx, name, "", nil); err != nil || n != 4 {
			t.Errorf("Count after delete = %d, %v; want 4", n, err)
		}
	})
}
