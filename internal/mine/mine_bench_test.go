package mine

// Mining $(go env GOROOT)/src is opt-in, as it reads the developer's
// machine:
//
//	CTX_BENCH_GOROOT=$(go env GOROOT) go test -run='^$' -bench=BenchmarkMineGOROOT -benchtime=1x ./internal/mine

import (
	"os"
	"testing"
)

func BenchmarkMineGOROOT(b *testing.B) {
	goroot := os.Getenv("CTX_BENCH_GOROOT")
	if goroot == "" {
		b.Skip("CTX_BENCH_GOROOT not set")
	}
	roots, err := GoStdRoots(goroot)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var m *Manifest
	for b.Loop() {
		m, err = Mine(b.Context(), Options{Roots: roots, Out: b.TempDir(), Seed: 1, Heldout: 0.05})
		if err != nil {
			b.Fatal(err)
		}
	}
	files := 0
	for _, s := range m.Sources {
		files += s.Files
	}
	b.ReportMetric(float64(m.Pairs), "pairs/op")
	b.ReportMetric(float64(files), "files/op")
}
