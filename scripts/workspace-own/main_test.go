package main

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMarkOthers(t *testing.T) {
	dir := t.TempDir()
	in := `{"results": [
	  {"repo": "api", "path": "limit/bucket.go", "start_line": 3, "end_line": 9},
	  {"repo": "web", "path": "limit/bucket.go", "start_line": 1, "end_line": 4}
	], "stats": {"members": [{"repo": "api", "root": "` + dir + `"}, {"repo": "web", "root": "/elsewhere"}]}}`
	for _, tc := range []struct {
		name, dir string
		want      []string
	}{
		{"own member kept", dir, []string{"limit/bucket.go", "other:web/limit/bucket.go#other"}},
		{"no member here", t.TempDir(), []string{"other:api/limit/bucket.go#other", "other:web/limit/bucket.go#other"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := markOthers([]byte(in), tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Results []struct {
					Path      string `json:"path"`
					StartLine int    `json:"start_line"`
				} `json:"results"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, r := range got.Results {
				paths = append(paths, r.Path)
				if r.StartLine == 0 {
					t.Errorf("%s lost its lines", r.Path)
				}
			}
			if diff := cmp.Diff(tc.want, paths); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMarkOthersBadJSON(t *testing.T) {
	if _, err := markOthers([]byte("not json"), t.TempDir()); err == nil {
		t.Error("no error for an answer that is not JSON")
	}
}
