package builtin

// Inference speed of the built-in model on real code: the chunks of the Go
// standard library's net/http package, as the index embeds them
// (index.EmbedText: a path line, then the code).
//
//	go test -run='^$' -bench=. -benchmem -cpu=1 ./internal/embed/builtin
//
// "chunks" reports chunks/s on one core; "query" embeds one
// natural-language query per op, so ns/op is the query latency.

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ctx-dev/ctx/internal/chunk"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/index"
)

func benchChunks(b *testing.B) []string {
	b.Helper()
	dir := filepath.Join(runtime.GOROOT(), "src", "net", "http")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		b.Skipf("no Go sources under %s: %v", dir, err)
	}
	c := chunk.New(nil)
	var texts []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		rel := "net/http/" + filepath.Base(f)
		chunks, err := c.Chunk(context.Background(), rel, "go", src)
		if err != nil {
			b.Fatal(err)
		}
		for _, ch := range chunks {
			texts = append(texts, index.EmbedText(rel, ch, string(src[ch.StartByte:ch.EndByte])))
		}
	}
	return texts
}

func BenchmarkEmbed(b *testing.B) {
	p, err := New()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("chunks", func(b *testing.B) {
		texts := benchChunks(b)
		var bytes int
		for _, t := range texts {
			bytes += len(t)
		}
		b.SetBytes(int64(bytes / len(texts)))
		b.ResetTimer()
		n := 0
		for i := 0; i < b.N; i++ {
			t := texts[i%len(texts)]
			if _, err := p.Embed(ctx, []string{t}, embed.Document); err != nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "chunks/s")
	})
	b.Run("query", func(b *testing.B) {
		q := "how does the server close idle keep-alive connections"
		for i := 0; i < b.N; i++ {
			if _, err := p.Embed(ctx, []string{q}, embed.Query); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLoad measures what a process pays for the model: the in-place
// load of the embedded bytes (run once per process in real use; here the
// once is bypassed).
func BenchmarkLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := loadModel(); err != nil {
			b.Fatal(err)
		}
	}
}
