package secrets

// Detector throughput on ordinary code (the Go files of net/http in the
// toolchain's own source tree) and on a tree named by CTX_BENCH_REPO:
//
//	go test -run='^$' -bench=Find -benchmem ./internal/secrets
//	CTX_BENCH_REPO=$(go env GOROOT)/src go test -run='^$' -bench=FindRepo ./internal/secrets

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

type benchFile struct {
	path string
	src  []byte
}

func loadTree(b *testing.B, root string, max int) []benchFile {
	b.Helper()
	var files []benchFile
	total := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || total >= max {
			return err
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() || info.Size() > 1<<20 {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		files = append(files, benchFile{p, src})
		total += len(src)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if total == 0 {
		b.Skipf("no files under %s", root)
	}
	return files
}

func benchFind(b *testing.B, files []benchFile) {
	total := 0
	for _, f := range files {
		total += len(f.src)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			Find(f.path, f.src)
		}
	}
	b.ReportMetric(float64(len(files)), "files/op")
}

func BenchmarkFind(b *testing.B) {
	benchFind(b, loadTree(b, filepath.Join(runtime.GOROOT(), "src", "net", "http"), 8<<20))
}

func BenchmarkFindRepo(b *testing.B) {
	root := os.Getenv("CTX_BENCH_REPO")
	if root == "" {
		b.Skip("set CTX_BENCH_REPO to a source tree")
	}
	benchFind(b, loadTree(b, root, 1<<30))
}
