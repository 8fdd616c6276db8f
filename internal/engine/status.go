package engine

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"time"

	"github.com/ctx-dev/ctx/internal/index"
	"github.com/ctx-dev/ctx/internal/store"
)

// Status describes a root's index for `ctx status`.
type Status struct {
	Root      string `json:"root"`
	IndexPath string `json:"index_path"`
	// IndexBytes is the size on disk of the database files and the
	// derived vector file, in bytes.
	IndexBytes int64          `json:"index_bytes"`
	Files      int            `json:"files"`
	Chunks     int            `json:"chunks"`
	Vectors    int            `json:"vectors"`
	Languages  map[string]int `json:"languages"`
	// Skips counts skipped paths by reason at the last index run.
	Skips       map[string]int `json:"skips"`
	LastIndexed time.Time      `json:"last_indexed"`
	Generation  int64          `json:"generation"`
	// Identity is what this build would write; StoredIdentity is what the
	// index was built with. They differ when the index is stale.
	Identity       Identity `json:"identity"`
	StoredIdentity string   `json:"stored_identity"`
	Stale          bool     `json:"stale"`
	// Incomplete is set when the last index run did not finish (it was
	// killed or interrupted, or it is still running the first time):
	// files it had not reached answer from their earlier state, and the
	// next `ctx index` completes it.
	Incomplete bool `json:"incomplete"`
	// Indexing is set while an index run of the root is in progress.
	Indexing bool `json:"indexing"`
	// Semantic says whether the dense channel is on: "hybrid: <model
	// identity>" (by default the built-in model), or "lexical-only" when
	// CTX_EMBED_PROVIDER is none.
	Semantic string `json:"semantic"`
	// Changed, Added and Deleted count files that differ from the index on
	// disk now (by size and mtime), i.e. what `ctx index` would revisit.
	Changed int `json:"changed"`
	Added   int `json:"added"`
	Deleted int `json:"deleted"`
	// Imports counts import statements (Go, Python, JavaScript and
	// TypeScript): all, those that should resolve inside the repository,
	// and those that did.
	Imports index.ImportStats `json:"imports"`
	// Redacted reports the secrets masked inside indexed files' content
	// (files that are credentials as a whole are skips with reason
	// "secret").
	Redacted Redacted `json:"redacted"`
}

// Redacted counts the secrets the index masked in file contents: chunks,
// terms and vectors never held them, and code read back is masked again.
type Redacted struct {
	// Secrets is the number of masked spans, Files the number of files
	// holding them.
	Secrets int `json:"secrets"`
	Files   int `json:"files"`
	// List holds the first [RedactedListMax] of those files by path.
	List []RedactedFile `json:"list"`
	// Off is set when CTX_INCLUDE_SECRETS turns masking (and the
	// exclusion of credential files) off.
	Off bool `json:"off,omitempty"`
}

// RedactedFile is a file with masked secrets and the rules that found
// them.
type RedactedFile struct {
	Path  string   `json:"path"`
	Count int      `json:"count"`
	Rules []string `json:"rules"`
}

// RedactedListMax caps [Redacted.List].
const RedactedListMax = 20

// Status reports on the root's index. Errors: [ErrNotIndexed] when there is
// no index.
func (e *Engine) Status(ctx context.Context) (*Status, error) {
	db, err := e.openDB(ctx, true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	// The identity takes the vector length from the index: status never
	// calls the embedding provider.
	if err := e.storedDims(ctx, db); err != nil {
		return nil, err
	}
	st := &Status{Root: e.root, IndexPath: e.dbPath, Identity: e.Identity(), Skips: map[string]int{}}
	counts, err := db.Count(ctx)
	if err != nil {
		return nil, err
	}
	st.Files, st.Chunks, st.Vectors, st.Languages = counts.Files, counts.Chunks, counts.Vectors, counts.Languages
	if v := mustMeta(ctx, db, "skips"); v != "" {
		_ = json.Unmarshal([]byte(v), &st.Skips)
	}
	if t, err := time.Parse(time.RFC3339, mustMeta(ctx, db, "last_indexed")); err == nil {
		st.LastIndexed = t
	}
	st.Generation, _ = strconv.ParseInt(mustMeta(ctx, db, "generation"), 10, 64)
	if v := mustMeta(ctx, db, metaImports); v != "" {
		_ = json.Unmarshal([]byte(v), &st.Imports)
	}
	st.StoredIdentity = mustMeta(ctx, db, "identity")
	running := mustMeta(ctx, db, metaRunState) == runRunning
	st.Indexing = running && indexRunning(e.dbPath)
	st.Incomplete = st.StoredIdentity == "" || running && !st.Indexing
	st.Stale = !st.Incomplete && st.StoredIdentity != st.Identity.Hash
	st.Semantic = "lexical-only (CTX_EMBED_PROVIDER=none)"
	if e.emb != nil {
		st.Semantic = "hybrid: " + e.emb.Model().String()
	}
	plan, err := index.NewPlan(ctx, db, e.root, walkOptions(e.cfg))
	if err != nil {
		return nil, err
	}
	st.Added, st.Changed, st.Deleted = plan.New, len(plan.Todo)-plan.New, plan.GoneIndexed
	if err := redactedStatus(ctx, db, e.cfg.IncludeSecrets, &st.Redacted); err != nil {
		return nil, err
	}
	st.IndexBytes = db.SizeBytes()
	if fi, err := os.Stat(e.dbPath + ".vec"); err == nil {
		st.IndexBytes += fi.Size()
	}
	return st, nil
}

// redactedStatus fills r from the index's record of masked secrets.
func redactedStatus(ctx context.Context, db *store.DB, off bool, r *Redacted) error {
	sc, err := db.Secrets(ctx, RedactedListMax)
	if err != nil {
		return err
	}
	*r = Redacted{Secrets: sc.Total, Files: sc.Files, List: make([]RedactedFile, len(sc.List)), Off: off}
	for i, f := range sc.List {
		r.List[i] = RedactedFile{Path: f.Path, Count: f.Count, Rules: f.Rules}
	}
	return nil
}
