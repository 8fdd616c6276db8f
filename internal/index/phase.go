package index

// Phase names, in the order a run goes through them. A run of [Run]
// reports discover, chunk+embed, then resolve (only when a file was
// added, changed or deleted, or the run resumes) and merge; the engine
// adds its own end-of-run phases after them.
const (
	// PhaseDiscover walks the root and compares it with the index; it
	// counts the files the walk returned.
	PhaseDiscover = "discover"
	// PhaseChunk reads, chunks, embeds and writes the new and changed
	// files; it counts them.
	PhaseChunk = "chunk+embed"
	// PhaseResolve resolves the stored imports against the stored files;
	// it counts the imports, known only when it ends.
	PhaseResolve = "resolve"
	// PhaseMerge merges the BM25 posting segments; it counts the
	// segments merged, known only when it ends.
	PhaseMerge = "merge"
)

// Phase is one report of a run's progress through its phases. Each phase
// that runs is reported at least twice, in order and never overlapping:
// once when it starts (Done 0, End false), then zero or more times as it
// advances, and once when it ends (End true). A phase cut short by an
// error or a canceled context has no End report.
type Phase struct {
	// Name is the phase: one of the Phase* constants, or a name the
	// engine adds.
	Name string
	// Done is how many of the phase's units are done; on the End report,
	// how many it did.
	Done int
	// Total is the number of units the phase has to do, or 0 while that
	// is not known (the phase then reports only its start and end).
	Total int
	// Unit names what Done and Total count ("files", "imports",
	// "segments"); empty when the phase counts nothing.
	Unit string
	// End marks the phase's last report.
	End bool
}

// report passes ph to fn when fn is set.
func report(fn func(Phase), ph Phase) {
	if fn != nil {
		fn(ph)
	}
}
