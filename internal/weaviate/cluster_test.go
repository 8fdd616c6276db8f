package weaviate_test

import (
	"fmt"
	"testing"

	"github.com/ctx-dev/ctx/internal/weaviate"
	"github.com/ctx-dev/ctx/internal/weaviatetest"
)

// TestIntegrationClusterNodeDown checks that a replicated multi-tenant
// class keeps answering BM25 and nearVector queries, and per-tenant
// counts, for every tenant after one of three nodes stops.
func TestIntegrationClusterNodeDown(t *testing.T) {
	cluster := weaviatetest.StartCluster(t, 3)
	c, err := weaviate.New(cluster.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	name := uniqueClass(t, "Cluster")
	newClass(t, c, weaviate.Class{Name: name, MultiTenancy: true, Replicas: 2, Properties: []weaviate.Property{
		{Name: "body", DataType: "text"},
	}})
	tenants := []string{"alpha", "beta", "gamma"}
	if err := c.AddTenants(ctx, name, tenants...); err != nil {
		t.Fatal(err)
	}
	var objs []weaviate.Object
	for i := range 30 {
		objs = append(objs, weaviate.Object{ID: uuidFor(i), Class: name, Tenant: tenants[i%3],
			Properties: map[string]any{"body": fmt.Sprintf("hello chunk %d", i)}, Vector: []float32{1, float32(i)}})
	}
	if err := c.BatchPut(ctx, objs); err != nil {
		t.Fatal(err)
	}
	cluster.StopNode(t, 2)
	c.ConsistencyLevel = weaviate.ConsistencyOne
	for _, tn := range tenants {
		hits, err := c.Get(ctx, weaviate.Query{Class: name, Tenant: tn, BM25: &weaviate.BM25{Query: "hello"}, Limit: 20})
		if err != nil || len(hits) != 10 {
			t.Errorf("tenant %s: bm25 = %d hits, %v; want 10", tn, len(hits), err)
		}
		hits, err = c.Get(ctx, weaviate.Query{Class: name, Tenant: tn, NearVector: &weaviate.NearVector{Vector: []float32{1, 0}}, Limit: 20})
		if err != nil || len(hits) != 10 {
			t.Errorf("tenant %s: nearVector = %d hits, %v; want 10", tn, len(hits), err)
		}
		if n, err := c.Count(ctx, name, tn, nil); err != nil || n != 10 {
			t.Errorf("tenant %s: Count = %d, %v; want 10", tn, n, err)
		}
	}
}
