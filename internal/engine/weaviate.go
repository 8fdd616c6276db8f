package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/gcfg"

	"github.com/ctx-dev/ctx/internal/httpjson"
	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/weaviate"
	"github.com/ctx-dev/ctx/internal/wvstore"
)

// remoteBackend reports whether searches read Weaviate.
func (e *Engine) remoteBackend() bool { return e.cfg.Backend.Name == "weaviate" }

// BackendInfo says where an index is kept, for reports.
type BackendInfo struct {
	Name   string `json:"name"`
	URL    string `json:"url,omitempty"`
	Tenant string `json:"tenant,omitempty"`
}

// Backend returns where this engine keeps and searches its index.
func (e *Engine) Backend() BackendInfo {
	if !e.remoteBackend() {
		return BackendInfo{Name: "local"}
	}
	return BackendInfo{Name: "weaviate", URL: e.cfg.Backend.Weaviate.URL, Tenant: e.Tenant()}
}

// Tenant returns the repository's Weaviate tenant: CTX_WEAVIATE_TENANT,
// else derived from its origin remote's URL (so every clone shares it) or
// its root (wvstore.TenantFor).
func (e *Engine) Tenant() string {
	if t := e.cfg.Backend.Tenant; t != "" {
		return t
	}
	return wvstore.TenantFor(e.root, originURL(e.root))
}

// originURL returns the first URL of the repository's "origin" remote,
// or "" when root has no readable .git/config or no origin.
func originURL(root string) string {
	return originURLIn(filepath.Join(root, ".git"))
}

// originURLIn returns the first URL of the "origin" remote in the git
// directory gitDir's config, or "" when it is unreadable or has none.
func originURLIn(gitDir string) string {
	var c struct {
		Remote map[string]*struct{ URL []string }
	}
	// Sections and keys ctx does not read are reported as warnings, not
	// fatal errors.
	if err := gcfg.FatalOnly(gcfg.ReadFileInto(&c, filepath.Join(gitDir, "config"))); err != nil {
		return ""
	}
	if r := c.Remote["origin"]; r != nil && len(r.URL) > 0 {
		return r.URL[0]
	}
	return ""
}

// weaviateClient returns a client for the configured server.
func (e *Engine) weaviateClient() (*weaviate.Client, error) {
	w := e.cfg.Backend.Weaviate
	if w.URL == "" {
		return nil, Errorf(ErrNotConfigured, "the weaviate backend needs CTX_WEAVIATE_URL: start a server with scripts/weaviate.sh start, or point it at your cluster")
	}
	c, err := weaviate.New(w.URL, w.APIKey)
	if err != nil {
		return nil, fmt.Errorf("CTX_WEAVIATE_URL: %w", err)
	}
	c.Logger = e.log
	return c, nil
}

// syncWeaviate writes the current local index into the repository's
// tenant (wvstore.Sync); progress gets its files written, phase (when set)
// the start and end of its [PhaseSettle] wait.
func (e *Engine) syncWeaviate(ctx context.Context, gen int64, progress func(done, total int), phase func(Phase)) (*wvstore.SyncStats, error) {
	c, err := e.weaviateClient()
	if err != nil {
		return nil, err
	}
	db, err := e.openDB(ctx, true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	host, _ := os.Hostname()
	id := e.Identity()
	params := wvstore.Params{
		Client: c, Prefix: e.cfg.Backend.Prefix, Tenant: e.Tenant(), Replicas: e.cfg.Backend.Replicas,
		Root: e.root, DB: db, Embedder: e.indexEmbedder(), Batch: e.cfg.Embed.BatchSize, KeepSecrets: e.cfg.IncludeSecrets,
		Info: wvstore.Info{Identity: wvstore.Identity(id.Hash), Model: id.Model, Generation: gen, Root: e.root, Host: host}, Progress: progress,
	}
	if phase != nil {
		params.Settling = func(end bool) { phase(Phase{Name: PhaseSettle, End: end}) }
	}
	st, err := wvstore.Sync(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("syncing %s into Weaviate (%s, tenant %s): %w", e.root, e.cfg.Backend.Weaviate.URL, st.Tenant, err)
	}
	return &st, nil
}

// backendErr marks err as the backend's failure ([ErrBackendUnavailable])
// when Weaviate could not answer: a transport error, a 5xx. A canceled or
// timed-out request keeps its own class.
func backendErr(err error) error {
	var gql *weaviate.GraphQLError
	if errors.Is(err, httpjson.ErrUnavailable) || errors.As(err, &gql) {
		return Errorf(ErrBackendUnavailable, "%w", err)
	}
	return err
}

// findWeaviate is find for the weaviate backend: the same search stack
// over the tenant's objects ([wvstore.Source]). Results are checked
// against the working tree like local ones (a file changed or missing
// here is stale).
func (e *Engine) findWeaviate(ctx context.Context, req FindRequest) (*FindResponse, error) {
	start := time.Now()
	query, _ := e.CutQuery(req.Query)
	resp := &FindResponse{Query: EchoQuery(query), Results: []Hit{}}
	c, err := e.weaviateClient()
	if err != nil {
		return nil, err
	}
	src, err := wvstore.Open(ctx, c, e.cfg.Backend.Prefix, e.Tenant())
	if errors.Is(err, wvstore.ErrNotSynced) {
		return nil, WithFix(fmt.Errorf("%w: %v", ErrNotIndexed, err), "ctx index --backend weaviate")
	}
	if err != nil {
		return nil, backendErr(err)
	}
	if err := e.ensureDims(ctx); err != nil {
		return nil, err
	}
	if id := e.Identity(); src.Info.Identity != wvstore.Identity(id.Hash) {
		return nil, WithFix(fmt.Errorf("%w: tenant %s in Weaviate was indexed by another ctx build or embedding model (%s, here %s); run `ctx index --backend weaviate` to rebuild it",
			ErrStale, e.Tenant(), src.Info.Model, id.Model), "ctx index --backend weaviate")
	}
	if src.Info.Chunks == 0 {
		return nil, fmt.Errorf("%w: tenant %s holds no chunks", ErrEmptyIndex, e.Tenant())
	}
	// Every channel is a request to the server: run them all at once.
	s := &search.Searcher{DB: src, TotalChunks: src.Info.Chunks, EmbedTimeout: e.cfg.Embed.QueryTimeout, Concurrency: len(search.ChannelNames), Deadline: recallDeadline(ctx, req.cut)}
	sreq := search.Request{Query: query, Limit: req.Limit, Languages: req.Languages, PathGlobs: req.PathGlobs, Channels: req.Channels, Grouped: req.Grouped}
	if e.emb != nil && sreq.Uses("dense") && src.Len() > 0 {
		s.Embedder, s.Vectors = e.emb, src
	}
	res, st, err := s.Search(ctx, sreq)
	if errors.Is(err, search.ErrDeadline) {
		return nil, fmt.Errorf("%w: Weaviate did not answer the %s channel%s within the request deadline (limits.request_timeout), and the others found nothing", ErrTimeout, strings.Join(st.Unfinished, ", "), plural(len(st.Unfinished)))
	}
	if err != nil {
		return nil, backendErr(fmt.Errorf("searching tenant %s in Weaviate: %w", e.Tenant(), err))
	}
	resp.Raw = res
	if resp.Stats, err = e.searchStats(st, sreq, s.EmbedTimeout, src.Info.Generation, req.Query, query); err != nil {
		return nil, err
	}
	if len(st.Unfinished) > 0 {
		resp.Stats.markPartial(cutNote(fmt.Sprintf("Weaviate answered the %s channel%s; the results come from the others", strings.Join(st.Unfinished, ", "), plural(len(st.Unfinished)))))
	}
	// The tenant's off-topic level is not measured: 32 more requests a
	// query. Its answers are graded on words and exact evidence.
	resp.Confidence, resp.Stats.Basis = gradeConfidence(res, st, nil)
	if d := src.Degraded(); d != "" {
		resp.Stats.Degraded = joinNote(resp.Stats.Degraded, d)
	}
	// The tenant may have been written on another machine, whose file
	// times differ from this checkout's: a file of the same size whose
	// time differs is compared by content hash.
	e.appendHits(resp, res, req.Full, func(rel string, size, mtime int64) bool {
		if !e.changed(rel, size, mtime) {
			return false
		}
		want := src.FileHash(rel)
		b, err := os.ReadFile(filepath.Join(e.root, filepath.FromSlash(rel)))
		if err != nil || want == "" || int64(len(b)) != size {
			return true
		}
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:]) != want
	})
	resp.Stats.SearchMS = float64(time.Since(start).Microseconds()) / 1000
	return resp, nil
}

// BackendStatus is the weaviate backend's part of [Status].
type BackendStatus struct {
	BackendInfo
	// Synced is the tenant's Index object: what the last sync wrote
	// (identity, generation, counts, where and when); nil when the
	// tenant was never synced or the server did not answer (see Error).
	Synced *wvstore.Info `json:"synced,omitempty"`
	// Stale is set when Synced was written by another ctx build or
	// embedding model (its identity is not this build's): searches refuse
	// the tenant until `ctx index --backend weaviate` rebuilds it.
	Stale bool `json:"stale,omitempty"`
	// Error says why Synced is missing, with the fix.
	Error string `json:"error,omitempty"`
}

// backendStatus reads the tenant's Index object.
func (e *Engine) backendStatus(ctx context.Context) *BackendStatus {
	bs := &BackendStatus{BackendInfo: e.Backend()}
	c, err := e.weaviateClient()
	if err != nil {
		bs.Error = err.Error()
		return bs
	}
	src, err := wvstore.Open(ctx, c, e.cfg.Backend.Prefix, bs.Tenant)
	if err != nil {
		bs.Error = err.Error()
		return bs
	}
	bs.Synced = &src.Info
	bs.Stale = src.Info.Identity != wvstore.Identity(e.Identity().Hash)
	return bs
}
