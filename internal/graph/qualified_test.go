package graph

import (
	"slices"
	"testing"
)

func TestParseLookup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		name  string
		quals []string
	}{
		{"(*Server).Serve", "Serve", []string{"Server"}},
		{"(*http.Server).Shutdown", "Shutdown", []string{"http", "Server"}},
		{"net/http.Serve", "Serve", []string{"net", "http"}},
		{"Sinatra::Base#route", "route", []string{"Sinatra", "Base"}},
		{"Vec<T>::new", "new", []string{"Vec"}},
		{"List[T].map", "map", []string{"List"}},
		{"Vec2::operator+", "operator+", []string{"Vec2"}},
		{`App\Http\Kernel`, "Kernel", []string{"App", "Http"}},
		{"()", "", nil},
	} {
		got := ParseLookup(tc.in)
		if got.Name != tc.name || !slices.Equal(got.Quals, tc.quals) {
			t.Errorf("ParseLookup(%q) = %q %q, want %q %q", tc.in, got.Name, got.Quals, tc.name, tc.quals)
		}
	}
}

func TestScope(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path, lang, symbol, breadcrumb string
		want                           []string
	}{
		{"net/http/server.go", "go", "(*Server).Serve", "Server", []string{"net", "http", "Server"}},
		{"math/rand/v2/rand.go", "go", "Int", "", []string{"math", "rand"}},
		{"gson/src/main/java/com/google/gson/Gson.java", "java", "Gson.toJson", "Gson", []string{"gson", "main", "java", "com", "google", "gson", "Gson"}},
		{"serde/src/de/mod.rs", "rust", "Deserializer", "", []string{"serde", "de"}},
		{"fastapi/routing.py", "python", "APIRouter.add_api_route", "APIRouter", []string{"fastapi", "routing", "APIRouter"}},
		{"lib/sinatra/base.rb", "ruby", "Base.route", "Sinatra > Base", []string{"sinatra", "base", "Sinatra", "Base"}},
		{"include/fmt/format.h", "cpp", "basic_memory_buffer.grow", "fmt > basic_memory_buffer", []string{"fmt", "basic_memory_buffer"}},
		// A module named for the function it exports is one scope.
		{"lib/types/json.js", "javascript", "json", "", []string{"types"}},
		{"lib/types/json.js", "javascript", "parse", "", []string{"types", "json"}},
	} {
		if got := Scope(tc.path, tc.lang, tc.symbol, tc.breadcrumb); !slices.Equal(got, tc.want) {
			t.Errorf("Scope(%s, %s) = %q, want %q", tc.path, tc.symbol, got, tc.want)
		}
	}
}

func TestMatchScope(t *testing.T) {
	t.Parallel()
	http := []string{"net", "http"}
	server := []string{"net", "http", "Server"}
	cgi := []string{"net", "http", "cgi"}
	for _, tc := range []struct {
		quals, scope []string
		want         Match
	}{
		{nil, server, MatchExact},
		{[]string{"Server"}, server, MatchExact},
		{[]string{"http"}, http, MatchExact},
		{[]string{"net", "http"}, http, MatchExact},
		{[]string{"http", "Server"}, server, MatchExact},
		{[]string{"http"}, server, MatchLoose}, // http.Serve is not (*Server).Serve
		{[]string{"http"}, cgi, MatchLoose},
		{[]string{"Server"}, http, MatchNone},
		{[]string{"server"}, server, MatchLoose}, // case differs
		{[]string{"Server", "http"}, server, MatchNone},
	} {
		if got := MatchScope(tc.quals, tc.scope); got != tc.want {
			t.Errorf("MatchScope(%q, %q) = %v, want %v", tc.quals, tc.scope, got, tc.want)
		}
	}
}
