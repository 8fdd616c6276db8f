package tomltext_test

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/tomltext"
)

// TestStringRoundTrip: commands with quotes, backslashes (Windows
// paths) and control characters come back from a TOML parser unchanged.
func TestStringRoundTrip(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`C:\Program Files\ctx\ctx.exe`, `/opt/"ctx"/bin`, "tab\there", "bell\a", "ünï ✓", "${workspaceFolder}"} {
		var v struct{ S string }
		if _, err := toml.Decode("S = "+tomltext.String(s), &v); err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if v.S != s {
			t.Errorf("round trip of %q gave %q", s, v.S)
		}
	}
}

func TestScanHeaders(t *testing.T) {
	t.Parallel()
	doc := `top = { a = [1, { b = "]" }] }
[ "a.b" . c ]
x.y = 'z' # c
[[arr]]
`
	stmts, err := tomltext.Scan([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, s := range stmts {
		k := append([]string(nil), s.Key...)
		if s.Header {
			k = append([]string{"header"}, k...)
		}
		if s.Array {
			k = append([]string{"array"}, k...)
		}
		got = append(got, k)
	}
	want := [][]string{{"top"}, {"header", "a.b", "c"}, {"x", "y"}, {"array", "header", "arr"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statements (-want +got):\n%s", diff)
	}
}

// TestScanRefuses: text the scanner cannot follow is an error naming its
// line, never guessed at.
func TestScanRefuses(t *testing.T) {
	t.Parallel()
	for src, line := range map[string]string{
		"a = \"open\n":    "line 1",
		"x = 1\n[embed\n": "line 2",
		"a = [1, 2\n":     "line 1",
		"= 3\n":           "line 1",
		"a = 1 ]\n":       "line 1",
	} {
		if _, err := tomltext.Scan([]byte(src)); err == nil || !strings.Contains(err.Error(), line) {
			t.Errorf("Scan(%q) = %v, want an error at %s", src, err, line)
		}
	}
	if _, err := tomltext.Scan([]byte(strings.Repeat("[[x]]\na = 1\n", 2))); err != nil {
		t.Errorf("array of tables: %v", err)
	}
}

// TestKey: bare parts stay bare; others are quoted as TOML basic strings.
func TestKey(t *testing.T) {
	t.Parallel()
	if got, want := tomltext.Key("embed", "api_key", "a.b", ""), `embed.api_key."a.b".""`; got != want {
		t.Errorf("Key = %s, want %s", got, want)
	}
}
