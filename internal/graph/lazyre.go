package graph

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on first use. The
// package's three dozen patterns took about 0.5 ms to compile at start,
// which every ctx process paid, though only reading imports and names
// uses them (ctx find does not).
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// lazyRE returns src as a [lazyRegexp]; a bad pattern panics on first
// use, as regexp.MustCompile would at start.
func lazyRE(src string) *lazyRegexp { return &lazyRegexp{src: src} }

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *lazyRegexp) Find(b []byte) []byte             { return l.get().Find(b) }
func (l *lazyRegexp) FindSubmatch(b []byte) [][]byte   { return l.get().FindSubmatch(b) }
func (l *lazyRegexp) FindSubmatchIndex(b []byte) []int { return l.get().FindSubmatchIndex(b) }
func (l *lazyRegexp) Match(b []byte) bool              { return l.get().Match(b) }
func (l *lazyRegexp) MatchString(s string) bool        { return l.get().MatchString(s) }
func (l *lazyRegexp) FindStringSubmatch(s string) []string {
	return l.get().FindStringSubmatch(s)
}
func (l *lazyRegexp) FindStringSubmatchIndex(s string) []int {
	return l.get().FindStringSubmatchIndex(s)
}
func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}
func (l *lazyRegexp) ReplaceAllString(src, repl string) string {
	return l.get().ReplaceAllString(src, repl)
}
