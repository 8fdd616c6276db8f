package engine

import (
	"context"
	"fmt"
	pathpkg "path"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/internal/graph"
	"github.com/ctx-dev/ctx/internal/store"
)

// referenceTargets returns the definitions among rows (definitionRows)
// that a references lookup means: with qualifiers or a hint, the one
// rankDefinitions rates 0.9 or more when there is one, else every
// definition that fits exactly or loosely (narrowed is then true:
// mentions are of these definitions, not of every same-named one); a
// bare name without a hint means every definition of the name, unranked.
func (e *Engine) referenceTargets(ctx context.Context, db *store.DB, rows []store.ChunkRow, lk graph.Lookup, hint string) (targets []defCandidate, narrowed bool) {
	if len(lk.Quals) == 0 && hint == "" {
		// Every definition: nothing to rank (a common name has
		// hundreds, each widened through its file's chunks).
		for _, r := range rows {
			if r.Name == lk.Name && definitionKinds[r.Kind] && r.Part <= 1 && (r.StartByte >= 0 || bodiless(r)) {
				targets = append(targets, defCandidate{row: r})
			}
		}
		return targets, false
	}
	cands := e.rankDefinitions(ctx, db, rows, lk, hint)
	var out []defCandidate
	for _, c := range cands {
		if c.row.StartByte >= 0 || bodiless(c.row) { // not one-line constants and variables
			out = append(out, c)
		}
	}
	if len(out) > 0 && out[0].conf >= 0.9 {
		return out[:1], true
	}
	var fit []defCandidate
	for _, c := range out {
		if c.resolution != "name-only" && c.resolution != "case-insensitive" {
			fit = append(fit, c)
		}
	}
	if len(fit) == 0 {
		return out, false // nothing fits the qualifiers: every definition
	}
	return fit, true
}

// goRefLinker resolves Go call sites with graph.GoCalls (receivers,
// fields, imports; see there) and says which of the targets each calls.
type goRefLinker struct {
	calls   goCaller
	spans   *spanCache
	targets []store.ChunkRow
	// byLine caches each enclosing function's resolved calls, by file
	// and line of the call's name.
	byLine map[string][]graph.GoCall
	// funcs are, by file, the line ranges of the calls of each function
	// already resolved.
	funcs map[string][][2]int
}

// newGoRefLinker returns a linker for targets; one that never knows
// (link's known is false) unless on is set and a target is in Go.
func (e *Engine) newGoRefLinker(ctx context.Context, db *store.DB, targets []store.ChunkRow, on bool, shared *sharedGoCalls) *goRefLinker {
	l := &goRefLinker{spans: newSpanCache(ctx, db), targets: targets, byLine: map[string][]graph.GoCall{}, funcs: map[string][][2]int{}}
	hasGo := false
	for _, t := range targets {
		hasGo = hasGo || t.Language == "go"
	}
	if !on || !hasGo {
		return l
	}
	if shared != nil {
		l.calls = shared
		return l
	}
	l.calls = e.goCalls(ctx, db)
	return l
}

// goCaller resolves the calls in the Go function body holding a line
// ([graph.GoCalls.Calls]).
type goCaller interface {
	Calls(file string, line int) ([]graph.GoCall, bool)
}

// sharedGoCalls is one [graph.GoCalls] that the References calls of one
// explanation share ([ReferenceQuery] shared), so each Go package is
// parsed once for all its results rather than once per result: on the
// Go tree an explanation of 10 results spent 70% of its time re-parsing
// the same packages (BenchmarkExplainGoroot's CPU profile).
type sharedGoCalls struct {
	mu sync.Mutex     // guards g's caches, which GoCalls does not lock
	g  *graph.GoCalls // over a view its owner holds while it is used
}

// Calls is [graph.GoCalls.Calls], one caller at a time.
func (s *sharedGoCalls) Calls(file string, line int) ([]graph.GoCall, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.g.Calls(file, line)
}

// link resolves the call of name on line ln (1-based) of the Go file
// path. known is false when it cannot say (not Go, no target in Go, the
// line is outside a function body, or the call did not resolve); else
// def is the target it calls as "path:line" with its confidence (0.9
// through an interface), or "" when it calls another declaration or
// leaves the repository.
func (l *goRefLinker) link(path string, ln int, name string) (def string, conf float64, known bool) {
	if l.calls == nil || !strings.HasSuffix(path, ".go") {
		return "", 0, false
	}
	key := fmt.Sprintf("%s:%d", path, ln)
	calls, ok := l.byLine[key]
	if !ok && !l.covered(path, ln) {
		all, found := l.calls.Calls(path, ln)
		if !found {
			return "", 0, false
		}
		lo, hi := ln, ln
		for _, c := range all {
			k := fmt.Sprintf("%s:%d", path, c.Line)
			l.byLine[k] = append(l.byLine[k], c)
			lo, hi = min(lo, c.Line), max(hi, c.Line)
		}
		l.funcs[path] = append(l.funcs[path], [2]int{lo, hi})
		calls = l.byLine[key]
	}
	for _, c := range calls {
		if c.Name != name {
			continue
		}
		switch {
		case c.Kind == "func value":
			return "", 0, true // a variable, parameter or field: not a declaration
		case c.DeclFile == "" && c.Pkg != "" && !l.declaresIn(c.Pkg):
			return "", 0, true // a function of another package
		case c.DeclFile != "":
			loc, ok := l.spans.at(c.DeclFile, c.DeclLine)
			if !ok {
				return "", 0, false
			}
			for _, t := range l.targets {
				// A chunk by its first line; a declaration that is not
				// a chunk (an interface method) by its own lines.
				if t.Path == loc.Path && t.StartLine == loc.StartLine ||
					bodiless(t) && t.Path == c.DeclFile && t.StartLine <= c.DeclLine && c.DeclLine <= t.EndLine {
					conf := 1.0
					if c.Kind == "interface method" {
						conf = 0.9
					}
					return fmt.Sprintf("%s:%d", t.Path, t.StartLine), conf, true
				}
			}
			return "", 0, true
		case c.External:
			return "", 0, true
		}
		return "", 0, false
	}
	if l.covered(path, ln) {
		// The function holding the line was resolved and calls nothing
		// of that name there: the mention is in a string or a comment.
		return "", 0, true
	}
	return "", 0, false
}

// declaresIn reports whether a target is a function declared in the
// slash directory dir.
func (l *goRefLinker) declaresIn(dir string) bool {
	for _, t := range l.targets {
		if t.Kind == "function" && pathpkg.Dir(t.Path) == dir {
			return true
		}
	}
	return false
}

// covered reports whether line ln of path lies in a function whose calls
// were already resolved (so a line without a call of the name has none).
func (l *goRefLinker) covered(path string, ln int) bool {
	for _, r := range l.funcs[path] {
		if r[0] <= ln && ln <= r[1] {
			return true
		}
	}
	return false
}
