package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/llm"
)

// fake is a Client that remembers the options it was built with.
type fake struct{ opts llm.Options }

func (f *fake) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, errors.New("not implemented")
}
func (f *fake) Model() string { return f.opts.Model }

func init() {
	llm.Register("test-fake", func(o llm.Options) (llm.Client, error) { return &fake{opts: o}, nil })
	llm.Register("test-picky", func(o llm.Options) (llm.Client, error) { return nil, errors.New("no model") })
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		provider string
		opts     llm.Options
		wantErr  string
	}{
		{"ok", "test-fake", llm.Options{URL: "http://127.0.0.1:1/v1", Model: "m"}, ""},
		{"unknown name lists the known ones", "gemini", llm.Options{}, `unknown LLM provider "gemini"; known: `},
		{"empty name", "", llm.Options{}, `unknown LLM provider ""`},
		{"URL without scheme", "test-fake", llm.Options{URL: "localhost:11434/v1"}, `LLM provider test-fake: base URL "localhost:11434/v1" is not an http(s) URL`},
		{"other scheme", "test-fake", llm.Options{URL: "file:///tmp"}, "is not an http(s) URL"},
		{"negative output cap", "test-fake", llm.Options{MaxTokens: -1}, "negative MaxTokens -1"},
		{"negative timeout", "test-fake", llm.Options{Timeout: -time.Second}, "negative timeout -1s"},
		{"negative backoff", "test-fake", llm.Options{MaxBackoff: -time.Second}, "negative backoff"},
		{"factory error", "test-picky", llm.Options{}, "LLM provider test-picky: no model"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := llm.New(tc.provider, tc.opts)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if diff := cmp.Diff(tc.opts, c.(*fake).opts); diff != "" {
					t.Errorf("factory options mismatch (-want +got):\n%s", diff)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("New = %v, want error %q", err, tc.wantErr)
			}
		})
	}
}

func TestNewUnknownListsNames(t *testing.T) {
	t.Parallel()
	_, err := llm.New("gemini", llm.Options{})
	for _, n := range []string{"test-fake", "test-picky"} {
		if err == nil || !strings.Contains(err.Error(), n) {
			t.Errorf("New(gemini) = %v, want an error listing %q", err, n)
		}
	}
}

func TestRegisterPanics(t *testing.T) {
	t.Parallel()
	f := func(llm.Options) (llm.Client, error) { return nil, nil }
	for _, tc := range []struct {
		name     string
		provider string
		f        llm.Factory
	}{
		{"duplicate", "test-fake", f},
		{"empty name", "", f},
		{"nil factory", "test-nil", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", tc.provider)
				}
			}()
			llm.Register(tc.provider, tc.f)
		})
	}
}

func TestNamesSorted(t *testing.T) {
	t.Parallel()
	names := llm.Names()
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Errorf("Names() = %v, not sorted", names)
		}
	}
}

func TestFromConfig(t *testing.T) {
	t.Parallel()
	c, err := llm.FromConfig(config.LLM{URL: "http://ignored", Model: "m"})
	if c != nil || err != nil {
		t.Errorf("FromConfig without a provider = %v, %v; want nil, nil", c, err)
	}
	cfg := config.LLM{Provider: "test-fake", URL: "http://127.0.0.1:8000/v1", Model: "m", APIKey: "k", Timeout: 3 * time.Second, MaxTokens: 77}
	c, err = llm.FromConfig(cfg)
	if err != nil {
		t.Fatalf("FromConfig: %v", err)
	}
	want := llm.Options{URL: cfg.URL, Model: "m", APIKey: "k", Timeout: 3 * time.Second, MaxTokens: 77}
	if diff := cmp.Diff(want, c.(*fake).opts); diff != "" {
		t.Errorf("options mismatch (-want +got):\n%s", diff)
	}
	if _, err := llm.FromConfig(config.LLM{Provider: "gemini"}); err == nil {
		t.Error("FromConfig with an unknown provider succeeded")
	}
}
