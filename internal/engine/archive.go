package engine

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/store"
)

// ArchiveFormat is the version of the shareable index archive that
// [Engine.ExportIndex] writes and [Engine.ImportIndex] reads.
//
//	1: a gzip-compressed tar of manifest.json then index.db.
const ArchiveFormat = 1

// MinArchiveFormat is the oldest archive format this build reads.
const MinArchiveFormat = 1

// The archive's members, in the order they are written and must be read.
const (
	archiveManifest = "manifest.json"
	archiveDB       = "index.db"
)

// Limits on what an archive may declare, so a hostile or damaged one
// cannot fill the disk or the memory before it is refused.
const (
	// maxManifestBytes bounds manifest.json (about 120 bytes a file: a
	// million files fit).
	maxManifestBytes = 256 << 20
	// maxArchiveDBBytes bounds index.db (ten copies of the Go standard
	// library's index are about 1.4 GB).
	maxArchiveDBBytes = 64 << 30
)

// ErrArchiveIncompatible means an index archive was made by a ctx whose
// archive format, schema, chunker, analyzer or embedding model differs
// from this build's: its index cannot be used here. The fix is to index
// the checkout (`ctx index`), or to use a ctx build and model that match
// the archive's.
var ErrArchiveIncompatible = errors.New("index archive incompatible")

// ErrArchiveCorrupt means an index archive is damaged, truncated or not
// an archive ctx wrote: a member missing, out of order, unknown or over
// its size, a checksum or a file list that does not match, a database
// that fails its check. Nothing was installed.
var ErrArchiveCorrupt = errors.New("index archive damaged")

// Manifest describes an index archive: the first member, manifest.json.
// Paths are slash paths relative to the indexed root; nothing in it names
// the exporting machine's directories. Fields are only ever added.
type Manifest struct {
	// Format is [ArchiveFormat] of the ctx that wrote it.
	Format int `json:"format"`
	// CtxVersion is the exporting ctx's version (and commit, when known).
	CtxVersion string `json:"ctx_version"`
	// Schema, Chunker, Analyzer and Model are the index identity's parts,
	// and Identity its hash (see [Identity]).
	Schema   int    `json:"schema"`
	Chunker  int    `json:"chunker"`
	Analyzer int    `json:"analyzer"`
	Model    string `json:"model"`
	Identity string `json:"identity"`
	// Generation is the index generation exported.
	Generation int64 `json:"generation"`
	// Files is the number of indexed files and SourceBytes their sizes'
	// sum, in bytes.
	Files       int   `json:"files"`
	SourceBytes int64 `json:"source_bytes"`
	// Created is when the archive was written (UTC).
	Created time.Time `json:"created"`
	// Origin is the repository's origin remote without credentials, ""
	// when unknown.
	Origin string `json:"origin,omitempty"`
	// Index describes the index.db member: its size in bytes and SHA-256.
	Index ArchiveMember `json:"index"`
	// FileList holds every indexed file with its size and content hash,
	// sorted by path; it must equal the files table of index.db.
	FileList []store.FileEntry `json:"file_list"`
}

// ArchiveMember is a member's size (bytes) and SHA-256 (hex).
type ArchiveMember struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// writeArchive writes the archive of manifest m and the database file db
// to w: gzip over tar, manifest.json first. Errors: reading db, w's.
func writeArchive(w io.Writer, m *Manifest, db string) error {
	mj, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return fmt.Errorf("writing the archive: %v", err)
	}
	f, err := os.Open(db)
	if err != nil {
		return fmt.Errorf("writing the archive: %w", err)
	}
	defer f.Close()
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	hdr := func(name string, size int64) *tar.Header {
		return &tar.Header{Name: name, Mode: 0o644, Size: size, ModTime: m.Created, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	}
	if err := tw.WriteHeader(hdr(archiveManifest, int64(len(mj)))); err != nil {
		return fmt.Errorf("writing the archive: %w", err)
	}
	if _, err := tw.Write(mj); err != nil {
		return fmt.Errorf("writing the archive: %w", err)
	}
	if err := tw.WriteHeader(hdr(archiveDB, m.Index.Size)); err != nil {
		return fmt.Errorf("writing the archive: %w", err)
	}
	if n, err := io.Copy(tw, f); err != nil {
		return fmt.Errorf("writing the archive: %w", err)
	} else if n != m.Index.Size {
		return fmt.Errorf("writing the archive: %s changed while it was written", db)
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("writing the archive: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("writing the archive: %w", err)
	}
	return nil
}

// archiveReader reads an archive member by member, refusing what
// writeArchive would not have written.
type archiveReader struct {
	zr *gzip.Reader
	tr *tar.Reader
}

// newArchiveReader starts reading an archive from r; reads fail with
// ctx's error once it is done, so a canceled import stops mid-archive.
func newArchiveReader(ctx context.Context, r io.Reader) (*archiveReader, error) {
	zr, err := gzip.NewReader(ctxReader{ctx, r})
	if err != nil {
		return nil, corruptf("not a gzip-compressed ctx index archive: %v", err)
	}
	zr.Multistream(false)
	return &archiveReader{zr: zr, tr: tar.NewReader(zr)}, nil
}

// ctxReader is r that fails with ctx's error once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// next returns the header of the next member, which must be the regular
// file name of at most max bytes.
func (a *archiveReader) next(name string, max int64) (*tar.Header, error) {
	h, err := a.tr.Next()
	if errors.Is(err, io.EOF) {
		return nil, corruptf("the archive ends before %s", name)
	}
	if err != nil {
		return nil, corruptf("reading the archive before %s: %v", name, err)
	}
	if unsafeMemberName(h.Name) {
		return nil, corruptf("the archive holds a member with an unsafe name %q", h.Name)
	}
	if h.Name != name {
		return nil, corruptf("the archive holds %q where %s belongs", h.Name, name)
	}
	if h.Typeflag != tar.TypeReg {
		return nil, corruptf("%s is not a regular file in the archive", name)
	}
	if h.Size < 0 || h.Size > max {
		return nil, corruptf("%s is %d bytes, over the %d this build accepts", name, h.Size, max)
	}
	return h, nil
}

// manifest reads and parses the first member.
func (a *archiveReader) manifest() (*Manifest, error) {
	h, err := a.next(archiveManifest, maxManifestBytes)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(a.tr, h.Size))
	if err != nil {
		return nil, corruptf("reading %s: %v", archiveManifest, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, corruptf("reading %s: %v", archiveManifest, err)
	}
	return &m, nil
}

// copyDB copies the index.db member into w, checking its size and
// SHA-256 against the manifest's, then checks that nothing follows it
// and that the compressed stream ends whole (its checksum).
func (a *archiveReader) copyDB(w io.Writer, m *Manifest) error {
	h, err := a.next(archiveDB, maxArchiveDBBytes)
	if err != nil {
		return err
	}
	if h.Size != m.Index.Size {
		return corruptf("%s is %d bytes, the manifest says %d", archiveDB, h.Size, m.Index.Size)
	}
	sum := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, sum), io.LimitReader(a.tr, h.Size))
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("extracting %s: %w", archiveDB, err)
		}
		return corruptf("reading %s: %v", archiveDB, err)
	}
	if n != h.Size {
		return corruptf("%s ends after %d of its %d bytes", archiveDB, n, h.Size)
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != m.Index.SHA256 {
		return corruptf("%s has SHA-256 %s, the manifest says %s", archiveDB, got, m.Index.SHA256)
	}
	if h, err := a.tr.Next(); err == nil {
		return corruptf("the archive holds an unexpected member %q", h.Name)
	} else if !errors.Is(err, io.EOF) {
		return corruptf("reading the archive's end: %v", err)
	}
	// The tar's end is not the gzip stream's: read it to the end so its
	// length and CRC are checked.
	if _, err := io.Copy(io.Discard, a.zr); err != nil {
		return corruptf("reading the archive's end: %v", err)
	}
	return nil
}

// unsafeMemberName reports a member name that would leave a directory it
// were extracted into (absolute, "..", a backslash or NUL): never a name
// ctx writes. ctx extracts by member, never by name, so this only names
// the archive's damage.
func unsafeMemberName(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\\x00") || path.IsAbs(name) {
		return true
	}
	for _, el := range strings.Split(name, "/") {
		if el == ".." {
			return true
		}
	}
	return false
}

// compatible checks a manifest's format and identity against this
// build's, naming what differs. Errors: [ErrArchiveIncompatible].
func (m *Manifest) compatible(id Identity) error {
	if m.Format < MinArchiveFormat || m.Format > ArchiveFormat {
		return incompatiblef("archive format %d; this build reads %d to %d", m.Format, MinArchiveFormat, ArchiveFormat)
	}
	var diffs []string
	if m.Schema != id.Schema {
		diffs = append(diffs, fmt.Sprintf("schema %d (this build: %d)", m.Schema, id.Schema))
	}
	if m.Chunker != id.Chunker {
		diffs = append(diffs, fmt.Sprintf("chunker %d (this build: %d)", m.Chunker, id.Chunker))
	}
	if m.Analyzer != id.Analyzer {
		diffs = append(diffs, fmt.Sprintf("analyzer %d (this build: %d)", m.Analyzer, id.Analyzer))
	}
	if m.Model != id.Model {
		diffs = append(diffs, fmt.Sprintf("model %s (here: %s)", m.Model, id.Model))
	}
	if len(diffs) == 0 && m.Identity != id.Hash {
		diffs = append(diffs, fmt.Sprintf("identity %s (this build: %s)", m.Identity, id.Hash))
	}
	if len(diffs) > 0 {
		return incompatiblef("the archive's index was built with %s", strings.Join(diffs, ", "))
	}
	return nil
}

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrArchiveCorrupt, fmt.Sprintf(format, args...))
}

func incompatiblef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrArchiveIncompatible, fmt.Sprintf(format, args...))
}
