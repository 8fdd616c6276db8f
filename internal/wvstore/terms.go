package wvstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/weaviate"
)

// The Terms collection holds a tenant's BM25 vocabulary: each term's
// document frequency, which the search needs for every query (to weigh and
// pick its terms) and which Weaviate does not expose. Counting chunks per
// term with Aggregate took 50-130 ms for 20 terms on the Go standard
// library (106k chunks, one node); reading them from this table takes one
// filtered Get. Terms are hashed into buckets (about termsPerBucket terms
// each), one object per bucket whose blob lists "term\tdf\n" lines in term
// order.
const termsClass = "Terms"

// termsPerBucket is the mean number of terms a bucket holds: a query of 20
// terms reads about 20 buckets of this many lines (measured: ~1 KB each).
const termsPerBucket = 64

// bucketCount returns the bucket count for a vocabulary of n terms: a
// power of two, at least 16 and at most 65536.
func bucketCount(n int) int {
	want := max(n/termsPerBucket, 16)
	b := 1 << bits.Len(uint(want-1))
	return min(b, 1<<16)
}

// bucketOf returns term's bucket among n (a power of two).
func bucketOf(term string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(term))
	return int(h.Sum32() & uint32(n-1))
}

func termsClassOf(prefix string, replicas int) weaviate.Class {
	return weaviate.Class{
		Name: prefix + termsClass, Description: "ctx: a repository's BM25 vocabulary (document frequency per term), in hash buckets",
		MultiTenancy: true, Replicas: replicas,
		Properties: []weaviate.Property{field("bucket"), stored("blob", "text")},
	}
}

func bucketUUID(b int) string {
	_, u := hashID("terms", strconv.Itoa(b))
	return uuidString(u)
}

// syncTerms writes the local vocabulary into the tenant's Terms buckets,
// writing only buckets whose text changed (all of them when the bucket
// count changed or full is set). It returns the bucket count.
func (p *Params) syncTerms(ctx context.Context, oldBuckets int, full bool) (int, error) {
	type entry struct {
		term string
		df   int
	}
	var vocab []entry
	if err := p.DB.Vocabulary(ctx, func(t string, df int) error {
		vocab = append(vocab, entry{t, df})
		return nil
	}); err != nil {
		return 0, err
	}
	n := bucketCount(len(vocab))
	blobs := make([]bytes.Buffer, n)
	for _, e := range vocab { // in term order, so each blob is too
		b := &blobs[bucketOf(e.term, n)]
		b.WriteString(e.term)
		b.WriteByte('\t')
		b.WriteString(strconv.Itoa(e.df))
		b.WriteByte('\n')
	}
	class := p.class(termsClass)
	old := map[string]string{}
	if n != oldBuckets || full {
		all := weaviate.Filter{Operator: "Like", Path: []string{"bucket"}, Text: new("*")}
		if _, err := p.Client.BatchDelete(ctx, class, p.Tenant, all); err != nil {
			return 0, fmt.Errorf("clearing the vocabulary of %s: %w", p.Tenant, err)
		}
	} else {
		err := p.Client.Each(ctx, class, p.Tenant, func(props map[string]json.RawMessage) error {
			var b, blob string
			if err := json.Unmarshal(props["bucket"], &b); err != nil {
				return fmt.Errorf("terms object: bucket: %v", err)
			}
			_ = json.Unmarshal(props["blob"], &blob)
			old[b] = blob
			return nil
		})
		if err != nil {
			return 0, fmt.Errorf("reading the vocabulary of %s: %w", p.Tenant, err)
		}
	}
	var objs []weaviate.Object
	for i := range blobs {
		id, text := strconv.Itoa(i), blobs[i].String()
		if prev, ok := old[id]; ok && prev == text {
			continue
		}
		objs = append(objs, weaviate.Object{ID: bucketUUID(i), Class: class, Tenant: p.Tenant,
			Properties: map[string]any{"bucket": id, "blob": text}})
	}
	for b := range slices.Chunk(objs, weaviate.MaxBatch) {
		if err := p.Client.BatchPut(ctx, b); err != nil {
			return 0, fmt.Errorf("writing the vocabulary of %s: %w", p.Tenant, err)
		}
	}
	return n, nil
}

// lookupTerms returns the document frequency of each term from the
// tenant's Terms buckets (absent: no chunk holds it).
func (s *Source) lookupTerms(ctx context.Context, terms []string) (map[string]int, error) {
	n := s.Info.TermBuckets
	want := map[string]bool{}
	var ids []string
	seen := map[int]bool{}
	for _, t := range terms {
		want[t] = true
		if b := bucketOf(t, n); !seen[b] {
			seen[b] = true
			ids = append(ids, strconv.Itoa(b))
		}
	}
	f := weaviate.Filter{Operator: "ContainsAny", Path: []string{"bucket"}, Texts: ids}
	type bucketHit struct {
		Blob string              `json:"blob"`
		Add  weaviate.Additional `json:"_additional"`
	}
	hits, err := weaviate.GetAs[bucketHit](ctx, s.c, weaviate.Query{Class: s.terms, Tenant: s.tenant, Fields: []string{"blob"}, Where: &f, Limit: len(ids)})
	if err != nil {
		return nil, fmt.Errorf("reading the vocabulary of %s: %w", s.tenant, err)
	}
	out := make(map[string]int, len(terms))
	for _, h := range hits {
		for line := range strings.Lines(h.Blob) {
			t, df, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
			if !ok || !want[t] {
				continue
			}
			n, err := strconv.Atoi(df)
			if err != nil {
				return nil, fmt.Errorf("terms object %s: %q", h.Add.ID, line)
			}
			out[t] = n
		}
	}
	return out, nil
}
