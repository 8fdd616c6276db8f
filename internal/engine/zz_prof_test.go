package engine

import (
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/internal/config"
)

func TestZZProf(t *testing.T) {
	if os.Getenv("ZZPROF") == "" {
		t.Skip()
	}
	cfg := config.Default()
	cfg.CacheDir = "/tmp/gocache-prof"
	e, err := Open(cfg, "/usr/local/go/src", nil)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create("/tmp/find.prof")
	pprof.StartCPUProfile(f)
	defer pprof.StopCPUProfile()
	for _, q := range []string{"parse a URL query string into values", "ReadMIMEHeader", "how does the HTTP server close idle keep-alive connections", "sync.Pool victim cache"} {
		for i := 0; i < 5; i++ {
			s := time.Now()
			r, err := e.Find(t.Context(), FindRequest{Query: q, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if i == 4 {
				t.Logf("%v %.1fms %q", time.Since(s), r.Stats.SearchMS, q)
			}
		}
	}
}
