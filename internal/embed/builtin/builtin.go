// Package builtin serves ctx's own static code-embedding model, compiled
// into the executable (go:embed), so semantic search works with no
// download, service or key: the default embedding provider, "builtin".
//
// The model (model.ctxm, the binary format of [static.LoadBinary]) is an
// embedding bag over [static.CodeTokenizer] ids, 256 dimensions whose
// first 64 and 128 are themselves usable embeddings (Matryoshka), int8
// with one scale per row. It was trained by cmd/ctx-train on pairs mined
// by cmd/ctx-mine from code the build machines install from package
// registries (the Go toolchain and modules, Debian source packages, npm),
// never from a benchmark repository; MODEL.md beside this file records
// the recipe, data and held-out scores.
//
// Loading uses the embedded bytes in place: no file is read, no table is
// built and the term table is not scanned (a test does that), so a
// one-query process pays microseconds for it and touches only the pages
// its query's terms need.
package builtin

import (
	_ "embed"
	"sync"

	"github.com/ctx-dev/ctx/internal/embed/static"
)

//go:embed model.ctxm
var modelFile []byte

// ProviderName is the embedding provider name of the built-in model, as
// configured (CTX_EMBED_PROVIDER) and as recorded in an index identity.
const ProviderName = "builtin"

var load = sync.OnceValues(loadModel)

// loadModel skips the term table's scan: TestModelIntact runs it.
func loadModel() (*static.Model, error) { return static.LoadBinaryTrusted(modelFile) }

// Model returns the built-in model, loaded once per process. An error
// means the executable's embedded model is malformed, a build defect.
func Model() (*static.Model, error) { return load() }

// New returns the built-in model as an embedding provider; its identity
// is {Provider: "builtin", Name: "ctx-code@<checksum>", Dims: 256}.
func New() (*static.Provider, error) {
	m, err := Model()
	if err != nil {
		return nil, err
	}
	return static.New(m, ""), nil
}
