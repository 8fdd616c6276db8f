package cite

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	pack := []Span{
		{Path: "net/http/server.go", StartLine: 100, EndLine: 140},
		{Path: "net/http/server.go", StartLine: 141, EndLine: 160}, // touches the first
		{Path: "net/http/server.go", StartLine: 300, EndLine: 320},
		{Path: "README.md", StartLine: 1, EndLine: 20},
	}
	for _, tc := range []struct {
		name        string
		answer      string
		wantAnswer  string
		wantCites   []Citation
		wantDropped []string
	}{
		{
			name:      "every form",
			answer:    "See net/http/server.go:L100-L110, net/http/server.go:120-125, net/http/server.go#L300-L301, net/http/server.go#L305 and net/http/server.go:150.",
			wantCites: []Citation{{"net/http/server.go", 100, 110, ""}, {"net/http/server.go", 120, 125, ""}, {"net/http/server.go", 300, 301, ""}, {"net/http/server.go", 305, 305, ""}, {"net/http/server.go", 150, 150, ""}},
		},
		{
			name:      "bare path takes the pack's lines",
			answer:    "It lives in `net/http/server.go`.",
			wantCites: []Citation{{"net/http/server.go", 100, 320, ""}},
		},
		{
			name:      "range across touching spans",
			answer:    "net/http/server.go:L130-L155",
			wantCites: []Citation{{"net/http/server.go", 130, 155, ""}},
		},
		{
			name:        "lines outside the pack",
			answer:      "Handled at net/http/server.go:L200-L210 and net/http/server.go:L100-L101.",
			wantAnswer:  "Handled at " + Removed + " and net/http/server.go:L100-L101.",
			wantCites:   []Citation{{"net/http/server.go", 100, 101, ""}},
			wantDropped: []string{"net/http/server.go:L200-L210"},
		},
		{
			name:        "invented file",
			answer:      "See net/http/transport.go#L5-L9 and internal/auth/jwt.go.",
			wantAnswer:  "See " + Removed + " and " + Removed + ".",
			wantDropped: []string{"net/http/transport.go#L5-L9", "internal/auth/jwt.go"},
		},
		{
			name:      "dotted identifiers are not citations",
			answer:    "Call fmt.Println or http.ListenAndServe, e.g. with os.Args; see README.md:L2-L3.",
			wantCites: []Citation{{"README.md", 2, 3, ""}},
		},
		{
			name:      "markdown link and ./ prefix, repeated once",
			answer:    "[server](./net/http/server.go#L100-L102) and again net/http/server.go:100-102",
			wantCites: []Citation{{"net/http/server.go", 100, 102, ""}},
		},
		{
			name:        "reversed range is read in order; line 0 is outside",
			answer:      "net/http/server.go:L105-L101 net/http/server.go:0",
			wantAnswer:  "net/http/server.go:L105-L101 " + Removed,
			wantCites:   []Citation{{"net/http/server.go", 101, 105, ""}},
			wantDropped: []string{"net/http/server.go:0"},
		},
		{
			name:        "bare file name with a source extension",
			answer:      "Look at main.go and server.go.",
			wantAnswer:  "Look at " + Removed + " and " + Removed + ".",
			wantDropped: []string{"main.go", "server.go"},
		},
		{
			name:   "no citations",
			answer: "I could not find it in the retrieved code.",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Check(tc.answer, pack)
			want := tc.wantAnswer
			if want == "" {
				want = tc.answer
			}
			if got.Answer != want {
				t.Errorf("answer:\n got %q\nwant %q", got.Answer, want)
			}
			if diff := cmp.Diff(tc.wantCites, got.Citations, cmpopts.IgnoreFields(Citation{}, "Text"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("citations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantDropped, got.Dropped, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzCheck(f *testing.F) {
	f.Add("see a/b.go:L1-L2 and c.go#L3 and x.y")
	f.Add("a/b.go:99999999999999999999")
	f.Fuzz(func(t *testing.T, s string) {
		pack := []Span{{Path: "a/b.go", StartLine: 1, EndLine: 5}}
		r := Check(s, pack)
		for _, c := range r.Citations {
			if c.Path != "a/b.go" || c.StartLine < 1 || c.EndLine > 5 || c.StartLine > c.EndLine {
				t.Fatalf("unverified citation kept: %+v", c)
			}
		}
		if len(r.Dropped) == 0 && r.Answer != s {
			t.Fatalf("answer changed without a dropped citation")
		}
	})
}
