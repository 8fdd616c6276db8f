package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSetText: a value is replaced where it is, or added to its table
// (after the table's last key), or to the top before the first table and
// its comments, or in a new table at the end; every other byte stays.
func TestSetText(t *testing.T) {
	tests := []struct {
		name string
		src  string
		path []string
		lit  string
		want string
	}{
		{"empty file, table", "", []string{"embed", "batch"}, "8", "[embed]\nbatch = 8\n"},
		{"empty file, top", "", []string{"log_level"}, `"info"`, "log_level = \"info\"\n"},
		{"replace, comment kept", "# ours\n[embed]\nbatch = 3 # small\nmodel = \"m\"\n", []string{"embed", "batch"}, "8",
			"# ours\n[embed]\nbatch = 8 # small\nmodel = \"m\"\n"},
		{"replace multi-line array", "[index]\nexclude = [\n  \"a\", # why\n  \"b\",\n]\nmax_file_bytes = 10\n", []string{"index", "exclude"}, `["c"]`,
			"[index]\nexclude = [\"c\"]\nmax_file_bytes = 10\n"},
		{"replace multi-line string", "[llm]\nmodel = \"\"\"\nx\"\"\"\"\nurl = 'u'\n", []string{"llm", "model"}, `"m"`, "[llm]\nmodel = \"m\"\nurl = 'u'\n"},
		{"replace quoted and dotted key", "embed.\"batch\" = 3\n", []string{"embed", "batch"}, "4", "embed.\"batch\" = 4\n"},
		{"add to existing table", "[embed]\nbatch = 3\n\n# next\n[llm]\nmodel = \"m\"\n", []string{"embed", "model"}, `"x"`,
			"[embed]\nbatch = 3\nmodel = \"x\"\n\n# next\n[llm]\nmodel = \"m\"\n"},
		{"add to an empty table", "[embed]\n[llm]\n", []string{"embed", "model"}, `"x"`, "[embed]\nmodel = \"x\"\n[llm]\n"},
		{"add top-level before tables", "# header comment\n\n# about embed\n[embed]\nbatch = 3\n", []string{"log_level"}, `"info"`,
			"# header comment\n\nlog_level = \"info\"\n\n# about embed\n[embed]\nbatch = 3\n"},
		{"add top-level after top-level", "cache_dir = \"c\"\n\n[embed]\nbatch = 3\n", []string{"log_level"}, `"info"`,
			"cache_dir = \"c\"\nlog_level = \"info\"\n\n[embed]\nbatch = 3\n"},
		{"new table, no final newline", "[embed]\nbatch = 3", []string{"llm", "model"}, `"m"`, "[embed]\nbatch = 3\n\n[llm]\nmodel = \"m\"\n"},
		{"add after last key, no final newline", "[embed]\nbatch = 3", []string{"embed", "dims"}, `4`, "[embed]\nbatch = 3\ndims = 4\n"},
		{"workspaces kept", "[workspaces.backend]\nrepos = [\".\"]\n", []string{"index", "exclude"}, `["gen/**"]`,
			"[workspaces.backend]\nrepos = [\".\"]\n\n[index]\nexclude = [\"gen/**\"]\n"},
		{"CRLF", "[embed]\r\nbatch = 3\r\n", []string{"embed", "batch"}, "4", "[embed]\r\nbatch = 4\r\n"},
		{"inline table elsewhere", "[llm]\nx = { a = [1, 2], b = \"}\" }\n[embed]\nbatch = 3\n", []string{"embed", "batch"}, "5",
			"[llm]\nx = { a = [1, 2], b = \"}\" }\n[embed]\nbatch = 5\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := setText([]byte(tt.src), tt.path, tt.lit)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, string(got)); d != "" {
				t.Errorf("setText (-want +got):\n%s", d)
			}
		})
	}
}

// TestUnsetText: the key's whole statement goes, with its comment and
// every line of its value; nothing else changes.
func TestUnsetText(t *testing.T) {
	src := "# ours\n[index]\nexclude = [\n  \"a\",\n] # gone too\nmax_file_bytes = 10\n"
	got, ok, err := unsetText([]byte(src), []string{"index", "exclude"})
	if err != nil || !ok {
		t.Fatalf("unsetText: %v, %v", ok, err)
	}
	if want := "# ours\n[index]\nmax_file_bytes = 10\n"; string(got) != want {
		t.Errorf("unsetText = %q, want %q", got, want)
	}
	got, ok, err = unsetText([]byte(src), []string{"index", "include_secrets"})
	if err != nil || ok || string(got) != src {
		t.Errorf("unsetText of a missing key = %q, %v, %v; want the file unchanged and false", got, ok, err)
	}
}

// TestScanRefuses: text the scanner cannot follow is refused, never
// guessed at.
func TestScanRefuses(t *testing.T) {
	for _, src := range []string{"a = \"open\n", "[embed\n", "a = [1, 2\n", "= 3\n", "a = 1 ]\n"} {
		if _, err := scanStatements([]byte(src)); err == nil {
			t.Errorf("scanStatements(%q): no error", src)
		}
	}
	if _, err := scanStatements([]byte(strings.Repeat("[[x]]\na = 1\n", 2))); err != nil {
		t.Errorf("array of tables: %v", err)
	}
}
