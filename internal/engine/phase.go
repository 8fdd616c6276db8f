package engine

import "github.com/ctx-dev/ctx/internal/index"

// Phase is one report of an index run's progress through its phases
// (see [index.Phase] for the order and the reports each phase makes).
type Phase = index.Phase

// The engine's own end-of-run phases, after index.PhaseMerge. Neither
// counts anything: each reports its start and its end.
const (
	// PhaseSwap copies a rebuild's new index into the live one
	// (`ctx index --rebuild` of a finished index only).
	PhaseSwap = "swap"
	// PhaseVectors writes the root's vector file (runs with an embedder).
	PhaseVectors = "vector file"
	// PhaseSettle waits, after a sync into Weaviate that wrote or deleted
	// objects, for the server to count them (its BM25 ranks by that
	// count; see wvstore.Sync).
	PhaseSettle = "weaviate settle"
)

// phaseStep reports an uncounted phase's start, runs step (which does not
// fail: it logs), then reports the phase's end.
func phaseStep(fn func(Phase), name string, step func()) {
	if fn != nil {
		fn(Phase{Name: name})
	}
	step()
	if fn != nil {
		fn(Phase{Name: name, End: true})
	}
}
