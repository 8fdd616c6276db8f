// Command symbol-eval scores `ctx def`, `ctx callees`, `ctx hierarchy` and
// `ctx refs` (callers) against hand-checked labels
// (scripts/symbol-eval/labels/*.json; the format is in labels/README.md).
//
// # Running
//
//	go build -o bin/ctx ./cmd/ctx && go run ./scripts/symbol-eval -ctx bin/ctx
//	go run ./scripts/symbol-eval -ctx bin/ctx -corpus goroot,gson -index -v -json /tmp/symbol-eval.json
//
// Corpus "goroot" is $(go env GOROOT)/src; any other name is a semble
// repository, <checkouts>/<name>/<benchmark_root> with benchmark_root
// from -repos (no root: the whole checkout). A corpus whose directory is
// missing is skipped with a note. Every ctx command runs in the corpus
// directory with --repo set to it (so an enclosing git work tree is not
// taken for the root); -index runs `ctx index` there first, otherwise
// the existing index is used and a missing one (ctx exit status 4) skips
// the corpus with a note naming -index.
//
// Before scoring, every labelled location is re-found in the corpus by its
// text: the line whose trimmed text equals it, the occurrence nearest the
// labelled line. A callees label's call lines move as far as its caller
// did. A label with a location that cannot be re-found is broken: it is
// listed, counted, and left out of the scores.
//
// # Scores
//
//   - def (`ctx def --json -n 10 QUERY [--hint HINT]`): p@1, the first
//     definition's path is a wanted path and its span holds the wanted
//     line; recall, the share of wanted locations some returned definition
//     holds (summed over lookups); and the trust number, first answers with
//     confidence 1.0 that are wrong ("confidently wrong").
//   - callees (`ctx callees --json QUERY [--hint HINT]`): the caller is
//     right when the answer's definition holds the labelled caller. Each
//     labelled call is matched to the returned callee with its name and
//     line, else (a tool that lists a name once, at its first call) to the
//     callee with its name nearest that line, which -v marks "by name
//     only". When the answer's definition is the wrong function no call is
//     matched. A matched callee with a target is a link; it is correct when
//     the call wants a location and the target's span holds it (a link for
//     a want:null call is wrong). Link precision is correct links over
//     links made on labelled calls, link recall correct links over
//     labelled calls with a want; unlabelled callees are ignored. A callee
//     without a target (or with only the older `definition` string) is
//     unlinked.
//   - hierarchy (`ctx hierarchy --json QUERY`): a subtype link is correct
//     when a labelled subtype has its type name and path and the link's
//     span (line, and end_line when present) holds the labelled line; a
//     supertype link when a labelled supertype has its base name and, when
//     the link has a base_path, that path. Precision is correct links over
//     returned ones and recall found labels over labelled ones, summed over
//     lookups.
//   - callers (`ctx refs --json --kind call -n 5000 QUERY [--hint HINT]`):
//     a returned call reference is linked to the callee when its
//     definition is in the callee's file, on its declaration line or on
//     a comment line directly above it, or above one blank line under a
//     "/** */" block (the chunk starts at the doc comment).
//     Link precision is linked references at a labelled call site over
//     linked references; link recall labelled sites with a linked
//     reference over labelled sites; listed precision is call references
//     at a labelled site over all call references returned, linked or not.
//
// A lookup on which ctx fails (a non-zero exit other than 4, or output
// that does not decode) is counted as an error and scored as an empty
// answer. The report is a table per command with a row per corpus and
// one for all; -v lists every miss first, and -json FILE writes every
// lookup's result. Progress and skipped corpora go to stderr. Exit
// status: 0 unless ctx or the labels could not be used at all (1).
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/ctx-dev/ctx/scripts/internal/ctxproc"
)

// options are the command's flags.
type options struct {
	ctxBin    string
	labels    string
	checkouts string
	repos     string
	corpora   string
	index     bool
	verbose   bool
	jsonFile  string
}

func main() {
	var o options
	flag.StringVar(&o.ctxBin, "ctx", "bin/ctx", "ctx binary (build it with: go build -o bin/ctx ./cmd/ctx)")
	flag.StringVar(&o.labels, "labels", "", "directory of label files (default: scripts/symbol-eval/labels in the module)")
	flag.StringVar(&o.checkouts, "checkouts", "/work/checkouts", "directory holding one checkout per semble repository")
	flag.StringVar(&o.repos, "repos", "", "semble repos.json, for benchmark_root (default: ../shared/bench/semble/repos.json from the module root)")
	flag.StringVar(&o.corpora, "corpus", "", "comma-separated corpora to score (default: every corpus the labels name)")
	flag.BoolVar(&o.index, "index", false, "run `ctx index` in each corpus directory first")
	flag.BoolVar(&o.verbose, "v", false, "list every miss")
	flag.StringVar(&o.jsonFile, "json", "", "write every lookup's result to this file")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./scripts/symbol-eval -ctx bin/ctx [flags]\n\nBuild ctx first: go build -o bin/ctx ./cmd/ctx\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &o, os.Stdout)
	stop()
	os.Exit(code)
}

// logf reports progress and skipped work on stderr.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "symbol-eval: %s\n", fmt.Sprintf(format, args...))
}

// location is a labelled line: a declaration, by path (slash, relative to
// the corpus directory), 1-based line and trimmed text.
type location struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text,omitempty"`
}

func (l location) String() string { return fmt.Sprintf("%s:%d", l.Path, l.Line) }

// typeRef is a labelled supertype or subtype.
type typeRef struct {
	Name string `json:"name"`
	location
}

// call is a labelled call site in the caller's file; Want is nil when
// nothing in the corpus may be linked.
type call struct {
	Line int       `json:"line"`
	Name string    `json:"name"`
	Want *location `json:"want"`
}

// site is a labelled call site of a callers label: its location (the
// line of the called name) and the function that holds it.
type site struct {
	location
	Caller string `json:"caller"`
}

// label is one entry of a labels file.
type label struct {
	Corpus     string     `json:"corpus"`
	Kind       string     `json:"kind"`
	Query      string     `json:"query"`
	Hint       string     `json:"hint,omitempty"`
	Want       []location `json:"want,omitempty"`
	Caller     *location  `json:"caller,omitempty"`
	Calls      []call     `json:"calls,omitempty"`
	Type       *location  `json:"type,omitempty"`
	Supertypes []typeRef  `json:"supertypes,omitempty"`
	Subtypes   []typeRef  `json:"subtypes,omitempty"`
	Callee     *location  `json:"callee,omitempty"`
	Sites      []site     `json:"sites,omitempty"`
	// CalleeTop is the first line of the comment lines directly above
	// the callee's declaration, or one blank line above for a "/** */"
	// block (its line when none): where ctx's chunk of it, and so a
	// reference's link, may start. Set when the label is resolved
	// against the corpus.
	CalleeTop int `json:"callee_top,omitempty"`

	// Source is the labels file and the entry's index, for messages.
	Source string `json:"source"`
}

// span is a stretch of lines in a file, as ctx reports definitions.
type span struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}

// holds reports whether s is in l's file and covers its line. A missing
// end line is taken to be the start line.
func (s span) holds(l location) bool {
	end := max(s.EndLine, s.StartLine)
	return s.Path != "" && s.Path == l.Path && s.StartLine <= l.Line && l.Line <= end
}

func (s span) String() string { return fmt.Sprintf("%s:%d-%d", s.Path, s.StartLine, s.EndLine) }

// definition is one definition in a ctx answer.
type definition struct {
	span
	Symbol     string  `json:"symbol"`
	Kind       string  `json:"kind"`
	Confidence float64 `json:"confidence"`
	Resolution string  `json:"resolution,omitempty"`
}

func (d definition) String() string {
	s := fmt.Sprintf("%s %s %s conf=%.2f", d.span, d.Kind, d.Symbol, d.Confidence)
	if d.Resolution != "" {
		s += " res=" + d.Resolution
	}
	return s
}

// defAnswer is the output of `ctx def --json`.
type defAnswer struct {
	Definitions []definition `json:"definitions"`
}

// target is the definition a callee links to.
type target struct {
	span
	Symbol string `json:"symbol"`
}

// callee is one call in a `ctx callees --json` answer. Legacy is the
// older `definition` string (path and first line, no span), which is not
// scored.
type callee struct {
	Name       string  `json:"name"`
	Line       int     `json:"line"`
	Confidence float64 `json:"confidence"`
	Resolution string  `json:"resolution,omitempty"`
	Target     *target `json:"target"`
	Legacy     string  `json:"definition"`
}

// linked reports whether c links to a definition.
func (c *callee) linked() bool { return c.Target != nil && c.Target.Path != "" }

// calleesAnswer is the output of `ctx callees --json`.
type calleesAnswer struct {
	Definition *definition `json:"definition"`
	Callees    []callee    `json:"callees"`
}

// typeLink is one supertype or subtype in a `ctx hierarchy --json` answer.
type typeLink struct {
	Type     string `json:"type"`
	Base     string `json:"base"`
	Relation string `json:"relation"`
	Path     string `json:"path"`
	Line     int    `json:"line"`
	EndLine  int    `json:"end_line,omitempty"`
	BasePath string `json:"base_path,omitempty"`
	BaseLine int    `json:"base_line,omitempty"`
}

func (k typeLink) String() string {
	s := fmt.Sprintf("%s %s %s (%s:%d", k.Type, k.Relation, k.Base, k.Path, k.Line)
	if k.EndLine > 0 {
		s += fmt.Sprintf("-%d", k.EndLine)
	}
	if k.BasePath != "" {
		s += fmt.Sprintf("; base %s:%d", k.BasePath, k.BaseLine)
	}
	return s + ")"
}

// hierarchyAnswer is the output of `ctx hierarchy --json`.
type hierarchyAnswer struct {
	Definition *definition `json:"definition"`
	Supertypes []typeLink  `json:"supertypes"`
	Subtypes   []typeLink  `json:"subtypes"`
}

// refind returns the 1-based line of lines whose trimmed text is text's,
// the one nearest near (the earlier on a tie); ok is false when there is
// none.
func refind(lines []string, text string, near int) (line int, ok bool) {
	text = strings.TrimSpace(text)
	best := math.MaxInt
	for i, s := range lines {
		if strings.TrimSpace(s) != text {
			continue
		}
		if d := abs(i + 1 - near); d < best {
			best, line, ok = d, i+1, true
		}
	}
	return line, ok
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// resolve checks l and re-finds each of its locations by its text in
// place, reading files with read (slash path → lines); call lines move as
// far as the caller. The error says why the label is broken.
func resolve(l *label, read func(path string) ([]string, error)) error {
	fix := func(what string, loc *location) error {
		if loc.Path == "" || strings.TrimSpace(loc.Text) == "" {
			return fmt.Errorf("%s %s has no path or no text", what, loc)
		}
		lines, err := read(loc.Path)
		if err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
		line, ok := refind(lines, loc.Text, loc.Line)
		if !ok {
			return fmt.Errorf("%s %s: no line %q in the corpus", what, loc, loc.Text)
		}
		loc.Line = line
		return nil
	}
	if l.Query == "" {
		return errors.New("no query")
	}
	switch l.Kind {
	case "def":
		if len(l.Want) == 0 {
			return errors.New("def label wants nothing")
		}
		for i := range l.Want {
			if err := fix("want", &l.Want[i]); err != nil {
				return err
			}
		}
	case "callees":
		if l.Caller == nil {
			return errors.New("callees label has no caller")
		}
		was := l.Caller.Line
		if err := fix("caller", l.Caller); err != nil {
			return err
		}
		for i := range l.Calls {
			c := &l.Calls[i]
			c.Line += l.Caller.Line - was
			if c.Want != nil {
				if err := fix("call "+c.Name, c.Want); err != nil {
					return err
				}
			}
		}
	case "callers":
		if l.Callee == nil {
			return errors.New("callers label has no callee")
		}
		if err := fix("callee", l.Callee); err != nil {
			return err
		}
		lines, _ := read(l.Callee.Path)
		l.CalleeTop = l.Callee.Line
		at := func(n int) string { // line n, 1-based
			if n < 1 || n > len(lines) {
				return ""
			}
			return strings.TrimSpace(lines[n-1])
		}
		if at(l.CalleeTop-1) == "" && strings.HasSuffix(at(l.CalleeTop-2), "*/") {
			l.CalleeTop-- // a JSDoc block one blank line above
		}
		for l.CalleeTop > 1 && isCommentLine(at(l.CalleeTop-1)) {
			l.CalleeTop--
		}
		for i := range l.Sites {
			if err := fix("site in "+l.Sites[i].Caller, &l.Sites[i].location); err != nil {
				return err
			}
		}
	case "hierarchy":
		if l.Type != nil {
			if err := fix("type", l.Type); err != nil {
				return err
			}
		}
		for k, ts := range [][]typeRef{l.Supertypes, l.Subtypes} {
			for i := range ts {
				if k == 0 && ts[i].Path == "" {
					continue // a supertype outside the corpus: its name only
				}
				if err := fix("type "+ts[i].Name, &ts[i].location); err != nil {
					return err
				}
			}
		}
	default:
		return fmt.Errorf("unknown kind %q", l.Kind)
	}
	return nil
}

// defScore is how one def answer scored.
type defScore struct {
	Returned int         `json:"returned"`
	First    *definition `json:"first,omitempty"`
	Correct  bool        `json:"correct"` // the first definition
	// Confident is a first answer with confidence 1.0.
	Confident        bool `json:"confident"`
	ConfidentlyWrong bool `json:"confidently_wrong"`
	Wants            int  `json:"wants"`
	Covered          int  `json:"covered"` // wants some returned definition holds
}

// scoreDef scores a def answer against l.
func scoreDef(l *label, a *defAnswer) *defScore {
	s := &defScore{Returned: len(a.Definitions), Wants: len(l.Want)}
	for _, w := range l.Want {
		if slices.ContainsFunc(a.Definitions, func(d definition) bool { return d.holds(w) }) {
			s.Covered++
		}
	}
	if len(a.Definitions) > 0 {
		first := a.Definitions[0]
		s.First = &first
		s.Correct = slices.ContainsFunc(l.Want, first.holds)
		s.Confident = first.Confidence >= 1
		s.ConfidentlyWrong = s.Confident && !s.Correct
	}
	return s
}

// callScore is how one labelled call scored.
type callScore struct {
	Name string    `json:"name"`
	Line int       `json:"line"`
	Want *location `json:"want"`
	// Listed: the answer has a callee for the call; ListedLine is its line.
	Listed     bool `json:"listed"`
	ListedLine int  `json:"listed_line,omitempty"`
	// ByNameOnly: matched by name, no callee had the call's line.
	ByNameOnly bool    `json:"by_name_only,omitempty"`
	Target     *target `json:"target,omitempty"` // the link made, if any
	Correct    bool    `json:"correct"`
}

// calleesScore is how one callees answer scored.
type calleesScore struct {
	Caller      *definition `json:"caller,omitempty"`
	CallerRight bool        `json:"caller_right"`
	Calls       []callScore `json:"calls"`
	// Labelled calls, those of them with a want, links made on them,
	// correct links, and calls matched by name only.
	Labelled     int `json:"labelled"`
	WithWant     int `json:"with_want"`
	Links        int `json:"links"`
	CorrectLinks int `json:"correct_links"`
	ByNameOnly   int `json:"by_name_only"`
	// LegacyOnly counts returned callees with the older `definition`
	// string but no target.
	LegacyOnly int `json:"legacy_only,omitempty"`
}

// matchCallee returns the callee for a labelled call: the one with its
// name and line, else the one with its name nearest its line (byName).
func matchCallee(cs []callee, c call) (got *callee, byName bool) {
	best := math.MaxInt
	for i := range cs {
		if cs[i].Name != c.Name {
			continue
		}
		if cs[i].Line == c.Line {
			return &cs[i], false
		}
		if d := abs(cs[i].Line - c.Line); d < best {
			best, got = d, &cs[i]
		}
	}
	return got, got != nil
}

// scoreCallees scores a callees answer against l.
func scoreCallees(l *label, a *calleesAnswer) *calleesScore {
	s := &calleesScore{Labelled: len(l.Calls), Calls: []callScore{}}
	wrongCaller := false
	if a.Definition != nil && a.Definition.Path != "" {
		s.Caller = a.Definition
		s.CallerRight = a.Definition.holds(*l.Caller)
		wrongCaller = !s.CallerRight
	}
	for _, c := range a.Callees {
		if !c.linked() && c.Legacy != "" {
			s.LegacyOnly++
		}
	}
	for _, c := range l.Calls {
		cs := callScore{Name: c.Name, Line: c.Line, Want: c.Want}
		if c.Want != nil {
			s.WithWant++
		}
		if !wrongCaller {
			if got, byName := matchCallee(a.Callees, c); got != nil {
				cs.Listed, cs.ListedLine, cs.ByNameOnly = true, got.Line, byName
				if byName {
					s.ByNameOnly++
				}
				if got.linked() {
					cs.Target = got.Target
					cs.Correct = c.Want != nil && got.Target.holds(*c.Want)
					s.Links++
					if cs.Correct {
						s.CorrectLinks++
					}
				}
			}
		}
		s.Calls = append(s.Calls, cs)
	}
	return s
}

// hierarchyScore is how one hierarchy answer scored.
type hierarchyScore struct {
	Definition *definition `json:"definition,omitempty"`
	// TypeRight is set when the answer has a definition and the label a
	// type: whether the one holds the other.
	TypeRight *bool         `json:"type_right,omitempty"`
	Returned  int           `json:"returned"`
	Correct   int           `json:"correct"`
	Labelled  int           `json:"labelled"`
	Found     int           `json:"found"`
	Wrong     []wrongLink   `json:"wrong,omitempty"`
	Missing   []missingType `json:"missing,omitempty"`
}

// wrongLink is a returned link no label matches; Dir is "supertype" or
// "subtype".
type wrongLink struct {
	Dir string `json:"dir"`
	typeLink
}

// missingType is a labelled type no returned link matches.
type missingType struct {
	Dir string `json:"dir"`
	typeRef
}

// subtypeMatches reports whether link k is the labelled subtype t.
func subtypeMatches(k typeLink, t typeRef) bool {
	return t.Name == k.Type && t.Path == k.Path && k.Line <= t.Line && (k.EndLine == 0 || t.Line <= k.EndLine)
}

// supertypeMatches reports whether link k is the labelled supertype t.
func supertypeMatches(k typeLink, t typeRef) bool {
	return t.Name == k.Base && (k.BasePath == "" || t.Path == k.BasePath)
}

// scoreHierarchy scores a hierarchy answer against l.
func scoreHierarchy(l *label, a *hierarchyAnswer) *hierarchyScore {
	s := &hierarchyScore{
		Returned: len(a.Supertypes) + len(a.Subtypes),
		Labelled: len(l.Supertypes) + len(l.Subtypes),
	}
	if a.Definition != nil && a.Definition.Path != "" {
		s.Definition = a.Definition
		if l.Type != nil {
			right := a.Definition.holds(*l.Type)
			s.TypeRight = &right
		}
	}
	match := func(dir string, links []typeLink, labels []typeRef, matches func(typeLink, typeRef) bool) {
		found := make([]bool, len(labels))
		for _, k := range links {
			hit := -1
			for i, t := range labels {
				if matches(k, t) && (hit < 0 || found[hit] && !found[i]) {
					hit = i
				}
			}
			if hit < 0 {
				s.Wrong = append(s.Wrong, wrongLink{dir, k})
				continue
			}
			s.Correct++
			found[hit] = true
		}
		for i, t := range labels {
			if found[i] {
				s.Found++
			} else {
				s.Missing = append(s.Missing, missingType{dir, t})
			}
		}
	}
	match("supertype", a.Supertypes, l.Supertypes, supertypeMatches)
	match("subtype", a.Subtypes, l.Subtypes, subtypeMatches)
	return s
}

// result is one lookup: its label (locations re-found) and how it scored.
type result struct {
	Label label `json:"label"`
	// Broken says why the label was left out of the scores.
	Broken string `json:"broken,omitempty"`
	// Error says how ctx failed; the lookup is scored as an empty answer.
	Error     string          `json:"error,omitempty"`
	Def       *defScore       `json:"def,omitempty"`
	Callees   *calleesScore   `json:"callees,omitempty"`
	Hierarchy *hierarchyScore `json:"hierarchy,omitempty"`
	Callers   *callersScore   `json:"callers,omitempty"`
}

// score decodes ctx's output for r's label (nil after a failed run, which
// scores as an empty answer) and scores it.
func (r *result) score(out []byte) {
	decode := func(v any) {
		if out == nil {
			return
		}
		if err := json.Unmarshal(out, v); err != nil {
			r.Error = fmt.Sprintf("decoding ctx %s output: %v", r.Label.Kind, err)
		}
	}
	switch r.Label.Kind {
	case "def":
		var a defAnswer
		decode(&a)
		r.Def = scoreDef(&r.Label, &a)
	case "callees":
		var a calleesAnswer
		decode(&a)
		r.Callees = scoreCallees(&r.Label, &a)
	case "hierarchy":
		var a hierarchyAnswer
		decode(&a)
		r.Hierarchy = scoreHierarchy(&r.Label, &a)
	case "callers":
		var a refsAnswer
		decode(&a)
		r.Callers = scoreCallers(&r.Label, &a)
	}
}

// refsAnswer is the output of `ctx refs --json`.
type refsAnswer struct {
	References []struct {
		Path       string  `json:"path"`
		Line       int     `json:"line"`
		Kind       string  `json:"kind"`
		Definition string  `json:"definition"`
		Confidence float64 `json:"confidence"`
	} `json:"references"`
}

// isCommentLine reports whether a line is part of a comment or an
// annotation above a declaration.
func isCommentLine(line string) bool {
	t := strings.TrimSpace(line)
	for _, p := range []string{"//", "/*", "*", "#", "@", "///"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// callersScore is how one callers answer scored.
type callersScore struct {
	Sites  int `json:"sites"`  // labelled call sites
	Listed int `json:"listed"` // call references returned
	// ListedRight: returned call references at a labelled site.
	ListedRight int `json:"listed_right"`
	// Linked: returned call references linked to the callee; LinkedRight
	// those at a labelled site.
	Linked      int        `json:"linked"`
	LinkedRight int        `json:"linked_right"`
	Missed      []location `json:"missed,omitempty"` // sites not linked
	Wrong       []location `json:"wrong,omitempty"`  // links at no site
}

// scoreCallers scores a `ctx refs --kind call` answer against l.
func scoreCallers(l *label, a *refsAnswer) *callersScore {
	s := &callersScore{Sites: len(l.Sites)}
	isSite := map[string]bool{}
	for _, st := range l.Sites {
		isSite[fmt.Sprintf("%s:%d", st.Path, st.Line)] = true
	}
	linkedSites := map[string]bool{}
	for _, r := range a.References {
		if r.Kind != "call" {
			continue
		}
		key := fmt.Sprintf("%s:%d", r.Path, r.Line)
		s.Listed++
		s.ListedRight += b2i(isSite[key])
		p, ln, ok := strings.Cut(r.Definition, ":")
		line, err := strconv.Atoi(ln)
		if !ok || err != nil || r.Confidence <= 0 || p != l.Callee.Path || line > l.Callee.Line || line < min(l.CalleeTop, l.Callee.Line) {
			continue
		}
		s.Linked++
		if isSite[key] {
			s.LinkedRight++
			linkedSites[key] = true
		} else {
			s.Wrong = append(s.Wrong, location{Path: r.Path, Line: r.Line})
		}
	}
	for _, st := range l.Sites {
		if !linkedSites[fmt.Sprintf("%s:%d", st.Path, st.Line)] {
			s.Missed = append(s.Missed, st.location)
		}
	}
	return s
}

// tally sums the results of one corpus (or all).
type tally struct {
	broken, errors map[string]int // by kind

	defN, defTop1, defWants, defCovered, defConfident, defConfWrong int

	calleeN, callersRight, calls, callsWithWant, links, correctLinks, byNameOnly, legacyOnly int

	hierN, hierTyped, hierTypeRight, hierReturned, hierCorrect, hierLabelled, hierFound int

	callersN, sites, listed, listedRight, linked, linkedRight int
}

func newTally() *tally { return &tally{broken: map[string]int{}, errors: map[string]int{}} }

func (t *tally) add(r *result) {
	if r.Broken != "" {
		t.broken[r.Label.Kind]++
		return
	}
	if r.Error != "" {
		t.errors[r.Label.Kind]++
	}
	if s := r.Def; s != nil {
		t.defN++
		t.defWants += s.Wants
		t.defCovered += s.Covered
		t.defTop1 += b2i(s.Correct)
		t.defConfident += b2i(s.Confident)
		t.defConfWrong += b2i(s.ConfidentlyWrong)
	}
	if s := r.Callees; s != nil {
		t.calleeN++
		t.callersRight += b2i(s.CallerRight)
		t.calls += s.Labelled
		t.callsWithWant += s.WithWant
		t.links += s.Links
		t.correctLinks += s.CorrectLinks
		t.byNameOnly += s.ByNameOnly
		t.legacyOnly += s.LegacyOnly
	}
	if s := r.Callers; s != nil {
		t.callersN++
		t.sites += s.Sites
		t.listed += s.Listed
		t.listedRight += s.ListedRight
		t.linked += s.Linked
		t.linkedRight += s.LinkedRight
	}
	if s := r.Hierarchy; s != nil {
		t.hierN++
		if s.TypeRight != nil {
			t.hierTyped++
			t.hierTypeRight += b2i(*s.TypeRight)
		}
		t.hierReturned += s.Returned
		t.hierCorrect += s.Correct
		t.hierLabelled += s.Labelled
		t.hierFound += s.Found
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// frac formats a ratio with its counts; "-" when there is nothing to
// divide by.
func frac(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f (%d/%d)", float64(n)/float64(d), n, d)
}

// corpusRun is one corpus: where it is, why it was not scored, and its
// lookups.
type corpusRun struct {
	Name    string    `json:"name"`
	Dir     string    `json:"dir,omitempty"`
	Skipped string    `json:"skipped,omitempty"`
	Results []*result `json:"results"`
}

// errNotIndexed is ctx's exit status 4: the corpus has no index.
var errNotIndexed = errors.New("not indexed")

// lookupError is a ctx run that failed on one lookup (a non-zero exit).
type lookupError struct{ msg string }

func (e *lookupError) Error() string { return e.msg }

// runCtx runs ctx with args in dir and returns its stdout. Errors:
// errNotIndexed, *lookupError for another non-zero exit, anything else
// when ctx could not be run.
func runCtx(ctx context.Context, bin, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil {
		return out, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return nil, err
	}
	if ee.ExitCode() == 4 {
		return nil, errNotIndexed
	}
	msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
	return nil, &lookupError{fmt.Sprintf("ctx %s: %v: %s", args[0], err, msg)}
}

// lookupArgs is the ctx command line for l in dir.
func lookupArgs(l *label, dir string) []string {
	var args []string
	switch l.Kind {
	case "def":
		args = []string{"def", "--json", "-n", "10"}
	case "callees":
		args = []string{"callees", "--json"}
	case "hierarchy":
		args = []string{"hierarchy", "--json"}
	case "callers":
		args = []string{"refs", "--json", "--kind", "call", "-n", "5000"}
	}
	args = append(args, "--repo", dir)
	if l.Hint != "" && l.Kind != "hierarchy" {
		args = append(args, "--hint", l.Hint)
	}
	return append(args, "--", l.Query)
}

// loadLabels reads every *.json file in dir. An entry without a corpus
// belongs to the corpus its file is named after.
func loadLabels(dir string) ([]label, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no label files (*.json) in %s", dir)
	}
	slices.Sort(files)
	var all []label
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var ls []label
		if err := json.Unmarshal(b, &ls); err != nil {
			return nil, fmt.Errorf("reading labels %s: %v", f, err)
		}
		for i := range ls {
			if ls[i].Corpus == "" {
				ls[i].Corpus = strings.TrimSuffix(filepath.Base(f), ".json")
			}
			ls[i].Source = fmt.Sprintf("%s#%d", filepath.Base(f), i)
		}
		all = append(all, ls...)
	}
	return all, nil
}

// corpusDir returns the directory of corpus name; roots maps semble
// repository names to their benchmark_root.
func corpusDir(name, checkouts string, roots map[string]string) string {
	if name == "goroot" {
		return filepath.Join(ctxproc.GoRoot(), "src")
	}
	return filepath.Join(checkouts, name, filepath.FromSlash(roots[name]))
}

// readRoots reads benchmark_root by name from a semble repos.json.
func readRoots(file string) (map[string]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var repos []struct {
		Name string `json:"name"`
		Root string `json:"benchmark_root"`
	}
	if err := json.Unmarshal(b, &repos); err != nil {
		return nil, fmt.Errorf("reading %s: %v", file, err)
	}
	roots := map[string]string{}
	for _, r := range repos {
		roots[r.Name] = r.Root
	}
	return roots, nil
}

func run(ctx context.Context, o *options, w io.Writer) int {
	bin, err := ctxproc.Binary(o.ctxBin)
	if err != nil {
		logf("%v", err)
		return 1
	}
	root := ctxproc.ModuleRoot()
	if o.labels == "" {
		o.labels = filepath.Join(root, "scripts", "symbol-eval", "labels")
	}
	if o.repos == "" {
		o.repos = filepath.Join(root, "..", "shared", "bench", "semble", "repos.json")
	}
	labels, err := loadLabels(o.labels)
	if err != nil {
		logf("%v", err)
		return 1
	}
	byCorpus := map[string][]label{}
	var names []string
	for _, l := range labels {
		if _, ok := byCorpus[l.Corpus]; !ok {
			names = append(names, l.Corpus)
		}
		byCorpus[l.Corpus] = append(byCorpus[l.Corpus], l)
	}
	slices.SortFunc(names, func(a, b string) int { // goroot first
		return cmp.Or(cmp.Compare(b2i(a != "goroot"), b2i(b != "goroot")), strings.Compare(a, b))
	})
	if o.corpora != "" {
		names = nil
		for n := range strings.SplitSeq(o.corpora, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
	}
	var roots map[string]string
	if slices.ContainsFunc(names, func(n string) bool { return n != "goroot" }) {
		if roots, err = readRoots(o.repos); err != nil {
			logf("semble repositories: %v; checkouts are scored whole", err)
		}
	}

	var runs []*corpusRun
	for _, name := range names {
		cr := &corpusRun{Name: name}
		runs = append(runs, cr)
		ls := byCorpus[name]
		if len(ls) == 0 {
			cr.Skipped = "no labels"
			logf("corpus %s: no labels in %s; skipped", name, o.labels)
			continue
		}
		cr.Dir = corpusDir(name, o.checkouts, roots)
		if fi, err := os.Stat(cr.Dir); err != nil || !fi.IsDir() {
			cr.Skipped = "no directory " + cr.Dir
			logf("corpus %s: no directory %s; skipped", name, cr.Dir)
			continue
		}
		if o.index {
			logf("corpus %s: ctx index in %s", name, cr.Dir)
			cmd := exec.CommandContext(ctx, bin, "index", "--repo", cr.Dir)
			cmd.Dir, cmd.Stdout, cmd.Stderr = cr.Dir, os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if ctx.Err() != nil || !errors.As(err, &ee) {
					logf("ctx index: %v", err)
					return 1
				}
				cr.Skipped = fmt.Sprintf("ctx index failed (%v)", err)
				logf("corpus %s: ctx index in %s: %v; skipped", name, cr.Dir, err)
				continue
			}
		}
		files := map[string][]string{}
		read := func(p string) ([]string, error) {
			if lines, ok := files[p]; ok {
				return lines, nil
			}
			b, err := os.ReadFile(filepath.Join(cr.Dir, filepath.FromSlash(p)))
			if err != nil {
				return nil, err
			}
			lines := strings.Split(string(b), "\n")
			files[p] = lines
			return lines, nil
		}
		logf("corpus %s: %d labels in %s", name, len(ls), cr.Dir)
		for _, l := range ls {
			r := &result{Label: l}
			if err := resolve(&r.Label, read); err != nil {
				r.Broken = err.Error()
				cr.Results = append(cr.Results, r)
				continue
			}
			out, err := runCtx(ctx, bin, cr.Dir, lookupArgs(&r.Label, cr.Dir)...)
			var le *lookupError
			switch {
			case errors.Is(err, errNotIndexed):
				cr.Skipped = "not indexed"
				cr.Results = nil
				logf("corpus %s: %s has no ctx index (ctx exit status 4); run with -index, or `ctx index` there; skipped", name, cr.Dir)
			case errors.As(err, &le):
				r.Error = le.msg
			case err != nil:
				logf("running ctx: %v", err)
				return 1
			}
			if cr.Skipped != "" {
				break
			}
			r.score(out)
			cr.Results = append(cr.Results, r)
		}
	}

	report(w, runs, o.verbose)
	if o.jsonFile != "" {
		b, err := json.MarshalIndent(map[string]any{"ctx": bin, "labels": o.labels, "corpora": runs}, "", "  ")
		if err == nil {
			err = os.WriteFile(o.jsonFile, append(b, '\n'), 0o644)
		}
		if err != nil {
			logf("writing %s: %v", o.jsonFile, err)
			return 1
		}
	}
	return 0
}

// report prints broken labels, the misses (verbose) and the tables.
func report(w io.Writer, runs []*corpusRun, verbose bool) {
	for _, cr := range runs {
		for _, r := range cr.Results {
			l := &r.Label
			if r.Broken != "" {
				fmt.Fprintf(w, "broken label %s (%s %s %q): %s\n", l.Source, l.Corpus, l.Kind, l.Query, r.Broken)
				continue
			}
			if verbose {
				printMisses(w, r)
			}
		}
	}

	all := newTally()
	var rows []string
	tallies := map[string]*tally{}
	for _, cr := range runs {
		if cr.Skipped != "" {
			continue
		}
		t := newTally()
		for _, r := range cr.Results {
			t.add(r)
			all.add(r)
		}
		rows = append(rows, cr.Name)
		tallies[cr.Name] = t
	}
	rows = append(rows, "all")
	tallies["all"] = all

	table := func(title, header string, line func(t *tally) string) {
		fmt.Fprintf(w, "\n%s\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "corpus\t"+header)
		for _, name := range rows {
			fmt.Fprintf(tw, "%s\t%s\n", name, line(tallies[name]))
		}
		tw.Flush()
	}
	table("def", "n\tp@1\trecall\tconfidently wrong\tctx errors\tbroken", func(t *tally) string {
		return fmt.Sprintf("%d\t%s\t%s\t%d (of %d at 1.0)\t%d\t%d",
			t.defN, frac(t.defTop1, t.defN), frac(t.defCovered, t.defWants), t.defConfWrong, t.defConfident, t.errors["def"], t.broken["def"])
	})
	table("callees", "n\tcallers right\tcalls labelled\tlinks made\tlink precision\tlink recall\tby name only\tctx errors\tbroken", func(t *tally) string {
		return fmt.Sprintf("%d\t%s\t%d\t%d\t%s\t%s\t%d\t%d\t%d",
			t.calleeN, frac(t.callersRight, t.calleeN), t.calls, t.links, frac(t.correctLinks, t.links), frac(t.correctLinks, t.callsWithWant), t.byNameOnly, t.errors["callees"], t.broken["callees"])
	})
	table("hierarchy", "n\ttype right\treturned\tprecision\trecall\tctx errors\tbroken", func(t *tally) string {
		return fmt.Sprintf("%d\t%s\t%d\t%s\t%s\t%d\t%d",
			t.hierN, frac(t.hierTypeRight, t.hierTyped), t.hierReturned, frac(t.hierCorrect, t.hierReturned), frac(t.hierFound, t.hierLabelled), t.errors["hierarchy"], t.broken["hierarchy"])
	})

	table("callers", "n\tsites\tcalls listed\tlisted precision\tlinks\tlink precision\tlink recall\tctx errors\tbroken", func(t *tally) string {
		return fmt.Sprintf("%d\t%d\t%d\t%s\t%d\t%s\t%s\t%d\t%d",
			t.callersN, t.sites, t.listed, frac(t.listedRight, t.listed), t.linked, frac(t.linkedRight, t.linked), frac(t.linkedRight, t.sites), t.errors["callers"], t.broken["callers"])
	})

	fmt.Fprintln(w)
	if all.legacyOnly > 0 {
		fmt.Fprintf(w, "note: %d returned callees carried only the older `definition` string, no `target`; they count as unlinked\n", all.legacyOnly)
	}
	if all.byNameOnly > 0 {
		fmt.Fprintf(w, "note: %d labelled calls were matched by name only (no callee listed at their line); -v marks them\n", all.byNameOnly)
	}
	if n := all.hierN - all.hierTyped; n > 0 && all.hierN > 0 {
		fmt.Fprintf(w, "note: %d hierarchy lookups had no `definition` in the answer or no `type` in the label; type right counts the others\n", n)
	}
	for _, cr := range runs {
		if cr.Skipped != "" {
			fmt.Fprintf(w, "not scored: %s (%s)\n", cr.Name, cr.Skipped)
		}
	}
}

// printMisses prints what r got wrong, if anything.
func printMisses(w io.Writer, r *result) {
	l := &r.Label
	head := fmt.Sprintf("%s %s %q", l.Corpus, l.Kind, l.Query)
	if l.Hint != "" {
		head += " hint=" + l.Hint
	}
	var lines []string
	if r.Error != "" {
		lines = append(lines, "error: "+r.Error)
	}
	switch {
	case r.Def != nil:
		s := r.Def
		if s.Correct && s.Covered == s.Wants {
			break
		}
		got := "nothing"
		if s.First != nil {
			got = s.First.String()
		}
		var want []string
		for _, l := range l.Want {
			want = append(want, l.String())
		}
		tag := ""
		if s.ConfidentlyWrong {
			tag = " [confidently wrong]"
		} else if s.Correct {
			tag = " [first right]"
		}
		lines = append(lines, fmt.Sprintf("got %s; want %s; covered %d/%d%s", got, strings.Join(want, ", "), s.Covered, s.Wants, tag))
	case r.Callees != nil:
		s := r.Callees
		if !s.CallerRight {
			got := "no definition"
			if s.Caller != nil {
				got = s.Caller.String()
			}
			lines = append(lines, fmt.Sprintf("caller: got %s; want %s", got, l.Caller))
		}
		for _, c := range s.Calls {
			if c.Correct || c.Want == nil && c.Target == nil {
				if c.ByNameOnly {
					lines = append(lines, fmt.Sprintf("L%d %s: right, by name only (listed at L%d)", c.Line, c.Name, c.ListedLine))
				}
				continue
			}
			want := "no link"
			if c.Want != nil {
				want = c.Want.String()
			}
			var got string
			switch {
			case !c.Listed:
				got = "not listed"
			case c.Target == nil:
				got = "listed, no link"
			default:
				got = "linked to " + c.Target.span.String() + " " + c.Target.Symbol
			}
			if c.ByNameOnly {
				got += fmt.Sprintf(" (by name only, listed at L%d)", c.ListedLine)
			}
			lines = append(lines, fmt.Sprintf("L%d %s: %s; want %s", c.Line, c.Name, got, want))
		}
	case r.Callers != nil:
		s := r.Callers
		for _, m := range s.Missed {
			lines = append(lines, fmt.Sprintf("missed site %s", m))
		}
		for _, m := range s.Wrong {
			lines = append(lines, fmt.Sprintf("linked at no site: %s:%d", m.Path, m.Line))
		}
	case r.Hierarchy != nil:
		s := r.Hierarchy
		if s.TypeRight != nil && !*s.TypeRight {
			lines = append(lines, fmt.Sprintf("type: got %s; want %s", s.Definition, l.Type))
		}
		for _, k := range s.Wrong {
			lines = append(lines, fmt.Sprintf("wrong %s: %s", k.Dir, k.typeLink))
		}
		for _, t := range s.Missing {
			lines = append(lines, fmt.Sprintf("missing %s: %s %s", t.Dir, t.Name, t.location))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "miss %s:\n", head)
	for _, s := range lines {
		fmt.Fprintf(w, "  %s\n", s)
	}
}
