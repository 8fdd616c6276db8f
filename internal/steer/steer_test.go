package steer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/analyze"
)

func TestComplex(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"io.Reader":     false,
		"where is auth": false,
		"how does the server close idle connections and where is the timeout configured": true,
	} {
		if got := Complex(analyze.Analyze(q)); got != want {
			t.Errorf("Complex(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestParseSubQueries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, reply string
		want        []string
		wantErr     bool
	}{
		{"object", `{"queries": ["idle connection close", "server timeout config"]}`, []string{"idle connection close", "server timeout config"}, false},
		{"fenced", "```json\n{\"queries\": [\"a b\"]}\n```", []string{"a b"}, false},
		{"array", `["x y", "X  Y", ""]`, []string{"x y"}, false},
		{"lines", "1. idle timeout\n- keep alive\n", []string{"idle timeout", "keep alive"}, false},
		{"capped", `{"queries": ["a","b","c","d"]}`, []string{"a", "b", "c"}, false},
		{"empty", `{"queries": []}`, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSubQueries(tc.reply)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseSummaries(t *testing.T) {
	t.Parallel()
	got, err := ParseSummaries("Here:\n{\"summaries\": [\"Closes idle\\nconnections.\", \""+strings.Repeat("é", 200)+"\"]}", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != "Closes idle connections." || len(got[1]) > maxSummaryBytes+len("…") || !strings.HasSuffix(got[1], "…") {
		t.Errorf("got %q", got)
	}
	if _, err := ParseSummaries(`{"summaries": ["one"]}`, 2); err == nil {
		t.Error("a count mismatch was accepted")
	}
	if _, err := ParseSummaries(`not json`, 1); err == nil {
		t.Error("prose was accepted")
	}
}

func TestAnswerPromptCitationForm(t *testing.T) {
	t.Parallel()
	_, user := AnswerPrompt("how?", []Excerpt{{Path: "a/b.go", StartLine: 3, EndLine: 9, Language: "go", Code: "x := \"```\"\n"}})
	if !strings.Contains(user, "### a/b.go:L3-L9\n````go\nx := \"```\"\n````\n") {
		t.Errorf("excerpt not rendered with its citation heading and a longer fence:\n%s", user)
	}
}
