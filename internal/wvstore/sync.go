package wvstore

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/chunk"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/index"
	"github.com/ctx-dev/ctx/internal/store"
	"github.com/ctx-dev/ctx/internal/weaviate"
)

// Info is a tenant's Index object: what built its objects.
type Info struct {
	// Identity is the index identity hash (schema, chunker, analyzer,
	// model): a query by another identity is refused, a sync by another
	// rebuilds the tenant.
	Identity string `json:"identity"`
	// Model is the embedding model identity ("none": lexical-only).
	Model      string `json:"model"`
	Generation int64  `json:"generation"`
	Files      int    `json:"files"`
	Chunks     int    `json:"chunks"`
	// Root and Host say where the last sync ran, for `ctx status`.
	Root string `json:"root"`
	Host string `json:"host"`
	// Synced is when the last sync finished (RFC 3339, UTC).
	Synced string `json:"synced"`
	// TermBuckets is the bucket count of the tenant's Terms collection
	// (its vocabulary); 0 when it has none.
	TermBuckets int `json:"term_buckets,omitempty"`
	// Objects says what the chunk objects hold: 4 when their row (one
	// packed property, rowProp) carries the chunk's stored embedding, 3
	// when it does not, 2 when they carry the weighted all-columns terms
	// (allProp) and a property per row field, 0 for tenants written
	// before.
	Objects int `json:"objects,omitempty"`
	// AllWeights are the column weights baked into allProp.
	AllWeights store.BM25Weights `json:"all_weights"`
}

// objectsVersion is [Info].Objects of what this build writes.
const objectsVersion = 4

// Identity returns the identity a tenant written by this build records
// ([Info].Identity) for the local index identity local: local and the
// chunk objects' layout (objectsVersion). A build that reads the objects
// another way sees another identity, so it refuses the tenant as stale
// instead of misreading it, and its sync rebuilds the tenant.
func Identity(local string) string {
	return local + "+objects" + strconv.Itoa(objectsVersion)
}

// Params say what to sync where.
type Params struct {
	Client *weaviate.Client
	// Prefix starts the collection names ("" means DefaultPrefix).
	Prefix string
	// Tenant is the repository's tenant (see TenantFor).
	Tenant string
	// Replicas is the replication factor of collections this sync creates
	// (0: the server default, 1).
	Replicas int
	// Root is the repository's absolute root; DB its up-to-date local
	// index, whose files are the ones to hold.
	Root string
	DB   *store.DB
	// Embedder embeds the changed files' chunks (nil: lexical-only);
	// Batch texts per request.
	Embedder embed.Provider
	Batch    int
	// KeepSecrets leaves secrets unmasked, as the local index did.
	KeepSecrets bool
	// Info is written to the tenant's Index object when the sync ends
	// (Files and Chunks are filled in).
	Info Info
	// Workers prepare files concurrently (0: 2).
	Workers int
	// Progress, when set, is called after each file written, with the
	// number of files to write.
	Progress func(done, total int)
	// Settling, when set, is called with false when the sync starts to
	// wait for the server to count what it wrote (see settleTolerance)
	// and with true when the wait ends.
	Settling func(end bool)
}

func (p *Params) class(name string) string {
	if p.Prefix == "" {
		return DefaultPrefix + name
	}
	return p.Prefix + name
}

// SyncStats reports one sync.
type SyncStats struct {
	Tenant string `json:"tenant"`
	// Files written (new or changed content) and deleted.
	Written int `json:"files_written"`
	Deleted int `json:"files_deleted"`
	// Objects is the number of chunk objects written.
	Objects int `json:"objects"`
	// Rebuilt is set when the tenant held another identity's objects and
	// was emptied first.
	Rebuilt bool `json:"rebuilt,omitempty"`
	// SettleMS is how long the sync waited, after writing, for the server
	// to count the objects its BM25 ranks by (see settleTolerance); part
	// of MS. Unsettled says why that wait ended unsatisfied ("" when it
	// did not).
	SettleMS  float64 `json:"settle_ms,omitempty"`
	Unsettled string  `json:"unsettled,omitempty"`
	MS        float64 `json:"ms"`
}

// deleteBatch is how many paths one batch delete names.
const deleteBatch = 100

// Sync makes the tenant hold exactly the local index's files: files whose
// content hash differs from the tenant's are re-read, chunked and
// embedded by the index pipeline (index.Prepare, index.Build) and their
// objects replaced; files the local index no longer has are deleted.
// Collections and the tenant are created when missing.
//
// A crash at any instant is repaired by the next sync: a file's object
// (with its hash) is deleted before its old chunks and written after its
// new ones, so a half-written file has no file object and is written
// again, its stray chunks deleted by path first.
func Sync(ctx context.Context, p Params) (SyncStats, error) {
	start := time.Now()
	st := SyncStats{Tenant: p.Tenant}
	if err := CheckTenant(p.Tenant); err != nil {
		return st, err
	}
	if err := ensureSchema(ctx, p.Client, p.Prefix, p.Replicas, p.Tenant); err != nil {
		return st, err
	}
	info, err := readInfo(ctx, p.Client, p.class(indexClass), p.Tenant)
	if err != nil {
		return st, err
	}
	if info != nil && (info.Identity != p.Info.Identity || info.Objects != objectsVersion || info.AllWeights != allWeights) {
		// Objects of another chunker or model, or of an older object
		// layout: never mix them.
		for _, cl := range []string{chunkClass, fileClass, indexClass, termsClass} {
			if err := p.Client.DeleteTenants(ctx, p.class(cl), p.Tenant); err != nil {
				return st, err
			}
		}
		if err := ensureSchema(ctx, p.Client, p.Prefix, p.Replicas, p.Tenant); err != nil {
			return st, err
		}
		st.Rebuilt = true
	}

	remote, err := listFiles(ctx, p.Client, p.class(fileClass), p.Tenant)
	if err != nil {
		return st, err
	}
	local, err := p.DB.FileStates(ctx)
	if err != nil {
		return st, err
	}
	var write, gone []string
	for path, fs := range local {
		if r, ok := remote[path]; !ok || r.hash != hex.EncodeToString(fs.Hash) {
			write = append(write, path)
		}
	}
	for path := range remote {
		if _, ok := local[path]; !ok {
			gone = append(gone, path)
		}
	}
	slices.Sort(write)
	slices.Sort(gone)
	// Forget the old versions first: file objects, then chunks.
	stale := append(slices.Clone(gone), write...)
	for b := range slices.Chunk(stale, deleteBatch) {
		f := weaviate.Filter{Operator: "ContainsAny", Path: []string{"path"}, Texts: b}
		if _, err := p.Client.BatchDelete(ctx, p.class(fileClass), p.Tenant, f); err != nil {
			return st, err
		}
		if _, err := p.Client.BatchDelete(ctx, p.class(chunkClass), p.Tenant, f); err != nil {
			return st, err
		}
	}
	st.Deleted = len(gone)

	langs, err := p.DB.AllFiles(ctx)
	if err != nil {
		return st, err
	}
	langOf := make(map[string]string, len(langs))
	for _, f := range langs {
		langOf[f.Path] = f.Language
	}
	n, objects, err := p.writeFiles(ctx, write, local, langOf)
	st.Written, st.Objects = n, objects
	if err != nil {
		return st, err
	}
	counts, err := p.DB.Count(ctx)
	if err != nil {
		return st, err
	}
	in := p.Info
	in.Files, in.Chunks = counts.Files, counts.Chunks
	in.Objects, in.AllWeights = objectsVersion, allWeights
	in.TermBuckets = 0
	if info != nil && !st.Rebuilt {
		in.TermBuckets = info.TermBuckets
	}
	if n+st.Deleted > 0 || in.TermBuckets == 0 {
		if in.TermBuckets, err = p.syncTerms(ctx, in.TermBuckets, in.TermBuckets == 0); err != nil {
			return st, err
		}
	}
	in.Synced = time.Now().UTC().Format(time.RFC3339)
	if err := writeInfo(ctx, p.Client, p.class(indexClass), p.Tenant, in); err != nil {
		return st, err
	}
	if n+st.Deleted > 0 {
		settled := time.Now()
		if p.Settling != nil {
			p.Settling(false)
		}
		st.Unsettled = p.settle(ctx, in.Chunks)
		if p.Settling != nil {
			p.Settling(true)
		}
		st.SettleMS = float64(time.Since(settled).Microseconds()) / 1000
	}
	st.MS = float64(time.Since(start).Microseconds()) / 1000
	return st, nil
}

// Weaviate's BM25 ranks a tenant by the object count of its flushed
// segments, which lags the writes until the server flushes its memtables
// (PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS, 60 s by default).
// Measured on v1.35.2: right after a first sync of the semble chi
// repository (659 chunk objects) the count read 0 and the hybrid search
// scored NDCG@10 0.671; the moment the count read 659, 0.799, the local
// store's figure. A sync therefore waits until every replica counts at
// least all but settleTolerance of the chunk objects the tenant holds, for
// at most settleTimeout, asking every settlePoll.
// settleTolerance is the relative count error a sync leaves to the
// server's next flush: a count short by a tenth moves every term's IDF
// alike and barely reorders an answer; a count of 0 inverts them.
const settleTolerance = 0.1

// Variables, so tests can shorten them.
var (
	// settleTimeout covers the server's default flush delay and a margin.
	settleTimeout = 90 * time.Second
	settlePoll    = time.Second
)

// allCounted reports whether every replica's count (counts) reaches all
// but settleTolerance of chunks. Only a count short of the objects
// misleads: one above them (deleted objects a segment still counts until
// compaction) settles as the server compacts, and stays within the
// tolerance's effect meanwhile.
func allCounted(counts []int, chunks int) bool {
	for _, c := range counts {
		if float64(c) < (1-settleTolerance)*float64(chunks) {
			return false
		}
	}
	return true
}

// settle waits until the tenant's chunk objects are counted by every
// replica the server reports (see settleTolerance) and returns "" or, when
// the wait timed out or the counts could not be read, a note saying what
// the next minutes' answers may lack. A canceled ctx ends the wait with a
// note too: the objects are written either way.
func (p *Params) settle(parent context.Context, chunks int) string {
	ctx, cancel := context.WithTimeout(parent, settleTimeout)
	defer cancel()
	class := p.class(chunkClass)
	tick := time.NewTicker(settlePoll)
	defer tick.Stop()
	for ctx.Err() == nil {
		counts, err := p.Client.ShardObjects(ctx, class, p.Tenant)
		switch {
		case err != nil && ctx.Err() == nil:
			return fmt.Sprintf("could not read how many objects Weaviate counts for the tenant (%v): until its next flush (up to a minute by default), its BM25 may rank by an older count", err)
		case err == nil && allCounted(counts, chunks):
			return ""
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
	if parent.Err() != nil {
		return "the wait for Weaviate to count the new objects was interrupted: until it flushes them (up to a minute by default), its BM25 ranks the tenant by an older count"
	}
	return fmt.Sprintf("Weaviate had not counted the new objects after %s: until it flushes them (PERSISTENCE_MEMTABLES_FLUSH_DIRTY_AFTER_SECONDS), its BM25 ranks the tenant by an older count", settleTimeout)
}

// writeFiles prepares the files concurrently and writes their chunk
// objects in batches of weaviate.MaxBatch, then their file objects. A
// file that can no longer be read is left out (the next local index
// drops it). It returns the files and chunk objects written.
func (p *Params) writeFiles(ctx context.Context, paths []string, local map[string]store.FileState, langOf map[string]string) (int, int, error) {
	workers := p.Workers
	if workers <= 0 {
		workers = 2
	}
	chunker := chunk.New(nil)
	var (
		mu      sync.Mutex
		pending []weaviate.Object
		files   []weaviate.Object
		objects int
		written int
	)
	flush := func(ctx context.Context, all bool) error {
		mu.Lock()
		var batch []weaviate.Object
		if len(pending) >= weaviate.MaxBatch || all && len(pending) > 0 {
			batch, pending = pending, nil
		}
		mu.Unlock()
		if batch == nil {
			return nil
		}
		return p.Client.BatchPut(ctx, batch)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, rel := range paths {
		g.Go(func() error {
			fs := local[rel]
			f := discover.File{Path: rel, Abs: filepath.Join(p.Root, filepath.FromSlash(rel)), Size: fs.Size, ModTime: fs.ModTime, Language: langOf[rel]}
			prep, skip, _, err := index.Prepare(gctx, f, nil, chunker, p.KeepSecrets)
			if err != nil {
				return err
			}
			if skip != nil {
				return nil
			}
			u, _, err := index.Build(gctx, prep, p.Embedder, p.Batch, nil)
			if err != nil {
				return err
			}
			objs, file, err := p.objects(u, prep)
			if err != nil {
				return err
			}
			mu.Lock()
			pending = append(pending, objs...)
			files = append(files, file)
			objects += len(objs)
			written++
			if p.Progress != nil {
				p.Progress(written, len(paths)) // under mu: in order, one at a time
			}
			mu.Unlock()
			return flush(gctx, false)
		})
	}
	if err := g.Wait(); err != nil {
		return written, objects, err
	}
	if err := flush(ctx, true); err != nil {
		return written, objects, err
	}
	for b := range slices.Chunk(files, weaviate.MaxBatch) {
		if err := p.Client.BatchPut(ctx, b); err != nil {
			return written, objects, err
		}
	}
	return written, objects, nil
}

// declared is a name declared inside a chunk as a chunk object keeps it
// (declsProp): store.Declared without what the object's row holds.
type declared struct {
	Name   string `json:"n"`
	Kind   string `json:"k"`
	Symbol string `json:"s,omitempty"`
	Crumb  string `json:"c,omitempty"`
	Line   int    `json:"l"`
}

// declaredIn returns, by chunk position in u.Chunks, the names of
// u.Names declared inside each chunk that are not its own name (ignoring
// case): the chunk holding the name's first line, the first by position
// when pieces overlap, as [store.DB.DeclaredChunks] picks it.
func declaredIn(u *store.Update) map[int][]declared {
	var out map[int][]declared
	for _, n := range u.Names {
		best := -1
		for i, c := range u.Chunks {
			if c.StartLine <= n.Line && n.Line <= c.EndLine && (best < 0 || c.StartByte < u.Chunks[best].StartByte) {
				best = i
			}
		}
		if best < 0 || strings.EqualFold(u.Chunks[best].Name, n.Name) {
			continue
		}
		if out == nil {
			out = map[int][]declared{}
		}
		out[best] = append(out[best], declared{Name: n.Name, Kind: n.Kind, Symbol: n.Symbol, Crumb: n.Breadcrumb, Line: n.Line})
	}
	return out
}

// objects returns a built file's chunk objects and its file object.
func (p *Params) objects(u *store.Update, prep index.Prepared) ([]weaviate.Object, weaviate.Object, error) {
	f := u.File
	fileID, fileUUID := fileKey(f.Path)
	hash := hex.EncodeToString(f.Hash)
	objs := make([]weaviate.Object, 0, len(u.Chunks))
	decls := declaredIn(u)
	for i, c := range u.Chunks {
		id, uuid := chunkKey(f.Path, f.Hash, i)
		row := store.ChunkRow{Chunk: c, Path: f.Path, Language: f.Language, FileSize: f.Size, FileTime: f.ModTime}
		row.ID, row.FileID = id, fileID
		var enc []byte
		var vec []float32
		if c.EmbedKey != nil {
			var ok bool
			if enc, ok = u.Vectors[string(c.EmbedKey)]; !ok {
				return nil, weaviate.Object{}, fmt.Errorf("%s: chunk %d has no vector", f.Path, i)
			}
			var err error
			if vec, err = embed.DecodeVector(enc); err != nil {
				return nil, weaviate.Object{}, fmt.Errorf("%s: %w", f.Path, err)
			}
		}
		props := map[string]any{
			"chunkId": idText(id), "fileId": idText(fileID), "path": f.Path, "nameLower": strings.ToLower(c.Name),
			rowProp: encodeRow(&row, hash, enc),
		}
		if ds := decls[i]; len(ds) > 0 {
			low := make([]string, len(ds))
			for k, d := range ds {
				low[k] = strings.ToLower(d.Name)
			}
			enc, err := json.Marshal(ds)
			if err != nil {
				return nil, weaviate.Object{}, fmt.Errorf("%s: %v", f.Path, err)
			}
			props[declLowerProp], props[declsProp] = low, string(enc)
		}
		for col, name := range termProps {
			props[name] = c.Terms[col]
		}
		props[allProp] = weightedTerms(c.Terms)
		objs = append(objs, weaviate.Object{ID: uuid, Class: p.class(chunkClass), Tenant: p.Tenant, Properties: props, Vector: vec})
	}
	file := weaviate.Object{ID: fileUUID, Class: p.class(fileClass), Tenant: p.Tenant, Properties: map[string]any{
		"fileId": idText(fileID), "path": f.Path, "base": path.Base(f.Path), "language": f.Language, "hash": hash,
		"size": f.Size, "mtime": idText(f.ModTime), "chunks": len(u.Chunks),
	}}
	return objs, file, nil
}

// ensureSchema creates the collections and the tenant when missing. Two
// processes creating a collection at once both succeed: a failed create
// is checked again once.
func ensureSchema(ctx context.Context, c *weaviate.Client, prefix string, replicas int, tenant string) error {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	for _, cl := range classes(prefix, replicas) {
		err := c.EnsureClass(ctx, cl)
		if err != nil && !errors.Is(err, weaviate.ErrSchemaMismatch) {
			err = c.EnsureClass(ctx, cl)
		}
		if err != nil {
			return fmt.Errorf("preparing collection %s: %w", cl.Name, err)
		}
		if err := c.AddTenants(ctx, cl.Name, tenant); err != nil {
			return fmt.Errorf("adding tenant %s to %s: %w", tenant, cl.Name, err)
		}
	}
	return nil
}

// readInfo returns the tenant's Index object, nil when absent.
func readInfo(ctx context.Context, c *weaviate.Client, class, tenant string) (*Info, error) {
	o, err := c.GetObject(ctx, class, tenant, indexUUID())
	if err != nil {
		return nil, fmt.Errorf("reading the index identity of %s: %w", tenant, err)
	}
	if o == nil {
		return nil, nil
	}
	s, _ := o.Properties["info"].(string)
	var in Info
	if err := json.Unmarshal([]byte(s), &in); err != nil {
		return nil, fmt.Errorf("reading the index identity of %s: %v", tenant, err)
	}
	return &in, nil
}

func writeInfo(ctx context.Context, c *weaviate.Client, class, tenant string, in Info) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return c.PutObject(ctx, weaviate.Object{ID: indexUUID(), Class: class, Tenant: tenant, Properties: map[string]any{"info": string(b)}})
}

// remoteFile is what a tenant holds of one file.
type remoteFile struct {
	id   int64
	hash string
	lang string
}

// listFiles returns every file object of the tenant by path.
func listFiles(ctx context.Context, c *weaviate.Client, class, tenant string) (map[string]remoteFile, error) {
	out := map[string]remoteFile{}
	err := c.Each(ctx, class, tenant, func(props map[string]json.RawMessage) error {
		var f struct {
			Path, Hash, Language, FileID string
		}
		for k, v := range props {
			var err error
			switch k {
			case "path":
				err = json.Unmarshal(v, &f.Path)
			case "hash":
				err = json.Unmarshal(v, &f.Hash)
			case "language":
				err = json.Unmarshal(v, &f.Language)
			case "fileId":
				err = json.Unmarshal(v, &f.FileID)
			}
			if err != nil {
				return fmt.Errorf("file object property %s: %v", k, err)
			}
		}
		id, err := strconv.ParseInt(f.FileID, 10, 64)
		if err != nil {
			return fmt.Errorf("file object %s: fileId %q", f.Path, f.FileID)
		}
		out[f.Path] = remoteFile{id: id, hash: f.Hash, lang: f.Language}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the files of %s: %w", tenant, err)
	}
	return out, nil
}
