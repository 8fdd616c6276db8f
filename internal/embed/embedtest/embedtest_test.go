package embedtest_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
)

func TestFakeModel(t *testing.T) {
	t.Parallel()
	want := embed.Model{Provider: "fake", Name: "hash", Dims: 64}
	if diff := cmp.Diff(want, embedtest.New(64).Model()); diff != "" {
		t.Errorf("Model mismatch (-want +got):\n%s", diff)
	}
}

func TestFakeDeterministicAndNormalised(t *testing.T) {
	t.Parallel()
	texts := []string{"func ParseConfig(path string)", "", "!!!", "héllo wörld 42"}
	a, err := embedtest.New(32).Embed(t.Context(), texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	b, err := embedtest.New(32).Embed(t.Context(), texts, embed.Query)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two fakes disagree (-document +query):\n%s", diff)
	}
	for i, v := range a {
		if len(v) != 32 {
			t.Errorf("vector %d has %d dims, want 32", i, len(v))
		}
		norm := math.Sqrt(float64(embed.Dot(v, v)))
		wantNorm := 1.0
		if texts[i] == "" || texts[i] == "!!!" {
			wantNorm = 0
		}
		if math.Abs(norm-wantNorm) > 1e-6 {
			t.Errorf("vector %d (%q) has norm %v, want %v", i, texts[i], norm, wantNorm)
		}
	}
}

func TestFakeSimilarity(t *testing.T) {
	t.Parallel()
	f := embedtest.New(256)
	vecs, err := f.Embed(t.Context(), []string{
		"parse the config file",
		"Parse CONFIG, then exit",  // case and punctuation do not matter
		"render widgets on screen", // no words in common
	}, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	related, unrelated := embed.Dot(vecs[0], vecs[1]), embed.Dot(vecs[0], vecs[2])
	if related <= unrelated {
		t.Errorf("similarity of texts sharing words = %v, not above unrelated texts = %v", related, unrelated)
	}
	if related < 0.5 {
		t.Errorf("similarity of texts sharing 2 of 4 words = %v, want >= 0.5", related)
	}
}

func TestFakeCountsAndErrors(t *testing.T) {
	t.Parallel()
	f := embedtest.New(8)
	if _, err := f.Embed(t.Context(), []string{"a", "b"}, embed.Document); err != nil {
		t.Fatal(err)
	}
	f.SetErr(embed.ErrRateLimited)
	if _, err := f.Embed(t.Context(), []string{"c"}, embed.Document); !errors.Is(err, embed.ErrRateLimited) {
		t.Errorf("Embed with injected error = %v, want %v", err, embed.ErrRateLimited)
	}
	f.SetErr(nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := f.Embed(ctx, []string{"d", "e"}, embed.Query); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with canceled context = %v, want %v", err, context.Canceled)
	}
	if got, want := [2]int{f.Calls(), f.Texts()}, [2]int{3, 5}; got != want {
		t.Errorf("calls, texts = %v, want %v", got, want)
	}
}

func TestNewPanicsOnBadDims(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("New(0) did not panic")
		}
	}()
	embedtest.New(0)
}
