package rerank_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/rerank"
)

func TestTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"fits", "abc", 3, "abc"},
		{"ascii", "abcdef", 4, "abcd"},
		{"no limit", "abcdef", 0, "abcdef"},
		{"two-byte rune at cut", "aé", 2, "a"},       // é is 2 bytes: 1..2
		{"three-byte rune at cut", "ab€x", 4, "ab"},  // € is 3 bytes: 2..4
		{"four-byte rune at cut", "a😀b", 4, "a"},     // 😀 is 4 bytes: 1..4
		{"four-byte rune just fits", "a😀b", 5, "a😀"}, //
		{"cut before a rune", "ab€", 2, "ab"},        //
		{"invalid bytes back up at most 3", "\x80\x80\x80\x80\x80\x80", 5, "\x80\x80"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := rerank.Truncate(tt.s, tt.n)
			if got != tt.want {
				t.Errorf("Truncate(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
			}
			if tt.n > 0 && len(got) > tt.n {
				t.Errorf("len = %d, over %d", len(got), tt.n)
			}
			if utf8.ValidString(tt.s) && !utf8.ValidString(got) {
				t.Errorf("Truncate(%q, %d) = %q splits a rune", tt.s, tt.n, got)
			}
		})
	}
}

func TestTruncateAll(t *testing.T) {
	t.Parallel()
	short := []string{"a", "bb"}
	if got := rerank.TruncateAll(short, 4); &got[0] != &short[0] {
		t.Error("TruncateAll copied docs that all fit")
	}
	docs := []string{"a", strings.Repeat("é", 10), "ccc"}
	got := rerank.TruncateAll(docs, 5)
	if diff := cmp.Diff([]string{"a", "éé", "ccc"}, got); diff != "" {
		t.Errorf("TruncateAll (-want +got):\n%s", diff)
	}
	if docs[1] != strings.Repeat("é", 10) {
		t.Error("TruncateAll modified its input")
	}
}

func TestComplete(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		n       int
		got     []rerank.Result
		fill    bool
		want    []rerank.Result
		wantErr string
	}{
		{
			name: "sorted by score, ties by index",
			n:    4,
			got:  []rerank.Result{{3, 0.5}, {0, 0.1}, {2, 0.9}, {1, 0.5}},
			want: []rerank.Result{{2, 0.9}, {1, 0.5}, {3, 0.5}, {0, 0.1}},
		},
		{
			name: "negative scores",
			n:    2,
			got:  []rerank.Result{{0, -3.5}, {1, -1.25}},
			want: []rerank.Result{{1, -1.25}, {0, -3.5}},
		},
		{
			name: "missing filled last in original order",
			n:    4,
			got:  []rerank.Result{{2, 0.1}},
			fill: true,
			want: []rerank.Result{{2, 0.1}, {0, rerank.MissingScore}, {1, rerank.MissingScore}, {3, rerank.MissingScore}},
		},
		{name: "missing without fill", n: 3, got: []rerank.Result{{0, 1}, {1, 1}}, wantErr: "2 results for 3 documents"},
		{name: "index too large", n: 2, got: []rerank.Result{{0, 1}, {2, 1}}, fill: true, wantErr: "index 2 out of range"},
		{name: "negative index", n: 2, got: []rerank.Result{{-1, 1}}, fill: true, wantErr: "index -1 out of range"},
		{name: "repeated index", n: 2, got: []rerank.Result{{1, 1}, {1, 0.5}}, fill: true, wantErr: "index 1 repeated"},
		{name: "none", n: 0, want: []rerank.Result{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := rerank.Complete(tt.n, tt.got, tt.fill)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Complete error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Complete (-want +got):\n%s", diff)
			}
		})
	}
}

// fake is a Reranker that records the options it was built with.
type fake struct{ o rerank.Options }

func (f *fake) Rerank(context.Context, string, []string) ([]rerank.Result, rerank.Usage, error) {
	return nil, rerank.Usage{}, nil
}
func (f *fake) Model() string { return f.o.Model }

// Registered once per test binary: a second Register panics, even under
// -count.
func init() {
	rerank.Register("fake-registry", func(o rerank.Options) (rerank.Reranker, error) { return &fake{o}, nil })
	rerank.Register("fake-config", func(o rerank.Options) (rerank.Reranker, error) { return &fake{o}, nil })
}

func TestRegistry(t *testing.T) {
	t.Parallel()

	r, err := rerank.New("fake-registry", rerank.Options{Model: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Model() != "m1" {
		t.Errorf("Model() = %q, want m1", r.Model())
	}
	if names := rerank.Names(); !slices.Contains(names, "fake-registry") {
		t.Errorf("Names() = %v, want fake-registry among them", names)
	}

	if _, err := rerank.New("no-such-reranker", rerank.Options{}); err == nil || !strings.Contains(err.Error(), `unknown reranker "no-such-reranker"`) {
		t.Errorf("New(unknown) error = %v", err)
	}
	if _, err := rerank.New("fake-registry", rerank.Options{MaxDocBytes: -1}); err == nil {
		t.Error("New with negative MaxDocBytes: no error")
	}

	func() {
		defer func() {
			if recover() == nil {
				t.Error("second Register of a name did not panic")
			}
		}()
		rerank.Register("fake-registry", func(o rerank.Options) (rerank.Reranker, error) { return &fake{o}, nil })
	}()
}

func TestFromConfig(t *testing.T) {
	t.Parallel()
	r, err := rerank.FromConfig(config.Rerank{})
	if r != nil || err != nil {
		t.Errorf("FromConfig(off) = %v, %v; want nil, nil", r, err)
	}

	r, err = rerank.FromConfig(config.Rerank{Provider: "fake-config", URL: "http://h", Model: "m", APIKey: "k", Timeout: 7, TopN: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := rerank.Options{URL: "http://h", Model: "m", APIKey: "k", Timeout: 7}
	if diff := cmp.Diff(want, r.(*fake).o); diff != "" {
		t.Errorf("options from config (-want +got):\n%s", diff)
	}

	if _, err := rerank.FromConfig(config.Rerank{Provider: "unlinked"}); err == nil {
		t.Error("FromConfig(unregistered provider): no error")
	}
}

func TestUsageAdd(t *testing.T) {
	t.Parallel()
	got := rerank.Usage{Tokens: 1, SearchUnits: 2, Requests: 3}.Add(rerank.Usage{Tokens: 10, SearchUnits: 20, Requests: 30})
	if diff := cmp.Diff(rerank.Usage{Tokens: 11, SearchUnits: 22, Requests: 33}, got); diff != "" {
		t.Errorf("Add (-want +got):\n%s", diff)
	}
}
