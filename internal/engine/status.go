package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/index"
	"github.com/ctx-dev/ctx/internal/store"
)

// Status describes a root's index for `ctx status`.
type Status struct {
	Root      string `json:"root"`
	IndexPath string `json:"index_path"`
	// IndexBytes is the size on disk of the database files and the
	// derived vector file, in bytes.
	IndexBytes int64 `json:"index_bytes"`
	// SourceBytes is the sum of the indexed files' sizes, in bytes, as
	// they were indexed (skipped files do not count): IndexBytes over
	// SourceBytes is what the index costs per byte of code.
	SourceBytes int64          `json:"source_bytes"`
	Files       int            `json:"files"`
	Chunks      int            `json:"chunks"`
	Vectors     int            `json:"vectors"`
	Languages   map[string]int `json:"languages"`
	// Skips counts skipped paths by reason at the last index run.
	Skips map[string]int `json:"skips"`
	// SkippedMost is set when the files on disk now would have more than
	// [SkippedMostShare] of their candidates skipped (counted by the same
	// walk as Changed, Added and Deleted).
	SkippedMost *SkippedMost `json:"skipped_most,omitempty"`
	LastIndexed time.Time    `json:"last_indexed"`
	Generation  int64        `json:"generation"`
	// Imported says which archive `ctx import` installed this index
	// from, at which of the archive's generations; absent for an index
	// built here (or rebuilt since).
	Imported *ImportedFrom `json:"imported,omitempty"`
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
	// VectorsLost says why the dense channel cannot answer: the index
	// folded its vectors into the vector file (see
	// [store.DB.FoldVectors]) and that file is missing, damaged or of
	// another index. `ctx index` embeds the chunks again. Empty when the
	// vectors are whole.
	VectorsLost string `json:"vectors_lost,omitempty"`
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
	// Watch describes the watcher keeping this index fresh (ctx watch, or
	// ctx mcp / ctx serve without --no-watch), in this process or another
	// that still runs; absent when nothing watches the root.
	Watch *WatchState `json:"watch,omitempty"`
	// QueryCache counts a long-lived server's cached answers: hits and
	// misses since it started (absent outside servers).
	QueryCache *CacheStats `json:"query_cache,omitempty"`
	// NoLocalIndex is set, with the weaviate backend, when this checkout
	// has no local index: the counts above are then empty and searches
	// read the tenant alone.
	NoLocalIndex bool `json:"no_local_index,omitempty"`
	// Backend is where searches read with the weaviate backend: the
	// server, the tenant and what its last sync wrote; absent for the
	// local store.
	Backend *BackendStatus `json:"backend,omitempty"`
	// SkippedFiles lists, by path, what the index leaves out and why:
	// the skips of the walk that counted Changed, Added and Deleted, and
	// the files the index recorded as skipped for their content (binary,
	// generated, minified) that have not changed since. Only
	// [StatusOptions].SkippedFiles fills it.
	SkippedFiles []SkippedFile `json:"skipped_files,omitempty"`
}

// SkippedFile is a path the index leaves out and why.
type SkippedFile struct {
	// Path is slash-separated and relative to the root; for a directory
	// (Dir), nothing under it is indexed.
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Detail says more: the ignore rule and its file, the size, the link
	// target, the error.
	Detail string `json:"detail,omitempty"`
	Dir    bool   `json:"dir,omitempty"`
}

// StatusOptions configures [Engine.StatusWith].
type StatusOptions struct {
	// SkippedFiles fills [Status].SkippedFiles.
	SkippedFiles bool
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
	return e.StatusWith(ctx, StatusOptions{})
}

// StatusWith is [Engine.Status] with options.
func (e *Engine) StatusWith(ctx context.Context, opts StatusOptions) (*Status, error) {
	db, err := e.openDB(ctx, true)
	if errors.Is(err, ErrNotIndexed) && e.remoteBackend() {
		// A team member's checkout may have no local index: searches
		// read the tenant alone.
		return &Status{Root: e.root, IndexPath: e.dbPath, Identity: e.Identity(), NoLocalIndex: true, Backend: e.backendStatus(ctx)}, nil
	}
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
	if e.remoteBackend() {
		st.Backend = e.backendStatus(ctx)
	}
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
	if kv, err := db.MetaKeys(ctx, metaImportedFrom, metaImportedOrigin, metaImportedGen, metaImportedAt); err == nil {
		st.Imported = importedFrom(kv)
	}
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
	st.SkippedMost = SkippedMostOf(plan.SkipShare())
	if opts.SkippedFiles {
		st.SkippedFiles = make([]SkippedFile, len(plan.Skips))
		for i, sk := range plan.Skips {
			st.SkippedFiles[i] = SkippedFile{Path: sk.Path, Reason: string(sk.Reason), Detail: sk.Detail, Dir: sk.Dir}
		}
		slices.SortFunc(st.SkippedFiles, func(a, b SkippedFile) int { return cmp.Compare(a.Path, b.Path) })
	}
	if err := redactedStatus(ctx, db, e.cfg.IncludeSecrets, &st.Redacted); err != nil {
		return nil, err
	}
	if st.SourceBytes, err = db.SourceBytes(ctx); err != nil {
		return nil, err
	}
	st.IndexBytes = db.SizeBytes()
	if fi, err := os.Stat(e.dbPath + ".vec"); err == nil {
		st.IndexBytes += fi.Size()
	}
	st.VectorsLost = e.vectorsLost(ctx, db)
	st.Watch = e.WatchState()
	st.QueryCache = e.QueryCache()
	return st, nil
}

// vectorsLost returns why the vectors db folded cannot be read back
// (the vector file at the root's path is not one of this index's), ""
// when none was folded or the file is there. It reads the file's header
// only: a file that parses and is of this index holds every row it was
// written with.
func (e *Engine) vectorsLost(ctx context.Context, db *store.DB) string {
	if e.emb == nil {
		return ""
	}
	kv, err := db.MetaKeys(ctx, store.MetaVectorBase, store.MetaIndexID, store.MetaContentVersion)
	if err != nil || kv[store.MetaVectorBase] == "" {
		return ""
	}
	if _, err := e.vecBase()(headOf(kv).ver); err != nil {
		return fmt.Sprintf("the vector file %s holding the index's vectors is unusable: %v", e.vecPath(), err)
	}
	return ""
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

// SkippedMostShare is the share of a run's candidate files (see
// [index.SkipShare]) above which the run is reported as skipping most of
// the repository: `ctx index` warns on stderr, and `ctx status` and the
// index_status tool list it as a health problem. More than half skipped
// usually means a rule or setting hides the code itself (a size cap too
// low, links that leave the repository, an ignore pattern too broad),
// not that the repository is mostly assets.
const SkippedMostShare = 0.5

// SkippedMost reports a walk that skipped more than [SkippedMostShare]
// of its candidate files.
type SkippedMost struct {
	Skipped    int `json:"skipped"`
	Candidates int `json:"candidates"`
	// Reasons counts the skipped files by reason, most first.
	Reasons []SkipReason `json:"reasons"`
}

// SkipReason is one reason of [SkippedMost] with what changes it.
type SkipReason struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
	// Fix names the setting or file that changes the rule, or says
	// that none does.
	Fix string `json:"fix"`
}

// skipFixes says, for each skip reason, what changes it; the names are
// the settings of internal/config.
var skipFixes = map[discover.Reason]string{
	discover.ReasonGitignore:  "edit the .gitignore that matches (ctx follows git's ignore rules)",
	discover.ReasonCtxignore:  "edit .ctxignore or CTX_EXCLUDE",
	discover.ReasonTooLarge:   "raise CTX_MAX_FILE_BYTES",
	discover.ReasonSecret:     "set CTX_INCLUDE_SECRETS=1, only if they hold no credentials",
	discover.ReasonSymlink:    "only links to files inside the repository are followed: move the files in, or link files rather than directories",
	discover.ReasonBinary:     "nothing to change (not text)",
	discover.ReasonMinified:   "nothing to change (minified code and source maps)",
	discover.ReasonGenerated:  "nothing to change (generated code)",
	discover.ReasonLockfile:   "nothing to change (lockfiles)",
	discover.ReasonUnreadable: "make the files readable",
	discover.ReasonSpecial:    "nothing to change (not regular files)",
}

// SkippedMostOf returns the report for a walk's skip share, or nil when
// it skipped no more than [SkippedMostShare] of its candidates.
func SkippedMostOf(sh index.SkipShare) *SkippedMost {
	if sh.Candidates == 0 || float64(sh.Skipped) <= SkippedMostShare*float64(sh.Candidates) {
		return nil
	}
	sm := &SkippedMost{Skipped: sh.Skipped, Candidates: sh.Candidates}
	for r, n := range sh.Reasons {
		fix, ok := skipFixes[r]
		if !ok {
			fix = "nothing to change"
		}
		sm.Reasons = append(sm.Reasons, SkipReason{Reason: string(r), Count: n, Fix: fix})
	}
	slices.SortFunc(sm.Reasons, func(a, b SkipReason) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Reason, b.Reason)
	})
	return sm
}

// skippedMostShown caps the reasons [SkippedMost.Problem] and
// [SkippedMost.Fix] name: the biggest ones.
const skippedMostShown = 3

// Problem says how much was skipped and why, biggest reasons first:
// "skipped 8 of 10 files (80%): 6 symlink, 2 too-large".
func (s *SkippedMost) Problem() string {
	var b strings.Builder
	fmt.Fprintf(&b, "skipped %d of %d files (%d%%):", s.Skipped, s.Candidates, s.Skipped*100/s.Candidates)
	for i, r := range s.shown() {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %d %s", r.Count, r.Reason)
	}
	switch more := len(s.Reasons) - skippedMostShown; {
	case more == 1:
		b.WriteString(" and 1 more reason")
	case more > 1:
		fmt.Fprintf(&b, " and %d more reasons", more)
	}
	return b.String()
}

// Fix says what changes each of the biggest reasons:
// "too-large: raise CTX_MAX_FILE_BYTES; binary: nothing to change (not text)".
func (s *SkippedMost) Fix() string {
	parts := make([]string, 0, skippedMostShown)
	for _, r := range s.shown() {
		parts = append(parts, r.Reason+": "+r.Fix)
	}
	return strings.Join(parts, "; ")
}

// String is the one-line warning `ctx index` prints.
func (s *SkippedMost) String() string {
	return s.Problem() + "; fix: " + s.Fix()
}

func (s *SkippedMost) shown() []SkipReason {
	return s.Reasons[:min(len(s.Reasons), skippedMostShown)]
}

// Freshness says whether the index matches the files on disk now and no
// run is writing or left it unfinished; when not, note says why with the
// fix ("3 files changed since indexed (run `ctx index --repo R`)").
func (st *Status) Freshness() (fresh bool, note string) {
	fix := "(run `ctx index --repo " + st.Root + "`)"
	changed := st.Changed + st.Added + st.Deleted
	switch {
	case st.Indexing:
		return false, "an index run is writing it now"
	case st.Incomplete:
		return false, "the last index run did not finish " + fix
	case st.Stale:
		return false, "built by another ctx build or model " + fix
	case changed == 1:
		return false, "1 file changed since indexed " + fix
	case changed > 1:
		return false, fmt.Sprintf("%d files changed since indexed %s", changed, fix)
	}
	return true, ""
}
