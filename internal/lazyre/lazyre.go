// Package lazyre holds regular expressions that compile on first use
// rather than at package initialisation.
//
// Every ctx process runs the init of every package linked into the
// binary, so a package-level regexp.MustCompile is paid by `ctx --version`
// and by a one-shot `ctx find` even when the command never matches it.
// The packages' patterns took about 14 ms of CPU per process to compile
// (GODEBUG=inittrace=1 on the Go standard library index's find): patterns
// with counted repetitions such as `[^"]{2,120}` expand into hundreds of
// instructions. A pattern declared here costs a closure at start and its
// compilation once, on the first call.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a func that returns src compiled, compiling it on the first
// call only; concurrent first calls wait for the one compilation. A bad
// pattern panics on that first call, as [regexp.MustCompile] would at
// start, so tests that exercise a pattern also check that it compiles.
func New(src string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
}
