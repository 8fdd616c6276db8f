package store_test

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/ctx-dev/ctx/internal/store"
)

var updateBackcompat = flag.Bool("update-backcompat", false,
	"write testdata/backcompat/schema<SchemaVersion>.db from the current code")

// backcompatKey is the embedding key of the back-compat fixture's one vector.
var backcompatKey = sha256.Sum256([]byte("backcompat/model@4\x00func FindNeedle"))

// backcompatUpdates is the content of testdata/backcompat/schema*.db. Keep
// it unchanged: every committed database holds exactly this.
func backcompatUpdates() []store.Update {
	needle := store.Chunk{
		Kind: "function", Symbol: "FindNeedle", Name: "FindNeedle", Summary: "func FindNeedle(haystack []string) int",
		StartLine: 3, EndLine: 10, StartByte: 20, EndByte: 180, EmbedKey: backcompatKey[:], Sketch: []byte("0123456789abcdef0123456789abcdef"),
		Terms: [store.NumColumns]string{"findneedle find needle", "pkg needle go",
			"findneedle returns the index of needle", "func findneedle find needle haystack string int"},
	}
	helper := store.Chunk{
		Kind: "function", Symbol: "helper", Name: "helper", Summary: "func helper()",
		StartLine: 12, EndLine: 14, StartByte: 182, EndByte: 220,
		Terms: [store.NumColumns]string{store.ColName: "helper", store.ColPath: "pkg needle go", store.ColBody: "func helper"},
	}
	readme := store.Chunk{
		Kind: "section", Symbol: "Usage", Name: "Usage", Breadcrumb: "README", Summary: "## Usage",
		StartLine: 1, EndLine: 5, StartByte: 0, EndByte: 64,
		Terms: [store.NumColumns]string{store.ColName: "usage", store.ColPath: "readme md", store.ColBody: "usage call findneedle with a haystack"},
	}
	return []store.Update{
		{
			File:    store.File{Path: "pkg/needle.go", Language: "go", Size: 220, ModTime: 1700000000000000000, Hash: hashOf("needle"), Lines: 14},
			Chunks:  []store.Chunk{needle, helper},
			Vectors: map[string][]byte{string(backcompatKey[:]): {0, 0, 128, 63, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		},
		{
			File:   store.File{Path: "README.md", Language: "markdown", Size: 64, ModTime: 1700000000000000000, Hash: hashOf("readme"), Lines: 5},
			Chunks: []store.Chunk{readme},
		},
	}
}

func hashOf(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:]
}

// TestGenerateBackcompat writes the database for the current SchemaVersion.
// Run it once when SchemaVersion changes and commit the file:
//
//	go test ./internal/store -run=TestGenerateBackcompat -update-backcompat
func TestGenerateBackcompat(t *testing.T) {
	if !*updateBackcompat {
		t.Skip("run with -update-backcompat to write testdata/backcompat")
	}
	ctx := t.Context()
	tmp := filepath.Join(t.TempDir(), "index.db")
	db, err := store.Open(ctx, tmp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Apply(ctx, backcompatUpdates()); err != nil {
		t.Fatal(err)
	}
	if err := db.SetMeta(ctx, map[string]string{store.MetaRoot: "/src/backcompat", store.MetaIdentity: "backcompat"}); err != nil {
		t.Fatal(err)
	}
	// Closing the last connection checkpoints the WAL into the file.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp + "-wal"); err == nil {
		t.Fatalf("%s-wal left after Close", tmp)
	}
	dst := filepath.Join("testdata", "backcompat", fmt.Sprintf("schema%d.db", store.SchemaVersion))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, tmp, dst)
	t.Logf("wrote %s", dst)
}

// TestBackcompat opens a copy of each committed database, from every schema
// version, and checks that it migrates and still answers queries.
func TestBackcompat(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "backcompat", "schema*.db"))
	if err != nil {
		t.Fatal(err)
	}
	versions := map[int]string{}
	for _, f := range files {
		m := regexp.MustCompile(`^schema(\d+)\.db$`).FindStringSubmatch(filepath.Base(f))
		if m == nil {
			t.Fatalf("unexpected file %s", f)
		}
		v, _ := strconv.Atoi(m[1])
		versions[v] = f
	}
	for v := store.MinReadableSchema; v <= store.SchemaVersion; v++ {
		if versions[v] == "" {
			t.Errorf("no testdata/backcompat/schema%d.db: run TestGenerateBackcompat with -update-backcompat and commit the file", v)
		}
	}

	for v, src := range versions {
		if v < store.MinReadableSchema {
			continue
		}
		t.Run(filepath.Base(src), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			// Opening writes (migration, WAL): never touch the committed file.
			path := filepath.Join(t.TempDir(), "index.db")
			copyFile(t, src, path)
			db := openAt(t, path, &store.Options{MustExist: true})

			if got, err := db.Meta(ctx, "schema_version"); err != nil || got != strconv.Itoa(store.SchemaVersion) {
				t.Errorf("schema_version after opening = %q, %v; want %d", got, err, store.SchemaVersion)
			}
			if got, err := db.Meta(ctx, store.MetaRoot); err != nil || got != "/src/backcompat" {
				t.Errorf("Meta(root) = %q, %v; want /src/backcompat", got, err)
			}
			if v < 10 {
				// Before schema 10 the BM25 index had another format
				// (before 6 it was FTS5's); the migration leaves an empty
				// one (the engine rebuilds such an index: its identity
				// names the schema) until the files are written again.
				if got := search(t, db, "needle", weights); got != nil {
					t.Errorf("search needle after migrating = %q, want none", got)
				}
				apply(t, db, backcompatUpdates()...)
			}
			if got := search(t, db, "needle", weights); !slices.Equal(got, []string{"FindNeedle", "helper"}) {
				t.Errorf("search needle = %q, want [FindNeedle helper]", got)
			}
			if got := search(t, db, "haystack usage", weights); len(got) != 2 || got[0] != "Usage" {
				t.Errorf("search haystack OR usage = %q, want Usage first, then FindNeedle", got)
			}
			df, err := db.DocFreqs(ctx, []string{"needle", "findneedle", "usage"})
			if err != nil {
				t.Fatal(err)
			}
			if df["needle"] != 2 || df["findneedle"] != 2 || df["usage"] != 1 {
				t.Errorf("DocFreqs = %v, want needle 2, findneedle 2, usage 1", df)
			}
			rows, err := db.FileChunks(ctx, "pkg/needle.go")
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 2 || rows[0].Name != "FindNeedle" || rows[0].Symbol != "FindNeedle" || rows[0].Kind != "function" || rows[0].StartLine != 3 || !slices.Equal(rows[0].EmbedKey, backcompatKey[:]) {
				t.Errorf("FileChunks(pkg/needle.go) = %+v", rows)
			}
			c, err := db.Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if sc, err := db.Secrets(ctx, 10); err != nil || sc.Total != 0 {
				t.Errorf("Secrets after migrating = %+v, %v; want none", sc, err)
			}
			if c.Files != 2 || c.Chunks != 3 || c.Vectors != 1 {
				t.Errorf("Count = %+v, want 2 files, 3 chunks, 1 vector", c)
			}
			// The migrated index takes new writes.
			apply(t, db, backcompatUpdates()[0], deletion("README.md"))
			if got := search(t, db, "usage", weights); got != nil {
				t.Errorf("search usage after deleting README.md = %q, want none", got)
			}
		})
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
