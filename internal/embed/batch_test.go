package embed_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
)

// scripted is a provider whose vectors encode the text they embed, so a
// test can see order, and whose behaviour per call is scripted.
type scripted struct {
	dims int
	// vec returns the vector of text; nil means [float32(len(text)), 0...].
	vec func(text string) []float32
	// count overrides the number of vectors returned when non-nil.
	count func(n int) int
	// fail returns an error for the call'th call (0-based), or nil.
	fail func(call int) error

	mu      sync.Mutex // guards batches
	batches [][]string
}

func (s *scripted) Model() embed.Model {
	return embed.Model{Provider: "test", Name: "scripted", Dims: s.dims}
}

func (s *scripted) Embed(ctx context.Context, texts []string, kind embed.InputKind) ([][]float32, error) {
	s.mu.Lock()
	call := len(s.batches)
	s.batches = append(s.batches, append([]string(nil), texts...))
	s.mu.Unlock()
	if s.fail != nil {
		if err := s.fail(call); err != nil {
			return nil, err
		}
	}
	n := len(texts)
	if s.count != nil {
		n = s.count(n)
	}
	out := make([][]float32, n)
	for i := range out {
		t := texts[min(i, len(texts)-1)]
		if s.vec != nil {
			out[i] = s.vec(t)
			continue
		}
		out[i] = make([]float32, s.dims)
		out[i][0] = float32(len(t))
	}
	return out, nil
}

func TestBatch(t *testing.T) {
	t.Parallel()
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vecs := func(lens ...int) [][]float32 {
		out := make([][]float32, len(lens))
		for i, l := range lens {
			out[i] = []float32{float32(l), 0, 0}
		}
		return out
	}
	tests := []struct {
		name        string
		texts       []string
		size        int
		p           *scripted
		want        [][]float32
		wantBatches [][]string
		wantErr     error  // matched with errors.Is
		wantErrText string // substring of the error
	}{
		{
			name:        "batches of two keep order",
			texts:       texts,
			size:        2,
			p:           &scripted{dims: 3},
			want:        vecs(1, 2, 3, 4, 5),
			wantBatches: [][]string{{"a", "bb"}, {"ccc", "dddd"}, {"eeeee"}},
		},
		{
			name:        "size zero is one call",
			texts:       texts,
			size:        0,
			p:           &scripted{dims: 3},
			want:        vecs(1, 2, 3, 4, 5),
			wantBatches: [][]string{texts},
		},
		{
			name:        "size larger than input",
			texts:       texts[:2],
			size:        10,
			p:           &scripted{dims: 3},
			want:        vecs(1, 2),
			wantBatches: [][]string{{"a", "bb"}},
		},
		{
			name:  "no texts no calls",
			texts: nil,
			size:  2,
			p:     &scripted{dims: 3},
			want:  [][]float32{},
		},
		{
			name:  "wrong dimension",
			texts: texts,
			size:  2,
			p: &scripted{dims: 3, vec: func(t string) []float32 {
				if t == "ccc" {
					return []float32{1, 2}
				}
				return []float32{1, 2, 3}
			}},
			wantErr:     embed.ErrDimension,
			wantErrText: "embedding text 2",
			wantBatches: [][]string{{"a", "bb"}, {"ccc", "dddd"}},
		},
		{
			name:  "unknown dims are held to the first vector",
			texts: texts,
			size:  2,
			p: &scripted{dims: 0, vec: func(t string) []float32 {
				return make([]float32, 2+len(t)/4)
			}},
			wantErr:     embed.ErrDimension,
			wantErrText: "embedding text 3",
			wantBatches: [][]string{{"a", "bb"}, {"ccc", "dddd"}},
		},
		{
			name:        "empty vector",
			texts:       texts[:1],
			size:        2,
			p:           &scripted{dims: 0, vec: func(string) []float32 { return []float32{} }},
			wantErr:     embed.ErrDimension,
			wantBatches: [][]string{{"a"}},
		},
		{
			name:        "too few vectors",
			texts:       texts,
			size:        2,
			p:           &scripted{dims: 3, count: func(n int) int { return n - 1 }},
			wantErrText: "provider returned 1 vectors for 2 texts",
			wantBatches: [][]string{{"a", "bb"}},
		},
		{
			name:  "provider error stops and stays matchable",
			texts: texts,
			size:  2,
			p: &scripted{dims: 3, fail: func(call int) error {
				if call == 1 {
					return fmt.Errorf("test provider: %w", embed.ErrRateLimited)
				}
				return nil
			}},
			wantErr:     embed.ErrRateLimited,
			wantErrText: "embedding texts 2-3 of 5",
			wantBatches: [][]string{{"a", "bb"}, {"ccc", "dddd"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := embed.Batch(t.Context(), tc.p, tc.texts, embed.Document, tc.size)
			if tc.wantErr != nil || tc.wantErrText != "" {
				if err == nil {
					t.Fatalf("Batch succeeded, want error %v %q", tc.wantErr, tc.wantErrText)
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("Batch error %q is not %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantErrText) {
					t.Errorf("Batch error %q does not contain %q", err, tc.wantErrText)
				}
				if got != nil {
					t.Errorf("Batch returned vectors with an error: %v", got)
				}
			} else {
				if err != nil {
					t.Fatalf("Batch: %v", err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("vectors mismatch (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tc.wantBatches, tc.p.batches); diff != "" {
				t.Errorf("batches mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBatchCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	p := &scripted{dims: 3, fail: func(call int) error {
		cancel() // cancel while the first batch is in flight
		return nil
	}}
	_, err := embed.Batch(ctx, p, []string{"a", "b", "c"}, embed.Query, 1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Batch error = %v, want context.Canceled", err)
	}
	if len(p.batches) != 1 {
		t.Errorf("Batch made %d calls after cancellation, want 1", len(p.batches))
	}
}

// TestBatchWithFake runs Batch over the shared fake, as the index stage
// will, and checks the fake's counters.
func TestBatchWithFake(t *testing.T) {
	t.Parallel()
	f := embedtest.New(16)
	texts := []string{"parse config", "open file", "parse flags", "close file", "main"}
	got, err := embed.Batch(t.Context(), f, texts, embed.Document, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) {
		t.Fatalf("got %d vectors, want %d", len(got), len(texts))
	}
	if f.Calls() != 3 || f.Texts() != 5 {
		t.Errorf("fake saw %d calls and %d texts, want 3 and 5", f.Calls(), f.Texts())
	}
}

func TestInBatches(t *testing.T) {
	t.Parallel()
	errBoom := errors.New("boom")
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	tests := []struct {
		name        string
		texts       []string
		size        int
		failCall    int // the 1-based call that fails; 0 means none
		want        [][]float32
		wantBatches [][]string
		wantErr     string
	}{
		{
			name:        "uneven batches",
			texts:       texts,
			size:        2,
			want:        [][]float32{{1}, {2}, {3}, {4}, {5}},
			wantBatches: [][]string{{"a", "bb"}, {"ccc", "dddd"}, {"eeeee"}},
		},
		{
			name:        "size 0 sends all at once",
			texts:       texts,
			want:        [][]float32{{1}, {2}, {3}, {4}, {5}},
			wantBatches: [][]string{texts},
		},
		{
			name: "no texts, no call",
			want: [][]float32{},
		},
		{
			name:        "error names the range and model",
			texts:       texts,
			size:        2,
			failCall:    2,
			wantBatches: [][]string{{"a", "bb"}, {"ccc", "dddd"}},
			wantErr:     "embedding texts 2-3 with m1: boom",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var batches [][]string
			got, err := embed.InBatches(tc.texts, tc.size, "m1", func(batch []string) ([][]float32, error) {
				batches = append(batches, batch)
				if len(batches) == tc.failCall {
					return nil, errBoom
				}
				out := make([][]float32, len(batch))
				for i, s := range batch {
					out[i] = []float32{float32(len(s))}
				}
				return out, nil
			})
			if tc.wantErr != "" {
				if !errors.Is(err, errBoom) || err.Error() != tc.wantErr {
					t.Errorf("InBatches error = %v, want %q wrapping %v", err, tc.wantErr, errBoom)
				}
				if got != nil {
					t.Errorf("InBatches returned %d vectors with an error", len(got))
				}
			} else if err != nil {
				t.Fatalf("InBatches: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("vectors mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantBatches, batches); diff != "" {
				t.Errorf("batches mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
