package builtin

import (
	"context"
	"math"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/static"
)

func TestModelIntact(t *testing.T) {
	t.Parallel()
	m, err := Model()
	if err != nil {
		t.Fatal(err)
	}
	// The header's checksum is trusted at load time; here it is checked
	// against the weights actually embedded.
	if err := m.Verify(); err != nil {
		t.Fatal(err)
	}
	// Model loads without scanning the term table; the full check runs
	// here instead.
	if _, err := static.LoadBinary(modelFile); err != nil {
		t.Fatal(err)
	}
	if m.Dims() != 256 {
		t.Errorf("Dims() = %d, want 256", m.Dims())
	}
	// MODEL.md's recipe trains with --tf sqrt; a model that lost the
	// scaling would embed unlike its training.
	if m.TF() != static.TFSqrt {
		t.Errorf("TF() = %v, want sqrt (MODEL.md)", m.TF())
	}
	if len(modelFile) > 32<<20 {
		t.Errorf("embedded model is %d bytes, over the 32 MiB budget", len(modelFile))
	}
}

func TestProvider(t *testing.T) {
	t.Parallel()
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	id := p.Model()
	if id.Provider != ProviderName || id.Dims != 256 {
		t.Errorf("identity %v, want provider %q and 256 dims", id, ProviderName)
	}
	vs, err := p.Embed(context.Background(), []string{
		"read the HTTP response body",
		"func readBody(resp *http.Response) ([]byte, error) { return io.ReadAll(resp.Body) }",
		"func parseDuration(s string) (time.Duration, error)",
	}, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-4 {
			t.Errorf("vector %d has squared norm %g, want 1", i, n)
		}
	}
	// The trained model puts a query nearer the code it describes than
	// unrelated code.
	if near, far := embed.Dot(vs[0], vs[1]), embed.Dot(vs[0], vs[2]); near <= far {
		t.Errorf("query·matching code %.3f ≤ query·unrelated code %.3f", near, far)
	}
}
