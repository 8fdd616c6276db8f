package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"
)

// QueryCacheSize is the number of answers a kept engine's query cache
// holds ([Options.KeepOpen]; the CLI's one-shot engines have none). An
// answer of 10 results is a few KB, so the cache stays within a few MB.
const QueryCacheSize = 512

// CacheStats reports a query cache's use since the engine opened.
type CacheStats struct {
	Hits    int64 `json:"hits"`
	Misses  int64 `json:"misses"`
	Entries int   `json:"entries"`
	Size    int   `json:"size"` // most entries held
}

// queryCache answers identical requests of a long-lived server from
// memory: keyed by the normalised query, the options, the committed index
// state (generation, content version, index id), the identity (model)
// and the configuration, so a new generation misses without any
// invalidation step. An entry is used only while the files its answer
// returned are unchanged on disk.
type queryCache struct {
	lru          *lru.Cache[string, *cachedAnswer]
	hits, misses atomic.Int64
	config       string // fingerprint of the engine's configuration
}

// cachedAnswer is a fresh answer and the size and mtime of each file it
// returned, which must still hold for it to be reused.
type cachedAnswer struct {
	resp  *FindResponse
	files []fileStamp
}

type fileStamp struct {
	path        string
	size, mtime int64
}

func newQueryCache(configFingerprint string) *queryCache {
	c, _ := lru.New[string, *cachedAnswer](QueryCacheSize) // fails only for a size ≤ 0
	return &queryCache{lru: c, config: configFingerprint}
}

// key is the cache key of a request against an index state. Queries
// differing only in whitespace share an entry; case is kept (symbol
// queries are case-sensitive).
func (c *queryCache) key(req FindRequest, hd head, identity string) string {
	k := struct {
		Q         string
		Limit     int
		Languages []string
		Paths     []string
		Channels  []string
		Full      bool
		Grouped   bool
		Expand    ExpandOptions
		Gen       int64
		Version   string
		Identity  string
		Config    string
	}{strings.Join(strings.Fields(req.Query), " "), req.Limit, sortedCopy(req.Languages), sortedCopy(req.PathGlobs), sortedCopy(req.Channels),
		req.Full, req.Grouped, req.Expand, hd.gen, hd.ver.String(), identity, c.config}
	b, _ := json.Marshal(k)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func sortedCopy(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// get returns a copy of the cached answer for key if the files it
// returned are unchanged; changed reports the stat of one file.
func (c *queryCache) get(key string, changed func(path string, size, mtime int64) bool) *FindResponse {
	a, ok := c.lru.Get(key)
	if ok {
		for _, f := range a.files {
			if changed(f.path, f.size, f.mtime) {
				ok = false
				c.lru.Remove(key)
				break
			}
		}
	}
	if !ok {
		c.misses.Add(1)
		return nil
	}
	c.hits.Add(1)
	resp := *a.resp
	resp.Results = slices.Clone(a.resp.Results)
	return &resp
}

// put keeps a fresh answer.
func (c *queryCache) put(key string, resp *FindResponse) {
	a := &cachedAnswer{resp: resp}
	seen := map[string]bool{}
	for _, r := range resp.Raw {
		if !seen[r.Path] {
			seen[r.Path] = true
			a.files = append(a.files, fileStamp{r.Path, r.FileSize, r.FileTime})
		}
	}
	c.lru.Add(key, a)
}

func (c *queryCache) stats() CacheStats {
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Entries: c.lru.Len(), Size: QueryCacheSize}
}

// configFingerprint hashes the settings that change answers.
func configFingerprint(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
