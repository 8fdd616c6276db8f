package main

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// corpus is a fake corpus: slash path → file text.
type corpus map[string]string

func (c corpus) read(p string) ([]string, error) {
	s, ok := c[p]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	return strings.Split(s, "\n"), nil
}

// numbered returns a file whose line n (1-based) is lines[n] and whose
// other lines, up to the last numbered one, are blank-ish filler.
func numbered(lines map[int]string) string {
	last := 0
	for n := range lines {
		last = max(last, n)
	}
	out := make([]string, last)
	for i := range out {
		out[i] = "\t// filler"
		if s, ok := lines[i+1]; ok {
			out[i] = s
		}
	}
	return strings.Join(out, "\n")
}

func TestRefind(t *testing.T) {
	t.Parallel()
	lines := []string{"x", "  func F() {", "y", "func F() {", "z", "\tfunc F() {\t"}
	tests := []struct {
		name string
		text string
		near int
		want int
		ok   bool
	}{
		{"exact line", "func F() {", 4, 4, true},
		{"nearest below", "func F() {", 1, 2, true},
		{"nearest above", "func F() {", 9, 6, true},
		{"tie goes to the earlier", "func F() {", 3, 2, true},
		{"absent", "func G() {", 4, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := refind(lines, tt.text, tt.near)
			if got != tt.want || ok != tt.ok {
				t.Errorf("refind(%q, %d) = %d, %v; want %d, %v", tt.text, tt.near, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// shifted is a corpus where three lines were added above everything the
// labels below name (labelled at their old lines).
var shifted = corpus{
	"a/a.go": numbered(map[int]string{
		13: "func F() {",
		15: "\tg()",
		16: "\th := func() {}",
		17: "\th()",
		23: "func g() {",
		33: "type T struct {",
		34: "\tio.Reader",
	}),
	"b/b.go": numbered(map[int]string{
		5:  "type U struct {",
		9:  "type V struct {",
		20: "type W struct {",
	}),
}

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		label  label
		want   label
		broken string // part of the error; "" for none
	}{
		{
			name:  "def want moves with its text",
			label: label{Kind: "def", Query: "F", Want: []location{{Path: "a/a.go", Line: 10, Text: "func F() {"}}},
			want:  label{Kind: "def", Query: "F", Want: []location{{Path: "a/a.go", Line: 13, Text: "func F() {"}}},
		},
		{
			name: "call lines move as far as the caller",
			label: label{Kind: "callees", Query: "F",
				Caller: &location{Path: "a/a.go", Line: 10, Text: "func F() {"},
				Calls: []call{
					{Line: 12, Name: "g", Want: &location{Path: "a/a.go", Line: 20, Text: "func g() {"}},
					{Line: 14, Name: "h"},
				}},
			want: label{Kind: "callees", Query: "F",
				Caller: &location{Path: "a/a.go", Line: 13, Text: "func F() {"},
				Calls: []call{
					{Line: 15, Name: "g", Want: &location{Path: "a/a.go", Line: 23, Text: "func g() {"}},
					{Line: 17, Name: "h"},
				}},
		},
		{
			name: "hierarchy types move",
			label: label{Kind: "hierarchy", Query: "T",
				Type:     &location{Path: "a/a.go", Line: 30, Text: "type T struct {"},
				Subtypes: []typeRef{{Name: "U", location: location{Path: "b/b.go", Line: 4, Text: "type U struct {"}}}},
			want: label{Kind: "hierarchy", Query: "T",
				Type:     &location{Path: "a/a.go", Line: 33, Text: "type T struct {"},
				Subtypes: []typeRef{{Name: "U", location: location{Path: "b/b.go", Line: 5, Text: "type U struct {"}}}},
		},
		{
			name:   "text gone",
			label:  label{Kind: "def", Query: "F", Want: []location{{Path: "a/a.go", Line: 10, Text: "func F(x int) {"}}},
			broken: "no line",
		},
		{
			name:   "file gone",
			label:  label{Kind: "def", Query: "F", Want: []location{{Path: "c/c.go", Line: 10, Text: "func F() {"}}},
			broken: "c/c.go",
		},
		{
			name:   "no text",
			label:  label{Kind: "def", Query: "F", Want: []location{{Path: "a/a.go", Line: 13}}},
			broken: "no text",
		},
		{
			name:   "unknown kind",
			label:  label{Kind: "refs", Query: "F"},
			broken: "unknown kind",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.label
			err := resolve(&l, shifted.read)
			if tt.broken != "" {
				if err == nil || !strings.Contains(err.Error(), tt.broken) {
					t.Fatalf("resolve: error %v, want one containing %q", err, tt.broken)
				}
				return
			}
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			if diff := cmp.Diff(tt.want, l, cmp.AllowUnexported(typeRef{})); diff != "" {
				t.Errorf("resolved label (-want +got):\n%s", diff)
			}
		})
	}
}

// resolved returns l resolved against shifted, failing t if it is broken.
func resolved(t *testing.T, l label) label {
	t.Helper()
	if err := resolve(&l, shifted.read); err != nil {
		t.Fatalf("resolve: %v", err)
	}
	return l
}

func TestScoreDef(t *testing.T) {
	t.Parallel()
	// Labelled before the shift: F at 10 in a/a.go, and V at 9 in b/b.go.
	l := label{Kind: "def", Query: "F", Want: []location{
		{Path: "a/a.go", Line: 10, Text: "func F() {"},
		{Path: "b/b.go", Line: 9, Text: "type V struct {"},
	}}
	tests := []struct {
		name   string
		answer string
		want   defScore
	}{
		{
			name: "first right after the lines shifted, one of two wants",
			answer: `{"definitions":[
				{"path":"a/a.go","start_line":11,"end_line":20,"symbol":"F","kind":"function","confidence":1,"resolution":"exact"},
				{"path":"b/b.go","start_line":1,"end_line":4,"symbol":"F","kind":"function","confidence":0.5}]}`,
			want: defScore{Returned: 2, Correct: true, Confident: true, Wants: 2, Covered: 1},
		},
		{
			name: "confidently wrong",
			answer: `{"definitions":[
				{"path":"a/a.go","start_line":1,"end_line":10,"symbol":"F","kind":"function","confidence":1},
				{"path":"a/a.go","start_line":13,"end_line":20,"symbol":"F","kind":"function","confidence":0.9},
				{"path":"b/b.go","start_line":9,"end_line":12,"symbol":"V","kind":"struct","confidence":0.9}]}`,
			want: defScore{Returned: 3, Confident: true, ConfidentlyWrong: true, Wants: 2, Covered: 2},
		},
		{
			name: "wrong but not confident, no resolution field",
			answer: `{"definitions":[
				{"path":"b/b.go","start_line":1,"end_line":8,"symbol":"F","kind":"function","confidence":0.9}]}`,
			want: defScore{Returned: 1, Wants: 2},
		},
		{
			name:   "nothing",
			answer: `{"definitions":[]}`,
			want:   defScore{Wants: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &result{Label: resolved(t, l)}
			r.score([]byte(tt.answer))
			if r.Error != "" {
				t.Fatal(r.Error)
			}
			got := *r.Def
			got.First = nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("score (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScoreCallees(t *testing.T) {
	t.Parallel()
	// Labelled before the shift: F's calls of g (linkable) and h (a
	// function value, want null).
	l := label{Kind: "callees", Query: "F",
		Caller: &location{Path: "a/a.go", Line: 10, Text: "func F() {"},
		Calls: []call{
			{Line: 12, Name: "g", Want: &location{Path: "a/a.go", Line: 20, Text: "func g() {"}},
			{Line: 14, Name: "h"},
		}}
	gWant := &location{Path: "a/a.go", Line: 23, Text: "func g() {"}
	tests := []struct {
		name   string
		answer string
		want   calleesScore
	}{
		{
			name: "g linked right, h linked where nothing may be (wrong)",
			answer: `{"definition":{"path":"a/a.go","start_line":13,"end_line":18,"symbol":"F"},
				"callees":[
				{"name":"g","line":15,"confidence":1,"target":{"path":"a/a.go","start_line":23,"end_line":25,"symbol":"g"}},
				{"name":"h","line":17,"confidence":0.9,"target":{"path":"b/b.go","start_line":1,"end_line":3,"symbol":"h"}},
				{"name":"unlabelled","line":16,"target":{"path":"b/b.go","start_line":1,"end_line":3}}]}`,
			want: calleesScore{CallerRight: true, Labelled: 2, WithWant: 1, Links: 2, CorrectLinks: 1,
				Calls: []callScore{
					{Name: "g", Line: 15, Want: gWant, Listed: true, ListedLine: 15, Correct: true,
						Target: &target{span: span{"a/a.go", 23, 25}, Symbol: "g"}},
					{Name: "h", Line: 17, Listed: true, ListedLine: 17,
						Target: &target{span: span{"b/b.go", 1, 3}, Symbol: "h"}},
				}},
		},
		{
			name: "older ctx: a name once at its first call, no target, no definition",
			answer: `{"callees":[
				{"name":"g","line":14,"definition":"a/a.go:21","confidence":0.5},
				{"name":"h","line":17,"target":null}]}`,
			want: calleesScore{Labelled: 2, WithWant: 1, ByNameOnly: 1, LegacyOnly: 1,
				Calls: []callScore{
					{Name: "g", Line: 15, Want: gWant, Listed: true, ListedLine: 14, ByNameOnly: true},
					{Name: "h", Line: 17, Listed: true, ListedLine: 17},
				}},
		},
		{
			name: "wrong caller: no call is matched",
			answer: `{"definition":{"path":"b/b.go","start_line":1,"end_line":30,"symbol":"F"},
				"callees":[{"name":"g","line":15,"target":{"path":"a/a.go","start_line":23,"end_line":25}}]}`,
			want: calleesScore{Labelled: 2, WithWant: 1,
				Calls: []callScore{{Name: "g", Line: 15, Want: gWant}, {Name: "h", Line: 17}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &result{Label: resolved(t, l)}
			r.score([]byte(tt.answer))
			if r.Error != "" {
				t.Fatal(r.Error)
			}
			got := *r.Callees
			got.Caller = nil
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(target{})); diff != "" {
				t.Errorf("score (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScoreHierarchy(t *testing.T) {
	t.Parallel()
	// T embeds io.Reader; U and W (in b/b.go) embed T.
	l := label{Kind: "hierarchy", Query: "T",
		Type:       &location{Path: "a/a.go", Line: 30, Text: "type T struct {"},
		Supertypes: []typeRef{{Name: "Reader", location: location{Path: "a/a.go", Line: 34, Text: "io.Reader"}}},
		Subtypes: []typeRef{
			{Name: "U", location: location{Path: "b/b.go", Line: 5, Text: "type U struct {"}},
			{Name: "W", location: location{Path: "b/b.go", Line: 20, Text: "type W struct {"}},
		}}
	answer := `{"definition":{"path":"a/a.go","start_line":31,"end_line":36},
		"supertypes":[
			{"type":"T","base":"Reader","relation":"embeds","path":"a/a.go","line":33},
			{"type":"T","base":"Reader","relation":"embeds","path":"a/a.go","line":33,"base_path":"bufio/bufio.go","base_line":40}],
		"subtypes":[
			{"type":"U","base":"T","relation":"embeds","path":"b/b.go","line":3,"end_line":7},
			{"type":"V","base":"T","relation":"embeds","path":"b/b.go","line":9},
			{"type":"W","base":"T","relation":"embeds","path":"c/c.go","line":20}]}`
	r := &result{Label: resolved(t, l)}
	r.score([]byte(answer))
	if r.Error != "" {
		t.Fatal(r.Error)
	}
	right := true
	want := hierarchyScore{
		TypeRight: &right, Returned: 5, Correct: 2, Labelled: 3, Found: 2,
		Wrong: []wrongLink{
			{"supertype", typeLink{Type: "T", Base: "Reader", Relation: "embeds", Path: "a/a.go", Line: 33, BasePath: "bufio/bufio.go", BaseLine: 40}},
			{"subtype", typeLink{Type: "V", Base: "T", Relation: "embeds", Path: "b/b.go", Line: 9}},
			{"subtype", typeLink{Type: "W", Base: "T", Relation: "embeds", Path: "c/c.go", Line: 20}},
		},
		Missing: []missingType{{"subtype", typeRef{Name: "W", location: location{Path: "b/b.go", Line: 20, Text: "type W struct {"}}}},
	}
	got := *r.Hierarchy
	got.Definition = nil
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(wrongLink{}, missingType{}, typeRef{})); diff != "" {
		t.Errorf("score (-want +got):\n%s", diff)
	}
}

func TestSubtypeMatches(t *testing.T) {
	t.Parallel()
	u := typeRef{Name: "U", location: location{Path: "b/b.go", Line: 5}}
	tests := []struct {
		name string
		link typeLink
		want bool
	}{
		{"same line", typeLink{Type: "U", Path: "b/b.go", Line: 5}, true},
		{"span from the doc comment", typeLink{Type: "U", Path: "b/b.go", Line: 3, EndLine: 8}, true},
		{"span ends before", typeLink{Type: "U", Path: "b/b.go", Line: 1, EndLine: 4}, false},
		{"starts after", typeLink{Type: "U", Path: "b/b.go", Line: 6}, false},
		{"other path", typeLink{Type: "U", Path: "c/b.go", Line: 5}, false},
		{"other name", typeLink{Type: "V", Path: "b/b.go", Line: 5}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := subtypeMatches(tt.link, u); got != tt.want {
				t.Errorf("subtypeMatches(%v) = %v, want %v", tt.link, got, tt.want)
			}
		})
	}
}

func TestTally(t *testing.T) {
	t.Parallel()
	tl := newTally()
	tl.add(&result{Label: label{Kind: "def"}, Broken: "gone"})
	tl.add(&result{Label: label{Kind: "def"}, Error: "ctx def: exit status 1", Def: &defScore{Wants: 1}})
	tl.add(&result{Label: label{Kind: "def"}, Def: &defScore{Returned: 1, Wants: 2, Covered: 2, Correct: true, Confident: true}})
	tl.add(&result{Label: label{Kind: "def"}, Def: &defScore{Returned: 1, Wants: 1, Confident: true, ConfidentlyWrong: true}})
	got := []any{tl.defN, tl.defTop1, tl.defWants, tl.defCovered, tl.defConfident, tl.defConfWrong, tl.broken["def"], tl.errors["def"]}
	want := []any{3, 1, 4, 2, 2, 1, 1, 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tally (-want +got):\n%s", diff)
	}
	if got, want := frac(tl.defTop1, tl.defN), "0.33 (1/3)"; got != want {
		t.Errorf("frac = %q, want %q", got, want)
	}
	if got := frac(1, 0); got != "-" {
		t.Errorf("frac(1, 0) = %q, want -", got)
	}
}

func TestScoreUndecodable(t *testing.T) {
	t.Parallel()
	r := &result{Label: label{Kind: "def", Want: []location{{Path: "a/a.go", Line: 1}}}}
	r.score([]byte(`{"definitions":"oops"}`))
	if r.Error == "" || r.Def == nil || r.Def.Correct {
		t.Errorf("undecodable answer: error %q, score %+v; want an error and a wrong empty answer", r.Error, r.Def)
	}
}

func TestScoreCallers(t *testing.T) {
	t.Parallel()
	l := &label{Kind: "callers", Query: "(*conn).serve", CalleeTop: 95,
		Callee: &location{Path: "net/http/server.go", Line: 100},
		Sites: []site{
			{location: location{Path: "net/http/server.go", Line: 300}, Caller: "(*Server).Serve"},
			{location: location{Path: "net/http/serve_test.go", Line: 40}, Caller: "TestServe"},
		}}
	var a refsAnswer
	add := func(p string, line int, kind, def string, conf float64) {
		a.References = append(a.References, struct {
			Path       string  `json:"path"`
			Line       int     `json:"line"`
			Kind       string  `json:"kind"`
			Definition string  `json:"definition"`
			Confidence float64 `json:"confidence"`
		}{p, line, kind, def, conf})
	}
	add("net/http/server.go", 300, "call", "net/http/server.go:95", 1) // right: the chunk starts at the doc comment
	add("net/http/serve_test.go", 40, "call", "", 0)                   // a site, listed but not linked
	add("net/rpc/server.go", 10, "call", "net/http/server.go:95", 0.5) // linked at no site
	add("net/http/server.go", 200, "call", "net/http/server.go:20", 1) // linked to another definition of the file
	add("net/http/server.go", 100, "definition", "net/http/server.go:100", 1)
	s := scoreCallers(l, &a)
	want := &callersScore{Sites: 2, Listed: 4, ListedRight: 2, Linked: 2, LinkedRight: 1,
		Missed: []location{{Path: "net/http/serve_test.go", Line: 40}},
		Wrong:  []location{{Path: "net/rpc/server.go", Line: 10}}}
	if d := cmp.Diff(want, s); d != "" {
		t.Errorf("scoreCallers (-want +got):\n%s", d)
	}
}
