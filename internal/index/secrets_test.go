package index

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
	"github.com/ctx-dev/ctx/internal/secrets/secretstest"
)

// recordingEmbedder keeps every text it embeds.
type recordingEmbedder struct {
	*embedtest.Fake
	mu    sync.Mutex // guards texts
	texts []string
}

func (r *recordingEmbedder) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	r.mu.Lock()
	r.texts = append(r.texts, texts...)
	r.mu.Unlock()
	return r.Fake.Embed(ctx, texts, kind)
}

// secretTerms are the BM25 terms of a secret that could find it: the
// analyzed terms of eight characters or more.
func secretTerms(p secretstest.Planted) []string {
	var out []string
	for _, term := range analyze.TermList(secretstest.Secret(p.Kind, p.Value)) {
		if len(term) >= 8 {
			out = append(out, term)
		}
	}
	return out
}

// TestRunMasksSecrets indexes the planted-secrets corpus: no secret
// reaches the embedder, a BM25 term or a chunk summary; the masked spans
// are recorded per file; the code beside them is still found. With
// IncludeSecrets nothing is masked.
func TestRunMasksSecrets(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	planted, err := secretstest.Write(root)
	if err != nil {
		t.Fatal(err)
	}
	emb := &recordingEmbedder{Fake: embedtest.New(8)}
	db := openDB(t)
	run(t, db, root, &Options{Embedder: emb})

	if leaks := secretstest.Leaks([]byte(strings.Join(emb.texts, "\n")), planted); len(leaks) > 0 {
		t.Errorf("embedded texts hold %d planted secrets, first %s in %s", len(leaks), leaks[0].Kind, leaks[0].Path)
	}
	var summaries strings.Builder
	for _, p := range storedPaths(t, db) {
		rows, err := db.FileChunks(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			summaries.WriteString(r.Summary + "\n" + r.Symbol + "\n")
		}
	}
	if leaks := secretstest.Leaks([]byte(summaries.String()), planted); len(leaks) > 0 {
		t.Errorf("summaries hold %d planted secrets, first %s in %s", len(leaks), leaks[0].Kind, leaks[0].Path)
	}
	for _, p := range planted {
		for _, term := range secretTerms(p) {
			if ids, err := db.TermChunks(t.Context(), term, 0); err != nil || len(ids) > 0 {
				t.Errorf("BM25 term %q of the %s in %s is indexed (%v)", term, p.Kind, p.Path, err)
			}
		}
	}

	sc, err := db.Secrets(t.Context(), 100)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, p := range planted {
		files[p.Path] = true
	}
	if sc.Files != len(files) || sc.Total < len(planted)-2 {
		t.Errorf("recorded %d secrets in %d files, want about %d in %d", sc.Total, sc.Files, len(planted), len(files))
	}
	for _, f := range sc.List {
		if !files[f.Path] {
			t.Errorf("secrets recorded in %s, which has none planted: %+v", f.Path, f)
		}
	}
	if got := found(t, db, "chargeCustomer"); !slices.Contains(got, "payments/charge.js") {
		t.Errorf("chargeCustomer found in %v, want payments/charge.js", got)
	}

	// Opting out indexes the content as it is.
	raw := openDB(t)
	run(t, raw, root, &Options{Discover: &discover.Options{IncludeSecrets: true}})
	if sc, err := raw.Secrets(t.Context(), 0); err != nil || sc.Total != 0 {
		t.Errorf("with IncludeSecrets: %+v, %v; want nothing masked", sc, err)
	}
	term := secretTerms(planted[0])[0]
	if ids, err := raw.TermChunks(t.Context(), term, 0); err != nil || len(ids) == 0 {
		t.Errorf("with IncludeSecrets the term %q of %s is not indexed (%v)", term, planted[0].Path, err)
	}
}
