package index

import (
	"github.com/ctx-dev/ctx/internal/secrets"
	"github.com/ctx-dev/ctx/internal/store"
)

// maskSecrets masks the secrets in a file's content in place, before
// anything is derived from it (chunks, summaries, BM25 terms, vectors,
// names), and returns the masked spans for the store. Masking keeps every
// byte offset and line number, so chunk ranges still address the file on
// disk, where the engine masks the same spans again when it shows code.
// With keep ([discover.Options.IncludeSecrets], CTX_INCLUDE_SECRETS) the
// content is left as it is.
func maskSecrets(keep bool, path string, src []byte) []store.Secret {
	if keep {
		return nil
	}
	found := secrets.Redact(path, src)
	if len(found) == 0 {
		return nil
	}
	out := make([]store.Secret, len(found))
	for i, f := range found {
		out[i] = store.Secret{Rule: f.Rule, Line: f.Line, StartByte: f.Start, EndByte: f.End}
	}
	return out
}
