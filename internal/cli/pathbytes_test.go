package cli_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badNameRepo writes a repository holding sub/caf\xe9.go, a file name
// that is not valid UTF-8 (Latin-1 é), and returns its root and the name.
func badNameRepo(t *testing.T) (string, string) {
	t.Helper()
	root := t.TempDir()
	bad := "sub/caf\xe9.go"
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		bad:       "package sub\n\n// Zanzibar frobnicates the widget.\nfunc Zanzibar() int {\n\treturn 42\n}\n",
		"main.go": "package main\n\nfunc main() { Zanzibar() }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Skipf("this file system does not take the name %q: %v", name, err)
		}
	}
	return root, bad
}

// TestPathBytes: a file whose name is not valid UTF-8 keeps "path" as
// encoding/json writes it and gains "path_bytes", the base64 of its raw
// bytes, in find, def, refs, symbols, chunk and deps JSON; ctx chunk
// --path-bytes takes that value back. Valid names have no path_bytes.
func TestPathBytes(t *testing.T) {
	t.Setenv("CTX_EMBED_PROVIDER", "none")
	root, bad := badNameRepo(t)
	want := base64.StdEncoding.EncodeToString([]byte(bad))
	flags := []string{"--repo", root, "--cache-dir", t.TempDir()}
	if _, stderr, code := run(t, "", append([]string{"index"}, flags...)...); code != 0 {
		t.Fatalf("ctx index: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{
		{"find", "--json", "Zanzibar"},
		{"def", "--json", "Zanzibar"},
		{"refs", "--json", "Zanzibar"},
		{"symbols", "--json"},
		{"chunk", "--json", "--path-bytes", want + ":4"},
		{"deps", "--json", bad},
	} {
		t.Run(args[0], func(t *testing.T) {
			stdout, stderr, code := run(t, "", append(args, flags...)...)
			if code != 0 {
				t.Fatalf("ctx %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
			var v any
			if err := json.Unmarshal([]byte(stdout), &v); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, stdout)
			}
			got := map[string]string{} // path → path_bytes of every object with a path
			walkPaths(v, got)
			if got["sub/caf\uFFFD.go"] != want {
				t.Errorf("path_bytes of sub/caf\uFFFD.go = %q, want %q (paths: %q)", got["sub/caf\uFFFD.go"], want, got)
			}
			if pb, ok := got["main.go"]; ok && pb != "" {
				t.Errorf("main.go has path_bytes %q, want none", pb)
			}
		})
	}

	// The round trip: chunk by path_bytes gives the file's code, as chunk
	// by the raw name does.
	byBytes, stderr, code := run(t, "", append([]string{"chunk", "--path-bytes", want + ":4"}, flags...)...)
	if code != 0 || !strings.Contains(byBytes, "func Zanzibar() int") {
		t.Errorf("ctx chunk --path-bytes: exit %d, stdout %q, stderr %q", code, byBytes, stderr)
	}
	byName, _, _ := run(t, "", append([]string{"chunk", bad + ":4"}, flags...)...)
	if byName != byBytes {
		t.Errorf("chunk by raw name = %q, by path_bytes = %q", byName, byBytes)
	}
	// The U+FFFD form names no file; the error says what to pass.
	_, stderr, code = run(t, "", append([]string{"chunk", "sub/caf\uFFFD.go:4"}, flags...)...)
	if code == 0 || !strings.Contains(stderr, "--path-bytes") {
		t.Errorf("chunk by the U+FFFD path: exit %d, stderr %q; want an error pointing to --path-bytes", code, stderr)
	}
	_, stderr, code = run(t, "", append([]string{"chunk", "--path-bytes", "not base64!:4"}, flags...)...)
	if code != 2 || !strings.Contains(stderr, "path_bytes") {
		t.Errorf("chunk with bad path bytes: exit %d, stderr %q; want a usage error", code, stderr)
	}
}

// walkPaths records the path_bytes ("" when absent) of every JSON object
// in v that has a path.
func walkPaths(v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		if p, ok := x["path"].(string); ok {
			pb, _ := x["path_bytes"].(string)
			out[p] = pb
		}
		for _, val := range x {
			walkPaths(val, out)
		}
	case []any:
		for _, val := range x {
			walkPaths(val, out)
		}
	}
}
