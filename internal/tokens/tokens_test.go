package tokens

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// TestCount checks counts against o200k_base as npm js-tiktoken 1.0.21
// gives them (getEncoding("o200k_base").encode(s).length).
func TestCount(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"func main() {}", 4},
		{"package main\n\nfunc main() { println(\"hi\") }\n", 12},
	} {
		if got := Count(tc.text); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
	if n := Count("ok \xff\xfe ok"); n < 3 {
		t.Errorf("Count of invalid UTF-8 = %d, want every byte counted", n)
	}
}

// TestCountAdditive: a text split at a line boundary counts the same as
// its parts, within one token per cut (what packing by segment relies
// on).
func TestCountAdditive(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "io", "io.go"))
	if err != nil {
		t.Skip(err)
	}
	whole := Count(string(src))
	if runtime.Version() == "go1.26.8" && whole != 5793 {
		// js-tiktoken 1.0.21 counts 5793 for go1.26.8's io.go.
		t.Errorf("io.go: %d tokens, want 5793", whole)
	}
	half := len(src) / 2
	for src[half] != '\n' {
		half++
	}
	parts := Count(string(src[:half+1])) + Count(string(src[half+1:]))
	if d := parts - whole; d < -1 || d > 1 {
		t.Errorf("parts count %d, whole %d", parts, whole)
	}
	if whole < len(src)/8 || whole > len(src)/2 {
		t.Errorf("io.go: %d tokens for %d bytes; code runs 3-5 bytes a token", whole, len(src))
	}
}

func TestCountConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if n := Count("package main\n\nfunc main() { println(\"hi\") }\n"); n != 12 {
					t.Errorf("Count = %d, want 12", n)
					return
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkCount(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		Count(string(src))
	}
}
