package search

import "testing"

func TestNameShare(t *testing.T) {
	t.Parallel()
	cases := []struct {
		query, path string
		want        float64
	}{
		// Whole words and stems.
		{"logging setup", "pkg/logger.go", 0.5},
		{"http server", "net/http/server.go", 1},
		// File-name words that abbreviate a query word.
		{"standard library Serialize implementations", "src/ser/impls.rs", 0.25},
		{"field attributes", "src/internals/attr.rs", 0.5},
		{"configuration loading", "app/config.py", 0.5},
		{"user authentication", "lib/auth_handler.go", 0.5},
		// Neighbouring query words joined, as names join them.
		{"real IP extraction from forwarded headers", "middleware/realip.go", 0.4},
		{"thread pool and work queue", "src/threadpool.c", 0.5},
		{"JSON array operations", "gson/JsonArray.java", 2.0 / 3},
		{"pool thread", "src/threadpool.c", 0},
		// Too short to stand for a word, or the whole word itself.
		{"format strings", "src/fmt.rs", 0},
		{"input output", "lib/io.c", 0},
		// A stem is not taken as an abbreviation: server.go's "serv" does
		// not match "service".
		{"service discovery", "pkg/server.go", 0},
	}
	for _, c := range cases {
		got := newQueryWords(c.query).share(nameTerms(c.path), nameWords(c.path))
		if got != c.want {
			t.Errorf("share(%q, %q) = %v, want %v", c.query, c.path, got, c.want)
		}
	}
}

func TestDenseQuery(t *testing.T) {
	t.Parallel()
	n := 1000
	terms := []weighted{
		{text: "serde", df: 990},
		{text: "handles", df: 40},
		{text: "maps", df: 120},
		{text: "serialization", df: 300},
	}
	cases := []struct {
		raw   string
		terms []weighted
		n     int
		want  string
	}{
		{"how serde handles maps during serialization", terms, n, "how  handles maps during serialization"},
		{"Serde maps", terms, n, " maps"},
		// Nothing but common words (and stopwords): kept whole.
		{"the serde", terms, n, "the serde"},
		// Small indexes keep every word.
		{"how serde handles maps", terms, 50, "how serde handles maps"},
		{"how serde handles maps", nil, n, "how serde handles maps"},
	}
	for _, c := range cases {
		if got := denseQuery(c.raw, c.terms, c.n); got != c.want {
			t.Errorf("denseQuery(%q, n=%d) = %q, want %q", c.raw, c.n, got, c.want)
		}
	}
}
