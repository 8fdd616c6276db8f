package chunk

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ctx-dev/ctx/internal/discover"
)

// dumpFile makes TestDump print the chunks of one file, for looking at
// what the chunker does with real code:
//
//	go test -run=TestDump -v -chunk.dump=path/to/file.py ./internal/chunk
var dumpFile = flag.String("chunk.dump", "", "print the chunks of this file (TestDump)")

func TestDump(t *testing.T) {
	if *dumpFile == "" {
		t.Skip("no -chunk.dump file")
	}
	src, err := os.ReadFile(*dumpFile)
	if err != nil {
		t.Fatal(err)
	}
	lang := discover.Language(filepath.ToSlash(*dumpFile))
	cs := chunkOK(t, New(nil), lang, src)
	fmt.Printf("%s (%s): %d chunks\n%s", *dumpFile, lang, len(cs), dumpChunks(cs))
}

// TestTreeInvariants checks the invariants on every file of a whole tree,
// the one BenchmarkChunkGoroot reads:
//
//	CTX_BENCH_REPO=goroot go test -run=TestTreeInvariants ./internal/chunk
func TestTreeInvariants(t *testing.T) {
	root := os.Getenv("CTX_BENCH_REPO")
	switch root {
	case "":
		t.Skip("set CTX_BENCH_REPO=goroot (or a directory) to check a whole tree")
	case "goroot":
		root = filepath.Join(runtime.GOROOT(), "src")
	}
	c := New(nil)
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		lang := discover.Language(filepath.ToSlash(p))
		if lang == discover.LangText {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		cs, err := c.Chunk(t.Context(), p, lang, src)
		if err != nil {
			return err
		}
		if err := invariantErr(src, cs); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files under %s", files, root)
}
