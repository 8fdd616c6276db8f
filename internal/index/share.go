package index

import "github.com/ctx-dev/ctx/internal/discover"

// SkipShare measures how much of a walk was skipped, for the warning a run
// gives when it skips most of the files it considered.
type SkipShare struct {
	// Candidates counts the files the walk considered: those it listed
	// (indexed, or skipped later for their content) and the files it
	// skipped by name, rules, size, link or type. A skipped directory is
	// not counted, nor its contents, which were never looked at; nor are
	// the built-in excludes ([discover.ReasonExcluded]: version-control
	// entries and checkout markers, not the user's files).
	Candidates int
	// Skipped counts the candidates that were skipped.
	Skipped int
	// Reasons counts Skipped by reason.
	Reasons map[discover.Reason]int
}

// SkipShare returns the share of the run's candidate files it skipped. A
// run of some paths ([Options.Paths]) measures those paths alone.
func (s *Stats) SkipShare() SkipShare {
	return skipShare(s.Discovered, s.ContentSkips, s.Skips)
}

// SkipShare returns the share of the walk's candidate files that an index
// run would skip, as far as the plan knows: files skipped for their
// content count when they were skipped last time and are unchanged.
func (p *Plan) SkipShare() SkipShare {
	return skipShare(p.Discovered, p.ContentSkips, p.Skips)
}

// skipShare counts the candidates: discovered files the walk listed,
// contentSkips of which are among skips too.
func skipShare(discovered, contentSkips int, skips []discover.Skip) SkipShare {
	sh := SkipShare{Candidates: discovered - contentSkips, Reasons: map[discover.Reason]int{}}
	for _, k := range skips {
		if k.Dir || k.Reason == discover.ReasonExcluded {
			continue
		}
		sh.Skipped++
		sh.Reasons[k.Reason]++
	}
	sh.Candidates += sh.Skipped
	return sh
}
