package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/analyze"
)

func TestQueryQualifiers(t *testing.T) {
	t.Parallel()
	cases := map[string]qualified{
		"http.Server":             {"Server": {{"http"}}},
		"Sinatra::Base":           {"Base": {{"sinatra"}}},
		"fmt::format_to":          {"format_to": {{"fmt"}}},
		"Base#call":               {"call": {{"base"}}},
		"(*Server).Close":         {"Close": {{"server"}}},
		"ReadMIMEHeader":          {},
		"how is a request parsed": {},
		"QuerySet.none() on combined queries returns all results. Calling self.none() on a union\nworks " +
			"in the ORM; the docs of qs.none say so.\nMore": {"none": {{"queryset"}, {"qs"}}},
	}
	for raw, want := range cases {
		if got := queryQualifiers(analyze.Analyze(raw)); !cmp.Equal(got, want) {
			t.Errorf("queryQualifiers(%.40q) = %v, want %v", raw, got, want)
		}
	}
}

func TestHoldsQualifiers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		path, lang, symbol, crumb string
		quals                     [][]string
		want                      bool
	}{
		{"net/http/server.go", "go", "Server", "", [][]string{{"http"}}, true},
		{"net/rpc/server.go", "go", "Server", "", [][]string{{"http"}}, false},
		{"io/io.go", "go", "Reader", "", [][]string{{"io"}}, true},
		{"strings/reader.go", "go", "Reader", "", [][]string{{"io"}}, false},
		{"lib/sinatra/base.rb", "ruby", "Sinatra::Base", "Sinatra", [][]string{{"sinatra"}}, true},
		{"django/db/models/query.py", "python", "QuerySet.none", "QuerySet", [][]string{{"queryset"}}, true},
		{"django/db/models/manager.py", "python", "BaseManager.none", "", [][]string{{"queryset"}, {"qs"}}, false},
		{"include/fmt/format.h", "cpp", "format_to", "fmt", [][]string{{"fmt"}}, true},
		{"x.go", "go", "Close", "", nil, false},
	}
	for _, c := range cases {
		if got := holdsQualifiers(c.path, c.lang, c.symbol, c.crumb, c.quals); got != c.want {
			t.Errorf("holdsQualifiers(%q, %q, %q, %q, %v) = %v, want %v", c.path, c.lang, c.symbol, c.crumb, c.quals, got, c.want)
		}
	}
}
