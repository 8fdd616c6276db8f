package engine_test

import (
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/store"
)

// TestConfidenceBuiltin: with the built-in model, an index run stores the
// index's off-topic level, and find grades a nonsense query low, a
// definition asked for by name high, and a question the code answers not
// low; an index without a stored level (written by an older ctx) is
// graded against one measured on the spot.
func TestConfidenceBuiltin(t *testing.T) {
	t.Parallel()
	root := repo(t)
	cfg := testConfig(t)
	cfg.Embed.Provider = "builtin"
	e := open(t, cfg, root, nil)
	index(t, e, engine.IndexOptions{})
	check := func(e *engine.Engine) float64 {
		t.Helper()
		for q, want := range map[string]engine.Confidence{
			"zebra giraffe banana smoothie recipe": engine.ConfidenceLow,
			"ParseConfig":                          engine.ConfidenceHigh,
		} {
			if r := find(t, e, engine.FindRequest{Query: q}); r.Confidence != want {
				t.Errorf("%q: confidence %s (%+v), want %s", q, r.Confidence, r.Stats.Basis, want)
			}
		}
		r := find(t, e, engine.FindRequest{Query: "retry with exponential backoff between attempts"})
		if r.Confidence == engine.ConfidenceLow || r.Stats.Basis == nil || r.Stats.Basis.DenseNull <= 0 || r.Stats.Basis.DenseTop <= r.Stats.Basis.DenseNull {
			t.Errorf("retry question: confidence %s, basis %+v; want not low, graded against the off-topic level", r.Confidence, r.Stats.Basis)
		}
		return r.Stats.Basis.DenseNull
	}
	stored := check(e)

	// An index written before levels were stored.
	db, err := store.Open(t.Context(), e.DBPath(), &store.Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := db.Meta(t.Context(), "dense_null"); err != nil || !strings.Contains(v, `"model":"builtin/`) {
		t.Errorf("stored off-topic level %q (%v), want one measured with the built-in model", v, err)
	}
	if err := db.SetMeta(t.Context(), map[string]string{"dense_null": ""}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if measured := check(open(t, cfg, root, nil)); measured != stored {
		t.Errorf("level measured on the spot %v, stored %v: want the same", measured, stored)
	}
}
