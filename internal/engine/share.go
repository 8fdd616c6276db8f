package engine

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/search"
	"github.com/ctx-dev/ctx/internal/store"
	"github.com/ctx-dev/ctx/internal/version"
	"github.com/ctx-dev/ctx/internal/wvstore"
)

// Meta keys an import writes: where the index came from, for `ctx status`.
const (
	metaImportedFrom   = "imported_from"       // the archive's name as given to ctx import
	metaImportedOrigin = "imported_origin"     // the archive's origin remote
	metaImportedGen    = "imported_generation" // the archive's generation
	metaImportedAt     = "imported_at"         // RFC 3339
)

// machineKeys are the meta keys that describe this machine's checkout
// (its absolute root, its directories' times, its runs, its imports),
// which an export leaves out of the archive.
var machineKeys = []string{store.MetaRoot, metaDirs, metaRunIdentity, metaRunStarted, metaRunProgress,
	metaImportedFrom, metaImportedOrigin, metaImportedGen, metaImportedAt}

// IndexExportReport describes an archive [Engine.ExportIndex] wrote.
type IndexExportReport struct {
	Manifest *Manifest
	// Bytes is the archive's size in bytes (compressed).
	Bytes int64
}

// ExportIndex writes a shareable archive of the root's committed index to w
// (see [Manifest] and [ArchiveFormat]): a consistent snapshot taken with
// SQLite's VACUUM INTO while index runs and queries may go on, with the
// meta values that name this machine's checkout removed (the absolute
// root among them), so the archive holds root-relative paths only. The
// derived vector file is not included: an import writes its own.
//
// Errors: [ErrNotIndexed], [ErrInterrupted] when the last run did not
// finish, [ErrStale] when the index was built with another identity than
// this build's, [ErrInvalidArgument] when CTX_INCLUDE_SECRETS is on (the
// index may then hold secrets' terms), [ErrCacheDir], w's errors.
func (e *Engine) ExportIndex(ctx context.Context, w io.Writer) (*IndexExportReport, error) {
	if e.cfg.IncludeSecrets {
		return nil, Errorf(ErrInvalidArgument, "exporting the index: CTX_INCLUDE_SECRETS is on, so the index may hold the terms of secrets; index without it before sharing")
	}
	db, err := e.openDB(ctx, true)
	if err != nil {
		return nil, err
	}
	snap, err := e.snapshot(ctx, db)
	db.Close()
	if snap != "" {
		defer removeDB(snap)
	}
	if err != nil {
		return nil, err
	}
	files, kv, err := store.ReadFileEntries(ctx, snap)
	if err != nil {
		return nil, err
	}
	id := e.Identity()
	switch hd := headOf(kv); {
	case hd.stored == "" || hd.running:
		return nil, fmt.Errorf("exporting the index: %w (the last index run did not finish: run `ctx index` first)", ErrInterrupted)
	case hd.stored != id.Hash:
		return nil, fmt.Errorf("%w: exporting the index: it was built with identity %s, this build writes %s; run `ctx index` first", ErrStale, hd.stored, id.Hash)
	}
	m := &Manifest{
		Format: ArchiveFormat, CtxVersion: ctxVersion(), Schema: id.Schema, Chunker: id.Chunker, Analyzer: id.Analyzer,
		Model: id.Model, Identity: id.Hash, Generation: headOf(kv).gen, Files: len(files),
		Created: time.Now().UTC().Truncate(time.Second), Origin: originRemote(e.WorkTree()), FileList: files,
	}
	for _, f := range files {
		m.SourceBytes += f.Size
	}
	if m.Index, err = memberOf(snap); err != nil {
		return nil, err
	}
	cw := &countWriter{w: w}
	if err := writeArchive(cw, m, snap); err != nil {
		return nil, err
	}
	return &IndexExportReport{Manifest: m, Bytes: cw.n}, nil
}

// snapshot copies db's committed content to a new file beside it and
// scrubs it for export; it returns the file's path, also on error when
// the file may exist (the caller removes it).
func (e *Engine) snapshot(ctx context.Context, db *store.DB) (string, error) {
	f, err := os.CreateTemp(dirOf(e.dbPath), filepath.Base(e.dbPath)+".export-*")
	if err != nil {
		return "", cacheDirErr(dirOf(e.dbPath), err)
	}
	snap := f.Name()
	f.Close()
	if err := os.Remove(snap); err != nil {
		return "", cacheDirErr(dirOf(e.dbPath), err)
	}
	if err := db.SnapshotTo(ctx, snap); err != nil {
		return snap, err
	}
	if err := e.unfold(ctx, db, snap); err != nil {
		return snap, err
	}
	return snap, store.Scrub(ctx, snap, e.root, machineKeys)
}

// unfold writes the vectors the index folded into the vector file back
// into the snapshot at snap ([store.Unfold]), so the archive holds every
// vector and installs a working index without this machine's vector
// file. Errors: [search.ErrVectorsMissing] (wrapped) when the vector
// file lacks one (`ctx index` repairs it first), store failures.
func (e *Engine) unfold(ctx context.Context, db *store.DB, snap string) error {
	if e.emb == nil {
		return nil
	}
	if err := e.storedDims(ctx, db); err != nil {
		return err
	}
	open := e.vecBase()
	var base *search.Vectors
	var berr error
	opened := false
	_, err := store.Unfold(ctx, snap, func(ver store.Version, id int64) ([]byte, bool) {
		if !opened {
			opened = true
			base, berr = open(ver)
		}
		if berr != nil {
			return nil, false
		}
		q, scale, ok := base.Row(id)
		if !ok {
			return nil, false
		}
		return embed.EncodeInt8(q, scale), true
	})
	if errors.Is(err, store.ErrMissingVector) {
		if berr != nil {
			err = berr
		}
		return WithFix(fmt.Errorf("exporting the index: %w (%v)", search.ErrVectorsMissing, err), "run `ctx index` to embed the chunks whose vectors were lost, then export again")
	}
	return err
}

// memberOf returns the size and SHA-256 of the file at p.
func memberOf(p string) (ArchiveMember, error) {
	f, err := os.Open(p)
	if err != nil {
		return ArchiveMember{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return ArchiveMember{}, fmt.Errorf("hashing the snapshot: %w", err)
	}
	return ArchiveMember{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ctxVersion names this build: its version, and its commit when known.
func ctxVersion() string {
	v := version.Get()
	if v.Commit != "" {
		return v.Version + " " + v.Commit
	}
	return v.Version
}

// originRemote returns the url of the "origin" remote in the git work
// tree top's configuration without any user or password in it, "" when
// there is none or it cannot be read.
func originRemote(top string) string {
	if top == "" {
		return ""
	}
	gitDir := filepath.Join(top, ".git")
	if b, err := os.ReadFile(gitDir); err == nil {
		// A linked work tree: .git is a file naming its directory, whose
		// commondir holds the shared configuration.
		s := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(b)), "gitdir:"))
		if !filepath.IsAbs(s) {
			s = filepath.Join(top, s)
		}
		gitDir = s
		if c, err := os.ReadFile(filepath.Join(s, "commondir")); err == nil {
			cd := strings.TrimSpace(string(c))
			if !filepath.IsAbs(cd) {
				cd = filepath.Join(s, cd)
			}
			gitDir = cd
		}
	}
	return redactRemote(originURLIn(gitDir))
}

// redactRemote drops credentials from a remote's url: the user and
// password of a URL with a scheme (https://token@host/...). An scp-like
// address (git@host:path) names an ssh user, not a secret, and stays.
func redactRemote(u string) string {
	if !strings.Contains(u, "://") {
		return u
	}
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	p.User = nil
	return p.String()
}

// ImportIndexOptions configures [Engine.ImportIndex].
type ImportIndexOptions struct {
	// Name is the archive's name (its file name, or "-" for standard
	// input), recorded for `ctx status`.
	Name string
	// Phase receives the phases: PhaseExtract, PhaseVerify, PhaseInstall,
	// then the catch-up run's (see [IndexOptions].Phase).
	Phase func(Phase)
}

// The import's own phases, before the catch-up index run's.
const (
	// PhaseExtract reads the archive into a file beside the index.
	PhaseExtract = "extract"
	// PhaseVerify checks the extracted database and its file list.
	PhaseVerify = "verify"
	// PhaseInstall makes it the root's index.
	PhaseInstall = "install"
)

// IndexImportReport is the outcome of [Engine.ImportIndex].
type IndexImportReport struct {
	// Manifest is the archive's.
	Manifest *Manifest
	// Replaced is set when an existing index was replaced (in one
	// transaction); otherwise the archive's database was moved into place.
	Replaced bool
	// Unchanged counts the archive's files whose content on disk is the
	// same (verified by hash): nothing of them was chunked or embedded.
	Unchanged int
	// Reindexed counts files whose content differs from the archive's,
	// Added files the archive lacks, Removed files it holds that are gone
	// (or now skipped).
	Reindexed, Added, Removed int
	// Chunks is the number of chunks written and Embedded the texts sent
	// to the embedding model by the catch-up run.
	Chunks, Embedded int
	// Generation is the index generation after the catch-up run.
	Generation int64
	// Install and CatchUp are the times of extracting, verifying and
	// installing the archive, and of the catch-up run; Elapsed is the
	// whole import's.
	Install, CatchUp, Elapsed time.Duration
	// Weaviate reports the sync into Weaviate (the weaviate backend).
	Weaviate *wvstore.SyncStats
}

// importFault, when set (tests), is called at the import's stages and
// at an index run's fold ("fold" before it commits, "vacuum" after); an
// error it returns fails the step there, as a crash would stop it.
var importFault func(stage string) error

func fault(stage string) error {
	if importFault != nil {
		return importFault(stage)
	}
	return nil
}

// ImportIndex installs the index archive read from r (written by
// [Engine.ExportIndex] of a checkout of the same repository, anywhere) as the
// root's index, then brings it up to date with the files on disk: files
// whose content hash matches the archive's are not chunked or embedded
// again (only their mtimes on this machine are recorded, so the next run
// skips them unread); changed, new and deleted files are indexed as
// `ctx index` would, and the vector file is written here.
//
// Nothing is touched before the archive is verified: its format and
// identity against this build's ([ErrArchiveIncompatible]), then the
// whole stream, member names and sizes, the database's SHA-256, SQLite's
// quick_check and its files table against the manifest's file list
// ([ErrArchiveCorrupt]). It holds the lock `ctx index` takes. An existing
// index is replaced in one transaction, so queries see the old index or
// the new one, never a gap (one too damaged to open has its file
// replaced, as a rebuild does); a failure before that leaves it as it
// was. Other errors: [discover.ErrUnsafeRoot], [ErrCacheDir], store and
// embedder failures, ctx's (also while the archive is read).
func (e *Engine) ImportIndex(ctx context.Context, r io.Reader, opts ImportIndexOptions) (*IndexImportReport, error) {
	start := time.Now()
	if err := discover.CheckRoot(e.root, e.cfg.Home, e.cfg.Force); err != nil {
		return nil, err
	}
	if err := e.ensureDims(ctx); err != nil {
		return nil, err
	}
	phase := func(ph Phase) {
		if opts.Phase != nil {
			opts.Phase(ph)
		}
	}
	ar, err := newArchiveReader(ctx, r)
	if err != nil {
		return nil, err
	}
	m, err := ar.manifest()
	if err != nil {
		return nil, err
	}
	if err := m.compatible(e.Identity()); err != nil {
		return nil, err
	}
	unlock, err := lockIndex(ctx, e.dbPath, func() {
		e.log.Info("an index run of this root is in progress; waiting", "root", e.root)
	})
	if err != nil {
		return nil, err
	}
	defer unlock()
	tmp := e.dbPath + ".import"
	if err := removeDB(tmp); err != nil {
		return nil, err
	}
	defer removeDB(tmp)

	phase(Phase{Name: PhaseExtract})
	if err := extract(ar, m, tmp); err != nil {
		return nil, err
	}
	phase(Phase{Name: PhaseExtract, End: true})
	if err := fault(PhaseExtract); err != nil {
		return nil, err
	}

	phase(Phase{Name: PhaseVerify})
	if err := verifyImport(ctx, tmp, m); err != nil {
		return nil, err
	}
	phase(Phase{Name: PhaseVerify, End: true})

	rep := &IndexImportReport{Manifest: m}
	phase(Phase{Name: PhaseInstall})
	if err := e.install(ctx, tmp, m, opts.Name, rep); err != nil {
		return nil, err
	}
	phase(Phase{Name: PhaseInstall, End: true})
	rep.Install = time.Since(start)

	db, err := e.openDB(ctx, false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	kv, err := db.MetaAll(ctx)
	if err != nil {
		return nil, err
	}
	run, err := e.run(ctx, db, headOf(kv), false, true, IndexOptions{Phase: opts.Phase})
	if err != nil {
		return nil, err
	}
	st := run.Stats
	rep.Unchanged, rep.Reindexed, rep.Added, rep.Removed = st.Unchanged+st.Touched, st.Changed, st.Added, st.Deleted
	rep.Chunks, rep.Embedded, rep.Generation = st.Chunks, st.Embedded, run.Generation
	rep.CatchUp = st.Duration
	if e.remoteBackend() {
		if rep.Weaviate, err = e.syncWeaviate(ctx, run.Generation, nil, nil); err != nil {
			return nil, err
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// extract copies the archive's database into the new file tmp and syncs
// it.
func extract(ar *archiveReader, m *Manifest, tmp string) (err error) {
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return cacheDirErr(dirOf(tmp), err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cacheDirErr(dirOf(tmp), cerr)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := ar.copyDB(bw, m); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return cacheDirErr(dirOf(tmp), err)
	}
	return f.Sync()
}

// verifyImport checks the extracted database at tmp: SQLite's own check,
// this build's schema, and the manifest's identity, generation and file
// list against its meta and files tables (a manifest that lies about the
// content it describes is refused), every path relative and clean.
func verifyImport(ctx context.Context, tmp string, m *Manifest) error {
	if err := store.CheckFile(ctx, tmp); err != nil {
		switch {
		case errors.Is(err, store.ErrSchemaTooNew), errors.Is(err, store.ErrSchemaOld):
			return fmt.Errorf("%w: %v", ErrArchiveIncompatible, err)
		case errors.Is(err, store.ErrCorrupt):
			return corruptf("the archive's database: %v", err)
		}
		return err
	}
	files, kv, err := store.ReadFileEntries(ctx, tmp)
	if err != nil {
		return corruptf("the archive's database: %v", err)
	}
	hd := headOf(kv)
	if hd.stored != m.Identity || hd.gen != m.Generation || hd.running {
		return corruptf("the manifest says identity %s at generation %d, the database holds %s at %d", m.Identity, m.Generation, hd.stored, hd.gen)
	}
	if len(files) != len(m.FileList) || len(files) != m.Files {
		return corruptf("the manifest lists %d files (%d counted), the database holds %d", len(m.FileList), m.Files, len(files))
	}
	for i, f := range files {
		if f != m.FileList[i] {
			return corruptf("the manifest lists %s (%d bytes, %s), the database holds %s (%d bytes, %s)",
				m.FileList[i].Path, m.FileList[i].Size, m.FileList[i].Hash, f.Path, f.Size, f.Hash)
		}
		if !cleanRelative(f.Path) {
			return corruptf("the database holds a path that leaves the root: %q", f.Path)
		}
	}
	return nil
}

// cleanRelative reports whether p is a clean slash path inside the root.
func cleanRelative(p string) bool {
	return p != "" && !path.IsAbs(p) && path.Clean(p) == p && p != ".." && !strings.HasPrefix(p, "../") &&
		!strings.ContainsAny(p, "\\\x00")
}

// install makes the verified database at tmp the root's index: it
// records this checkout's root and the import's origin in tmp, then moves
// tmp into place when the root has no index (nothing can be reading
// one), or copies it into the existing index in one transaction
// ([store.DB.ReplaceWith]) so readers see the old index until the commit.
// The generation moves past the replaced index's, and tmp gets a fresh
// index id, so no derived file of either passes for the result.
func (e *Engine) install(ctx context.Context, tmp string, m *Manifest, name string, rep *IndexImportReport) error {
	gen := m.Generation
	_, err := os.Stat(e.dbPath)
	exists := err == nil
	if exists {
		// A damaged index (its file is replaced below) has no
		// generation to pass.
		old, err := e.openDB(ctx, false)
		if err != nil && !errors.Is(err, store.ErrCorrupt) {
			return err
		}
		if err == nil {
			kv, err := old.MetaKeys(ctx, store.MetaGeneration)
			old.Close()
			if err != nil && !errors.Is(err, store.ErrCorrupt) {
				return err
			}
			gen = max(gen, headOf(kv).gen+1)
		}
	}
	kv := map[string]string{
		store.MetaRoot:       e.root,
		store.MetaGeneration: strconv.FormatInt(gen, 10),
		metaRunState:         runDone,
		metaImportedFrom:     name,
		metaImportedOrigin:   m.Origin,
		metaImportedGen:      strconv.FormatInt(m.Generation, 10),
		metaImportedAt:       time.Now().UTC().Format(time.RFC3339),
	}
	if err := store.SetFileMeta(ctx, tmp, kv, true); err != nil {
		return err
	}
	if err := fault(PhaseInstall); err != nil {
		return err
	}
	e.retire()
	if !exists {
		if err := removeDB(e.dbPath); err != nil {
			return err
		}
		if err := os.Rename(tmp, e.dbPath); err != nil {
			return cacheDirErr(dirOf(e.dbPath), fmt.Errorf("installing the imported index: %w", err))
		}
		return nil
	}
	rep.Replaced = true
	live, err := e.openDB(ctx, false)
	if err != nil && !errors.Is(err, store.ErrCorrupt) {
		return err
	}
	if err == nil {
		_, err = live.ReplaceWith(ctx, tmp)
		if err == nil {
			return live.Close()
		}
	}
	if ctx.Err() != nil {
		if live != nil {
			live.Close()
		}
		return ctx.Err()
	}
	// A damaged index cannot take the new content: its file is replaced
	// instead, as a rebuild does (queries see no index for a moment).
	e.log.Warn("the old index could not take the imported one's content; replacing its file", "err", err)
	if live == nil {
		live = &store.DB{}
	}
	if err := e.replaceFile(ctx, live, tmp); err != nil {
		return err
	}
	return live.Close()
}

// ImportedFrom says where an index came from when it was installed by
// `ctx import`.
type ImportedFrom struct {
	// Archive is the archive's name as given to ctx import.
	Archive string `json:"archive"`
	// Origin is the repository's origin remote the archive recorded.
	Origin string `json:"origin,omitempty"`
	// Generation is the archive's index generation.
	Generation int64 `json:"generation"`
	// At is when it was imported.
	At time.Time `json:"at"`
}

// importedFrom reads the import's record from meta values; nil when the
// index was not imported.
func importedFrom(kv map[string]string) *ImportedFrom {
	if kv[metaImportedAt] == "" {
		return nil
	}
	gen, _ := strconv.ParseInt(kv[metaImportedGen], 10, 64)
	at, _ := time.Parse(time.RFC3339, kv[metaImportedAt])
	return &ImportedFrom{Archive: kv[metaImportedFrom], Origin: kv[metaImportedOrigin], Generation: gen, At: at}
}
