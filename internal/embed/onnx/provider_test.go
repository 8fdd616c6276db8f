//go:build onnx

package onnx

// These tests run a model they write themselves (graph_test.go) with a
// real ONNX Runtime library, named by CTX_ONNXRUNTIME_LIB; without it they
// skip. scripts/test-onnx.sh installs one from npm and runs them:
//
//	CTX_ONNXRUNTIME_LIB=/path/to/libonnxruntime.so.1 go test -tags onnx ./internal/embed/onnx/

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed"
)

const tolerance = 1e-5

// library returns the ONNX Runtime library of the tests, or skips.
func library(t *testing.T) string {
	t.Helper()
	lib := os.Getenv("CTX_ONNXRUNTIME_LIB")
	if lib == "" {
		t.Skip("CTX_ONNXRUNTIME_LIB is unset: set it to an ONNX Runtime shared library (1.24 or newer), or run scripts/test-onnx.sh")
	}
	return lib
}

// newTestProvider writes m to a model directory and opens a provider on
// it with opts (ModelDir and LibraryPath filled in).
func newTestProvider(t *testing.T, m *testModel, opts Options) *Provider {
	t.Helper()
	opts.LibraryPath = library(t)
	opts.ModelDir = writeModelDir(t, m.onnx(), nil)
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p
}

// reference recomputes in Go the embedding of text: the tokens the
// provider feeds, run through m one by one, pooled and normalised.
func reference(t *testing.T, p *Provider, m *testModel, text string) []float32 {
	t.Helper()
	ids := p.enc.encode(nil, text, p.maxTokens)
	v := make([]float32, m.hidden)
	for j, id := range ids {
		if p.cls && j > 0 {
			break
		}
		for k, x := range m.tokenVector(id) {
			v[k] += x
		}
	}
	embed.Normalize(v)
	return v
}

// near compares float32s to within tolerance.
var near = cmp.Comparer(func(a, b float32) bool { return math.Abs(float64(a)-float64(b)) <= tolerance })

func embedOne(t *testing.T, p *Provider, text string, kind embed.InputKind) []float32 {
	t.Helper()
	vs, err := p.Embed(t.Context(), []string{text}, kind)
	if err != nil {
		t.Fatal(err)
	}
	return vs[0]
}

var texts = []string{
	"func parseConfig(file) error",
	"load the json config file",
	"return nil, err",
	"read",
	"",
	"zebra",
}

func TestEmbedMatchesReference(t *testing.T) {
	t.Parallel()
	for _, pooling := range []string{MeanPooling, CLSPooling} {
		t.Run(pooling, func(t *testing.T) {
			t.Parallel()
			m := newTestModel(1, 16)
			p := newTestProvider(t, m, Options{Pooling: pooling})
			got, err := p.Embed(t.Context(), texts, embed.Document)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(texts) {
				t.Fatalf("got %d vectors for %d texts", len(got), len(texts))
			}
			for i, text := range texts {
				if len(got[i]) != 16 {
					t.Errorf("%q: %d dimensions, want 16", text, len(got[i]))
				}
				if n := math.Sqrt(float64(embed.Dot(got[i], got[i]))); math.Abs(n-1) > tolerance {
					t.Errorf("%q: length %v, want 1", text, n)
				}
				if diff := cmp.Diff(reference(t, p, m, text), got[i], near); diff != "" {
					t.Errorf("%q (-Go reference +onnx):\n%s", text, diff)
				}
			}
		})
	}
}

func TestModel(t *testing.T) {
	t.Parallel()
	m := newTestModel(2, 12)
	lib := library(t)
	dir := writeModelDir(t, m.onnx(), nil)
	p, err := New(Options{ModelDir: dir, LibraryPath: lib})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	want, err := readModelDir(dir) // its identity is tested in modeldir_test.go
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Model(); got != (embed.Model{Provider: "onnx", Name: want.name, Dims: 12}) {
		t.Errorf("Model() = %+v, want onnx, %s, 12", got, want.name)
	}
	if !strings.HasPrefix(p.Model().Name, "toy-bert@") || len(p.Model().Name) != len("toy-bert@")+12 {
		t.Errorf("Model().Name = %q, want toy-bert@<12 hex digits>", p.Model().Name)
	}

	// Other weights, another identity.
	q := newTestProvider(t, newTestModel(3, 12), Options{})
	if q.Model() == p.Model() {
		t.Errorf("two models share the identity %v", p.Model())
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	p := newTestProvider(t, newTestModel(1, 16), Options{})
	a, err := p.Embed(t.Context(), texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Embed(t.Context(), texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("second call differs (-first +second):\n%s", diff)
	}
}

func TestPaddingDoesNotChangeVectors(t *testing.T) {
	t.Parallel()
	m := newTestModel(4, 16)
	short, long := "read config", strings.Repeat("parse the json config file ", 20)
	for _, batchSize := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("batch=%d", batchSize), func(t *testing.T) {
			t.Parallel()
			p := newTestProvider(t, m, Options{BatchSize: batchSize})
			alone := embedOne(t, p, short, embed.Document)
			mixed, err := p.Embed(t.Context(), []string{long, short, long}, embed.Document)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(alone, mixed[1], near); diff != "" {
				t.Errorf("alone vs batched with longer texts (-alone +batched):\n%s", diff)
			}
			if diff := cmp.Diff(mixed[0], mixed[2], near); diff != "" {
				t.Errorf("the same text twice in a batch (-first +second):\n%s", diff)
			}
		})
	}
}

func TestPrefixes(t *testing.T) {
	t.Parallel()
	m := newTestModel(5, 16)
	const prefix = "Represent this query for searching code: "
	p := newTestProvider(t, m, Options{QueryPrefix: prefix})
	q := embedOne(t, p, "parse config", embed.Query)
	if diff := cmp.Diff(embedOne(t, p, prefix+"parse config", embed.Document), q, near); diff != "" {
		t.Errorf("query vs document with the prefix written out (-document +query):\n%s", diff)
	}
	if diff := cmp.Diff(embedOne(t, p, "parse config", embed.Document), q, near); diff == "" {
		t.Error("the query prefix does not change the vector")
	}

	// config_sentence_transformers.json supplies prompts that Options do
	// not override.
	dir := writeModelDir(t, m.onnx(), map[string][]byte{
		"config_sentence_transformers.json": []byte(`{"prompts": {"query": "` + prefix + `", "document": ""}}`),
	})
	r, err := New(Options{ModelDir: dir, LibraryPath: library(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if diff := cmp.Diff(q, embedOne(t, r, "parse config", embed.Query), near); diff != "" {
		t.Errorf("prompt from config_sentence_transformers.json (-Options.QueryPrefix +config):\n%s", diff)
	}
}

func TestMaxTokens(t *testing.T) {
	t.Parallel()
	m := newTestModel(6, 16)
	p := newTestProvider(t, m, Options{MaxTokens: 4})
	// [CLS] parse config [SEP]: the rest is cut.
	if diff := cmp.Diff(embedOne(t, p, "parse config", embed.Document), embedOne(t, p, "parse config load the file", embed.Document), near); diff != "" {
		t.Errorf("text cut to 4 tokens (-two words +five words):\n%s", diff)
	}

	// config.json's max_position_embeddings caps MaxTokens.
	dir := writeModelDir(t, m.onnx(), map[string][]byte{"config.json": []byte(`{"max_position_embeddings": 4}`)})
	q, err := New(Options{ModelDir: dir, LibraryPath: library(t), MaxTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if q.maxTokens != 4 {
		t.Errorf("MaxTokens 100 with max_position_embeddings 4: %d tokens, want 4", q.maxTokens)
	}
}

func TestGraphVariants(t *testing.T) {
	t.Parallel()
	// token_embeddings is what optimum names the token vectors of a
	// sentence-transformers export; a symbolic hidden size is learned by
	// a first run; token_type_ids is optional.
	m := newTestModel(7, 10)
	m.output, m.symbolic, m.noTypeIDs = "token_embeddings", true, true
	p := newTestProvider(t, m, Options{})
	if d := p.Model().Dims; d != 10 {
		t.Errorf("Dims = %d, want 10", d)
	}
	if diff := cmp.Diff(reference(t, p, m, texts[0]), embedOne(t, p, texts[0], embed.Document), near); diff != "" {
		t.Errorf("(-Go reference +onnx):\n%s", diff)
	}
}

func TestConcurrent(t *testing.T) {
	t.Parallel()
	p := newTestProvider(t, newTestModel(8, 16), Options{BatchSize: 2})
	want, err := p.Embed(t.Context(), texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			got, err := p.Embed(t.Context(), texts, embed.Document)
			if err != nil {
				t.Error(err)
				return
			}
			if diff := cmp.Diff(want, got, near); diff != "" {
				t.Errorf("concurrent call (-serial +concurrent):\n%s", diff)
			}
		})
	}
	wg.Wait()
}

func TestCanceled(t *testing.T) {
	t.Parallel()
	p := newTestProvider(t, newTestModel(9, 16), Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.Embed(ctx, texts, embed.Document); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with a canceled context: %v, want context.Canceled", err)
	}
}

func TestClose(t *testing.T) {
	t.Parallel()
	m := newTestModel(10, 16)
	p, err := New(Options{ModelDir: writeModelDir(t, m.onnx(), nil), LibraryPath: library(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := p.Embed(t.Context(), texts, embed.Document); err == nil {
		t.Error("Embed after Close: no error")
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	m := newTestModel(11, 8)
	dir := writeModelDir(t, m.onnx(), nil)
	tests := []struct {
		name     string
		opts     Options
		notExist bool
		want     string // in the message
	}{
		{"no model dir", Options{LibraryPath: "libonnxruntime.so"}, false, "Options.ModelDir"},
		{"no library", Options{ModelDir: dir}, false, "Options.LibraryPath"},
		{"missing model dir", Options{ModelDir: filepath.Join(t.TempDir(), "nope"), LibraryPath: "libonnxruntime.so"}, true, "nope"},
		{"missing library", Options{ModelDir: dir, LibraryPath: filepath.Join(t.TempDir(), "libonnxruntime.so.1")}, true, "libonnxruntime.so.1"},
		{"bad pooling", Options{ModelDir: dir, LibraryPath: "x", Pooling: "max"}, false, `"max"`},
		{"negative batch", Options{ModelDir: dir, LibraryPath: "x", BatchSize: -1}, false, "BatchSize"},
		{"no room for text", Options{ModelDir: dir, LibraryPath: "x", MaxTokens: 2}, false, "MaxTokens 2"},
		{"unsupported pooling config", Options{ModelDir: writeModelDir(t, m.onnx(), map[string][]byte{
			"1_Pooling/config.json": []byte(`{"pooling_mode_max_tokens": true}`),
		}), LibraryPath: "x"}, false, "Options.Pooling"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := New(tt.opts)
			if err == nil {
				p.Close()
				t.Fatal("no error")
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.notExist {
				t.Errorf("errors.Is(%v, fs.ErrNotExist) = %v, want %v", err, got, tt.notExist)
			}
			if !strings.HasPrefix(err.Error(), "onnx: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not start with onnx: and name %s", err, tt.want)
			}
		})
	}
}

func TestUnsupportedGraphs(t *testing.T) {
	t.Parallel()
	lib := library(t)
	extra := newTestModel(12, 8)
	extra.extraInput = "position_ids"
	tests := []struct {
		name  string
		graph []byte
		want  string
	}{
		{"unknown input", extra.onnx(), `input "position_ids"`},
		{"not onnx", []byte("not a graph"), "loading"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(Options{ModelDir: writeModelDir(t, tt.graph, nil), LibraryPath: lib})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v, want an error naming %s", err, tt.want)
			}
		})
	}
}
