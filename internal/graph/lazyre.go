package graph

import (
	"regexp"
	"sync"
)

// lazyRE returns src's regular expression, compiled on its first use: the
// package's three dozen patterns took about 0.5 ms to compile at start,
// which every ctx process paid, though only reading imports and names
// uses them (ctx find does not). A bad pattern panics on first use, as
// regexp.MustCompile would at start.
func lazyRE(src string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
}
