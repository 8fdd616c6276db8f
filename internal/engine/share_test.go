package engine_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/store"
)

// shareQueries are asked of an imported index and of a cold index of the
// same checkout.
var shareQueries = []string{
	"parse the JSON configuration file",
	"retry with exponential backoff",
	"render an HTML template",
	"load the settings",
	"jitter between attempts",
	"Config",
}

// exported indexes a fixture repository with the fake embedder and
// returns its root, its engine and its archive.
func exported(t *testing.T) (string, *engine.Engine, []byte) {
	t.Helper()
	a := repo(t)
	e := open(t, testConfig(t), a, embedtest.New(32))
	index(t, e, engine.IndexOptions{})
	var buf bytes.Buffer
	rep, err := e.ExportIndex(t.Context(), &buf)
	if err != nil {
		t.Fatalf("ExportIndex: %v", err)
	}
	if rep.Bytes != int64(buf.Len()) || rep.Manifest.Files != len(fixtureFiles) {
		t.Fatalf("export report: %d bytes (wrote %d), %d files (want %d)", rep.Bytes, buf.Len(), rep.Manifest.Files, len(fixtureFiles))
	}
	return a, e, buf.Bytes()
}

// editedCheckout is a second checkout of the fixture at another path: one
// file edited, one added, one deleted.
func editedCheckout(t *testing.T) string {
	t.Helper()
	b := repo(t)
	writeFile(t, b, "client/retry.go", `package client

import (
	"math/rand"
	"time"
)

// Retry calls f until it succeeds or attempts run out, sleeping with
// exponential backoff and jitter between attempts.
func Retry(attempts int, f func() error) error {
	var err error
	delay := 10 * time.Millisecond
	for i := 0; i < attempts; i++ {
		if err = f(); err == nil {
			return nil
		}
		time.Sleep(delay + time.Duration(rand.Int63n(int64(delay))))
		delay *= 2
	}
	return err
}
`)
	writeFile(t, b, "web/escape.js", "// escapeHTML escapes the characters HTML gives meaning to.\nexport function escapeHTML(s) {\n  return s.replace(/[&<>\"]/g, (c) => `&#${c.charCodeAt(0)};`);\n}\n")
	if err := os.Remove(filepath.Join(b, "scripts", "settings.py")); err != nil {
		t.Fatal(err)
	}
	return b
}

func importArchive(t *testing.T, e *engine.Engine, archive []byte) (*engine.IndexImportReport, error) {
	t.Helper()
	return e.ImportIndex(t.Context(), bytes.NewReader(archive), engine.ImportIndexOptions{Name: "test.tar.gz"})
}

type shareHit struct {
	Path       string
	Start, End int
	Score      float64
}

// answers returns what e answers to shareQueries: with channels (nil:
// all), the hits with their scores.
func answers(t *testing.T, e *engine.Engine, channels ...string) map[string][]shareHit {
	t.Helper()
	out := map[string][]shareHit{}
	for _, q := range shareQueries {
		for _, h := range find(t, e, engine.FindRequest{Query: q, Limit: 10, Channels: channels}).Results {
			out[q] = append(out[q], shareHit{h.Path, h.StartLine, h.EndLine, h.Score})
		}
	}
	return out
}

// sameAnswers checks that the imported index answers as the cold one:
// the lexical channel's hits and scores exactly (BM25 statistics are
// the same however the postings were written), and with every channel
// the same first hit and the same hits. Hybrid scores of the tail may
// differ a little, as they do after any incremental run: the off-topic
// level the confidence grade uses is measured again only when the index
// drifts by a tenth.
func sameAnswers(t *testing.T, cold, imported *engine.Engine) {
	t.Helper()
	if diff := cmp.Diff(answers(t, cold, "lexical"), answers(t, imported, "lexical"), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("imported index answers differently from a cold one, lexical (-cold +imported):\n%s", diff)
	}
	c, i := answers(t, cold), answers(t, imported)
	for _, q := range shareQueries {
		if len(c[q]) == 0 || len(i[q]) == 0 || c[q][0].Path != i[q][0].Path || c[q][0].Start != i[q][0].Start {
			t.Errorf("%q: first hit %v imported, %v cold", q, first(i[q]), first(c[q]))
		}
		key := func(hs []shareHit) []string {
			var out []string
			for _, h := range hs {
				out = append(out, fmt.Sprintf("%s:%d-%d", h.Path, h.Start, h.End))
			}
			sort.Strings(out)
			return out
		}
		if diff := cmp.Diff(key(c[q]), key(i[q])); diff != "" {
			t.Errorf("%q: other hits imported (-cold +imported):\n%s", q, diff)
		}
	}
}

func first(hs []shareHit) any {
	if len(hs) == 0 {
		return nil
	}
	return hs[0]
}

// TestExportImportCatchUp: an archive imported into an edited checkout at
// another path answers as a cold index of that checkout does, after
// re-indexing only the files whose content differs; the next run changes
// nothing, and status says fresh and where the index came from.
func TestExportImportCatchUp(t *testing.T) {
	t.Parallel()
	a, _, archive := exported(t)

	// Nothing of the exporting machine's paths, and no excluded secret.
	plain := gunzip(t, archive)
	for _, leak := range []string{a, "not-a-real-token"} {
		if bytes.Contains(plain, []byte(leak)) {
			t.Errorf("the archive holds %q", leak)
		}
	}

	b := editedCheckout(t)
	emb := embedtest.New(32)
	eb := open(t, testConfig(t), b, emb)
	rep, err := importArchive(t, eb, archive)
	if err != nil {
		t.Fatalf("ImportIndex: %v", err)
	}
	got := [4]int{rep.Unchanged, rep.Reindexed, rep.Added, rep.Removed}
	if want := [4]int{len(fixtureFiles) - 2, 1, 1, 1}; got != want {
		t.Errorf("unchanged, re-indexed, added, removed = %v, want %v", got, want)
	}
	if rep.Replaced {
		t.Error("Replaced set for a checkout with no index")
	}

	cold := embedtest.New(32)
	ec := open(t, testConfig(t), b, cold)
	index(t, ec, engine.IndexOptions{})
	if emb.Texts() == 0 || emb.Texts() >= cold.Texts() {
		t.Errorf("the import embedded %d texts, a cold index %d: want some, and fewer", emb.Texts(), cold.Texts())
	}
	sameAnswers(t, ec, eb)

	again := index(t, eb, engine.IndexOptions{})
	if s := again.Stats; s.Added+s.Changed+s.Deleted+s.Touched != 0 || s.Unchanged != len(fixtureFiles) {
		t.Errorf("the run after the import: %+v, want every file unchanged by size and mtime", s)
	}
	st := status(t, eb)
	if st.Stale || st.Incomplete || st.Changed+st.Added+st.Deleted != 0 {
		t.Errorf("status after the import: stale %v, incomplete %v, %d changed, %d added, %d deleted",
			st.Stale, st.Incomplete, st.Changed, st.Added, st.Deleted)
	}
	if st.Imported == nil || st.Imported.Archive != "test.tar.gz" || st.Imported.Generation != 1 {
		t.Errorf("status.Imported = %+v, want test.tar.gz at generation 1", st.Imported)
	}
	if st.Root != eb.Root() {
		t.Errorf("status root %s, want %s", st.Root, eb.Root())
	}
	if _, err := os.Stat(eb.DBPath() + ".vec"); err != nil {
		t.Errorf("no vector file after the import: %v", err)
	}
}

// TestImportReplacesIndex: importing over an existing index replaces it
// (the generation still grows) and answers as a cold index does.
func TestImportReplacesIndex(t *testing.T) {
	t.Parallel()
	_, _, archive := exported(t)
	b := editedCheckout(t)
	eb := open(t, testConfig(t), b, embedtest.New(32))
	for range 3 {
		index(t, eb, engine.IndexOptions{Rebuild: true})
	}
	before := status(t, eb).Generation
	rep, err := importArchive(t, eb, archive)
	if err != nil {
		t.Fatalf("ImportIndex: %v", err)
	}
	if !rep.Replaced || rep.Generation <= before {
		t.Errorf("replaced %v, generation %d after %d: want replaced and a later generation", rep.Replaced, rep.Generation, before)
	}
	ec := open(t, testConfig(t), b, embedtest.New(32))
	index(t, ec, engine.IndexOptions{})
	sameAnswers(t, ec, eb)
}

// member is one tar member of a rewritten archive.
type member struct {
	name string
	body []byte
	typ  byte
}

func members(t *testing.T, archive []byte) []member {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(gunzip(t, archive)))
	var out []member
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, member{h.Name, b, h.Typeflag})
	}
}

func pack(t *testing.T, ms []member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, m := range ms {
		typ := m.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		if err := tw.WriteHeader(&tar.Header{Name: m.name, Mode: 0o644, Size: int64(len(m.body)), Typeflag: typ}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(m.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gunzip(t *testing.T, archive []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withManifest rewrites the archive's manifest with edit, keeping the
// database (and its recorded checksum) as it is unless edit changes it.
func withManifest(t *testing.T, archive []byte, edit func(m *engine.Manifest, db *[]byte)) []byte {
	t.Helper()
	ms := members(t, archive)
	var m engine.Manifest
	if err := json.Unmarshal(ms[0].body, &m); err != nil {
		t.Fatal(err)
	}
	db := ms[1].body
	edit(&m, &db)
	mj, err := json.Marshal(&m)
	if err != nil {
		t.Fatal(err)
	}
	ms[0].body, ms[1].body = mj, db
	return pack(t, ms)
}

// indexed is an edited checkout with its own index, and what it answers.
func indexed(t *testing.T, cfg config.Config) (*engine.Engine, map[string][]shareHit, int64) {
	t.Helper()
	b := editedCheckout(t)
	eb := open(t, cfg, b, embedtest.New(32))
	index(t, eb, engine.IndexOptions{})
	return eb, answers(t, eb), status(t, eb).Generation
}

// intact checks that eb's index answers as before and is at the same
// generation, and that no extracted archive was left beside it.
func intact(t *testing.T, eb *engine.Engine, want map[string][]shareHit, gen int64) {
	t.Helper()
	if diff := cmp.Diff(want, answers(t, eb)); diff != "" {
		t.Errorf("the index answers differently after a refused import (-before +after):\n%s", diff)
	}
	st := status(t, eb)
	if st.Generation != gen || st.Imported != nil || st.Incomplete {
		t.Errorf("after a refused import: generation %d (was %d), imported %+v, incomplete %v", st.Generation, gen, st.Imported, st.Incomplete)
	}
	if _, err := os.Stat(eb.DBPath() + ".import"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the extracted archive was left behind: %v", err)
	}
}

// TestImportRefusesIncompatible: an archive of another format, schema,
// chunker or model (a forged manifest, or this checkout's build set up
// with another model) is refused before anything changes.
func TestImportRefusesIncompatible(t *testing.T) {
	t.Parallel()
	_, _, archive := exported(t)
	eb, want, gen := indexed(t, testConfig(t))
	for name, a := range map[string][]byte{
		"format":   withManifest(t, archive, func(m *engine.Manifest, _ *[]byte) { m.Format = engine.ArchiveFormat + 1 }),
		"schema":   withManifest(t, archive, func(m *engine.Manifest, _ *[]byte) { m.Schema = store.SchemaVersion + 1 }),
		"chunker":  withManifest(t, archive, func(m *engine.Manifest, _ *[]byte) { m.Chunker-- }),
		"model":    withManifest(t, archive, func(m *engine.Manifest, _ *[]byte) { m.Model = "openai/text-embedding-3-small@1536" }),
		"identity": withManifest(t, archive, func(m *engine.Manifest, _ *[]byte) { m.Identity = "0123456789abcdef" }),
	} {
		_, err := importArchive(t, eb, a)
		if !errors.Is(err, engine.ErrArchiveIncompatible) {
			t.Errorf("%s: ImportIndex = %v, want ErrArchiveIncompatible", name, err)
		} else if f := engine.Classify(err); f.Code != engine.CodeArchiveIncompatible || f.Fix == "" {
			t.Errorf("%s: classified %+v", name, f)
		}
	}
	intact(t, eb, want, gen)

	// A lexical-only build cannot use a hybrid index.
	lex := open(t, testConfig(t), eb.Root(), nil)
	if _, err := importArchive(t, lex, archive); !errors.Is(err, engine.ErrArchiveIncompatible) || !strings.Contains(err.Error(), "model fake/hash") {
		t.Errorf("lexical-only import = %v, want ErrArchiveIncompatible naming the model", err)
	}
}

// TestImportRefusesCorrupt: damaged, truncated, hostile and lying
// archives are refused, and the checkout's index is left as it was.
func TestImportRefusesCorrupt(t *testing.T) {
	t.Parallel()
	_, _, archive := exported(t)
	eb, want, gen := indexed(t, testConfig(t))
	ms := members(t, archive)
	rehash := func(m *engine.Manifest, db []byte) {
		sum := sha256.Sum256(db)
		m.Index = engine.ArchiveMember{Size: int64(len(db)), SHA256: hex.EncodeToString(sum[:])}
	}
	flipped := func(db []byte, at int) []byte {
		d := bytes.Clone(db)
		d[at] ^= 0xff
		return d
	}
	cases := map[string][]byte{
		"empty":        nil,
		"not gzip":     []byte("PK\x03\x04 this is a zip"),
		"truncated":    archive[:len(archive)/2],
		"cut tail":     archive[:len(archive)-4],
		"no database":  pack(t, ms[:1]),
		"traversal":    pack(t, []member{ms[0], {name: "../../index.db", body: ms[1].body}}),
		"absolute":     pack(t, []member{{name: "/etc/manifest.json", body: ms[0].body}, ms[1]}),
		"symlink":      pack(t, []member{ms[0], {name: "index.db", typ: tar.TypeSymlink}}),
		"extra member": pack(t, append(append([]member{}, ms...), member{name: "run.sh", body: []byte("rm -rf /")})),
		"reordered":    pack(t, []member{ms[1], ms[0]}),
		"bad manifest": pack(t, []member{{name: "manifest.json", body: []byte("{")}, ms[1]}),
		"flipped byte": withManifest(t, archive, func(_ *engine.Manifest, db *[]byte) { *db = flipped(*db, len(*db)/2) }),
		// A database whose checksum the manifest carries, but damaged:
		// SQLite's own check finds it.
		"damaged database": withManifest(t, archive, func(m *engine.Manifest, db *[]byte) {
			*db = (*db)[:len(*db)*3/5]
			rehash(m, *db)
		}),
		"not a database": withManifest(t, archive, func(m *engine.Manifest, db *[]byte) {
			*db = bytes.Repeat([]byte("x"), 8192)
			rehash(m, *db)
		}),
		// Manifests that lie about the content they describe.
		"lying hash": withManifest(t, archive, func(m *engine.Manifest, _ *[]byte) {
			m.FileList[0].Hash = strings.Repeat("0", 64)
		}),
		"lying path": withManifest(t, archive, func(m *engine.Manifest, _ *[]byte) { m.FileList[0].Path = "../outside.go" }),
		"lying count": withManifest(t, archive, func(m *engine.Manifest, _ *[]byte) {
			m.FileList = m.FileList[1:]
			m.Files--
		}),
		"lying generation": withManifest(t, archive, func(m *engine.Manifest, _ *[]byte) { m.Generation = 7 }),
		"lying size":       withManifest(t, archive, func(m *engine.Manifest, _ *[]byte) { m.Index.Size++ }),
	}
	for name, a := range cases {
		_, err := importArchive(t, eb, a)
		if !errors.Is(err, engine.ErrArchiveCorrupt) {
			t.Errorf("%s: ImportIndex = %v, want ErrArchiveCorrupt", name, err)
		} else if f := engine.Classify(err); f.Code != engine.CodeArchiveCorrupt {
			t.Errorf("%s: classified %+v", name, f)
		}
	}
	intact(t, eb, want, gen)
}

// TestImportFailureKeepsIndex: an import stopped after extracting, or
// just before its swap, leaves the checkout's index usable as it was; a
// later import succeeds.
func TestImportFailureKeepsIndex(t *testing.T) {
	// Not parallel: the fault hook is global to the package.
	_, _, archive := exported(t)
	eb, want, gen := indexed(t, testConfig(t))
	for _, stage := range []string{engine.PhaseExtract, engine.PhaseInstall} {
		crash := errors.New("killed at " + stage)
		restore := engine.SetImportFault(func(s string) error {
			if s == stage {
				return crash
			}
			return nil
		})
		_, err := importArchive(t, eb, archive)
		restore()
		if !errors.Is(err, crash) {
			t.Fatalf("ImportIndex with a fault at %s = %v", stage, err)
		}
		intact(t, eb, want, gen)
	}
	if _, err := importArchive(t, eb, archive); err != nil {
		t.Fatalf("ImportIndex after the failures: %v", err)
	}
	if st := status(t, eb); st.Imported == nil || st.Generation <= gen {
		t.Errorf("after the import: imported %+v, generation %d (was %d)", st.Imported, st.Generation, gen)
	}
}

// TestExportRefuses: no index, an index of another identity, and an index
// built with secrets kept are not exported.
func TestExportRefuses(t *testing.T) {
	t.Parallel()
	a := repo(t)
	cfg := testConfig(t)
	e := open(t, cfg, a, embedtest.New(32))
	if _, err := e.ExportIndex(t.Context(), io.Discard); !errors.Is(err, engine.ErrNotIndexed) {
		t.Errorf("ExportIndex without an index = %v, want ErrNotIndexed", err)
	}
	index(t, e, engine.IndexOptions{})
	if _, err := open(t, cfg, a, nil).ExportIndex(t.Context(), io.Discard); !errors.Is(err, engine.ErrStale) {
		t.Errorf("ExportIndex by a build of another identity = %v, want ErrStale", err)
	}
	cfg.IncludeSecrets = true
	if _, err := open(t, cfg, a, embedtest.New(32)).ExportIndex(t.Context(), io.Discard); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("ExportIndex with secrets kept = %v, want ErrInvalidArgument", err)
	}
}

// TestImportOverDamagedIndex: an index too damaged to take the archive's
// content in a transaction has its file replaced instead.
func TestImportOverDamagedIndex(t *testing.T) {
	t.Parallel()
	_, _, archive := exported(t)
	eb, _, _ := indexed(t, testConfig(t))
	for _, p := range []string{eb.DBPath() + "-wal", eb.DBPath() + "-shm"} {
		os.Remove(p)
	}
	if err := os.WriteFile(eb.DBPath(), bytes.Repeat([]byte("not a database "), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := importArchive(t, eb, archive)
	if err != nil {
		t.Fatalf("ImportIndex over a damaged index: %v", err)
	}
	if !rep.Replaced || rep.Reindexed != 1 || rep.Added != 1 || rep.Removed != 1 {
		t.Errorf("report %+v, want replaced with 1 re-indexed, 1 added, 1 removed", rep)
	}
	if got := hitPaths(find(t, eb, engine.FindRequest{Query: "jitter between attempts", Limit: 1})); len(got) != 1 || got[0] != "client/retry.go" {
		t.Errorf("find after the import = %v, want client/retry.go", got)
	}
}

// TestImportCanceled: an import canceled while it reads the archive
// stops with the cancellation (not as a damaged archive) and leaves the
// index as it was.
func TestImportCanceled(t *testing.T) {
	t.Parallel()
	_, _, archive := exported(t)
	eb, want, gen := indexed(t, testConfig(t))
	ctx, cancel := context.WithCancel(t.Context())
	r := &cancelAfter{r: bytes.NewReader(archive), n: len(archive) / 2, cancel: cancel}
	_, err := eb.ImportIndex(ctx, r, engine.ImportIndexOptions{Name: "x"})
	if !errors.Is(err, context.Canceled) || errors.Is(err, engine.ErrArchiveCorrupt) {
		t.Fatalf("canceled ImportIndex = %v, want context.Canceled", err)
	}
	intact(t, eb, want, gen)
}

// cancelAfter reads r and calls cancel once n bytes were read.
type cancelAfter struct {
	r      io.Reader
	n      int
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p[:min(len(p), 4096)])
	if c.n -= n; c.n <= 0 {
		c.cancel()
	}
	return n, err
}
