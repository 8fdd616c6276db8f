// Benchmarks for the chunker.
//
// Per-language throughput on real files (Go: $(go env GOROOT)/src/net/http/*.go;
// the others: testdata/lang):
//
//	go test -run='^$' -bench=BenchmarkChunk -benchmem -count=10 ./internal/chunk > old.txt
//
// The whole Go source tree ($(go env GOROOT)/src, about 90 MB of .go files),
// on one goroutine; cpu-s/op is the CPU time it takes (ns/op also counts
// waiting when the machine is busy):
//
//	CTX_BENCH_REPO=goroot go test -run='^$' -bench=BenchmarkChunkGoroot -benchtime=1x ./internal/chunk
//
// or on any other tree of source files:
//
//	CTX_BENCH_REPO=/path/to/repo go test -run='^$' -bench=BenchmarkChunkGoroot -benchtime=1x ./internal/chunk
package chunk

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/discover"
)

type benchFile struct {
	path, lang string
	src        []byte
}

func BenchmarkChunk(b *testing.B) {
	for _, lang := range allLangs {
		var files []benchFile
		if lang == discover.LangGo {
			paths, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
			for _, p := range paths {
				if src, err := os.ReadFile(p); err == nil {
					files = append(files, benchFile{p, lang, src})
				}
			}
		} else if name, src := readSampleIf(lang); name != "" {
			files = append(files, benchFile{name, lang, src})
		}
		if len(files) == 0 {
			continue
		}
		b.Run(lang, func(b *testing.B) { benchFiles(b, files) })
	}
}

// benchFiles chunks files once per iteration and reports bytes and chunks.
func benchFiles(b *testing.B, files []benchFile) {
	var size int64
	for _, f := range files {
		size += int64(len(f.src))
	}
	c := New(nil)
	ctx := context.Background()
	b.SetBytes(size)
	b.ReportAllocs()
	chunks := 0
	cpu0 := cpuTime()
	for b.Loop() {
		chunks = 0
		for _, f := range files {
			cs, err := c.Chunk(ctx, f.path, f.lang, f.src)
			if err != nil {
				b.Fatal(err)
			}
			chunks += len(cs)
		}
	}
	if cpu := cpuTime() - cpu0; cpu > 0 {
		// CPU time, unlike ns/op, does not count waiting for a busy
		// machine; it includes the garbage collector's work.
		b.ReportMetric((cpu / time.Duration(b.N)).Seconds(), "cpu-s/op")
		b.ReportMetric(float64(size)/1e6/(cpu.Seconds()/float64(b.N)), "cpu-MB/s")
	}
	b.ReportMetric(float64(chunks), "chunks/op")
	b.ReportMetric(float64(len(files)), "files/op")
}

// BenchmarkChunkGoroot chunks every file of a whole tree: the Go source
// tree when CTX_BENCH_REPO is "goroot", else the tree CTX_BENCH_REPO names.
// It runs on one goroutine, so ns/op is the CPU time of chunking the tree
// (the files are read before the timer starts).
func BenchmarkChunkGoroot(b *testing.B) {
	root := os.Getenv("CTX_BENCH_REPO")
	switch root {
	case "":
		b.Skip("set CTX_BENCH_REPO=goroot (or a directory) to chunk a whole tree")
	case "goroot":
		root = filepath.Join(runtime.GOROOT(), "src")
	}
	var files []benchFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		lang := discover.Language(filepath.ToSlash(p))
		if _, ok := specs[lang]; !ok && lang != discover.LangMarkdown {
			return nil
		}
		if src, err := os.ReadFile(p); err == nil {
			files = append(files, benchFile{p, lang, src})
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		b.Fatalf("no source files under %s: %v", root, err)
	}
	benchFiles(b, files)
}
