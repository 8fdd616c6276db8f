package eval

import (
	"bytes"
	"cmp"
	"context"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/ctx-dev/ctx/internal/discover"
)

// Grep is the baseline: what an agent without ctx does with a question.
// It splits the query into words ([GrepWords]) and counts, in every file,
// the lines that hold at least one of them, case-insensitively, as
// `grep -c -i -F -e word1 -e word2 … FILE` would; files are ranked by that
// count (most first; ties by path). It reads the same files as the index:
// the discovered files that are not sniffed out as binary, generated or
// minified. The files are held in memory, lower-cased, and searched on
// every core at once (as ripgrep does), so a search times the matching
// alone, as a search of files in the page cache would be (without a
// process start). Searches may run concurrently.
type Grep struct {
	files   []grepFile
	workers int
}

type grepFile struct {
	path string
	text []byte // lower-cased content
}

// NewGrep reads files for [Grep.Search]. An unreadable or sniffed-out
// file is skipped, as the index skips it; errors are ctx's cancellation.
func NewGrep(ctx context.Context, files []discover.File) (*Grep, error) {
	g := &Grep{}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		src, err := os.ReadFile(f.Abs)
		if err != nil {
			continue
		}
		if _, _, skip := discover.Sniff(f.Path, src); skip {
			continue
		}
		g.files = append(g.files, grepFile{path: f.Path, text: bytes.ToLower(src)})
	}
	slices.SortFunc(g.files, func(a, b grepFile) int { return strings.Compare(a.path, b.path) })
	g.workers = max(1, min(runtime.GOMAXPROCS(0), len(g.files)))
	return g, nil
}

// Files returns how many files g searches.
func (g *Grep) Files() int { return len(g.files) }

// Search returns the paths of the limit files with the most lines
// matching query's words, most first (ties by path); files with none are
// left out.
func (g *Grep) Search(query string, limit int) []string {
	words := GrepWords(query)
	if len(words) == 0 {
		return nil
	}
	pats := make([]pattern, len(words))
	for i, w := range words {
		pats[i] = newPattern(w)
	}
	counts := make([]int, len(g.files))
	var wg sync.WaitGroup
	for w := range g.workers {
		wg.Go(func() {
			var starts []int
			for i := w; i < len(g.files); i += g.workers {
				counts[i], starts = countLines(g.files[i].text, pats, starts)
			}
		})
	}
	wg.Wait()
	var hits []int
	for i, n := range counts {
		if n > 0 {
			hits = append(hits, i)
		}
	}
	slices.SortFunc(hits, func(a, b int) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(g.files[a].path, g.files[b].path))
	})
	out := make([]string, 0, min(limit, len(hits)))
	for _, i := range hits[:min(limit, len(hits))] {
		out = append(out, g.files[i].path)
	}
	return out
}

// countLines returns how many lines of text hold at least one of pats;
// starts is scratch space, returned for reuse.
func countLines(text []byte, pats []pattern, starts []int) (int, []int) {
	starts = starts[:0]
	for _, p := range pats {
		for off := 0; off < len(text); {
			i := p.index(text[off:])
			if i < 0 {
				break
			}
			at := off + i
			starts = append(starts, bytes.LastIndexByte(text[:at], '\n')+1)
			end := bytes.IndexByte(text[at:], '\n')
			if end < 0 {
				break
			}
			off = at + end + 1 // the rest of this line cannot add to the count
		}
	}
	if len(starts) == 0 {
		return 0, starts
	}
	slices.Sort(starts)
	return len(slices.Compact(starts)), starts
}

// pattern is a word to find and the offset of its rarest byte, which
// the search looks for first (as ripgrep does): fewer false starts than
// the first byte's.
type pattern struct {
	word []byte
	rare int
}

func newPattern(w string) pattern {
	p := pattern{word: []byte(w)}
	for i := range p.word {
		if byteRank(p.word[i]) < byteRank(p.word[p.rare]) {
			p.rare = i
		}
	}
	return p
}

// index returns the offset of the first occurrence of p in s, or -1.
func (p pattern) index(s []byte) int {
	n := len(p.word)
	for off := p.rare; off < len(s); {
		i := bytes.IndexByte(s[off:], p.word[p.rare])
		if i < 0 {
			return -1
		}
		start := off + i - p.rare
		if start+n <= len(s) && bytes.Equal(s[start:start+n], p.word) {
			return start
		}
		off += i + 1
	}
	return -1
}

// byteRank orders bytes from rare to common in lower-cased source code:
// letters by their frequency in English text and code, digits and
// punctuation as fairly rare, space and newline as the most common.
func byteRank(c byte) int {
	const common = "etaoinsrlcdhupmfgybwvkxjqz" // most common first
	switch {
	case c == ' ' || c == '\n' || c == '\t':
		return 1000
	case c >= 'a' && c <= 'z':
		return 100 + 26 - strings.IndexByte(common, c)
	}
	return 50
}

// GrepWords returns the words [Grep] looks for: the query's runs of
// letters, digits and underscores, lower-cased, without repeats, without
// words of one character and without a short list of English function
// words (the, of, to, is, …) that would match nearly every line.
func GrepWords(query string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if len([]rune(w)) < 2 || stopWords[w] || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// stopWords are the English function words grep is not asked for.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the of to in on at by for from with as and or not no is are was were be been
		it its this that these those if then else than so do does did can may will would should must has have had
		which who whom what when where how into onto over under about all any each some such there their they them
		we us our you your he she his her i me my one`) {
		stopWords[w] = true
	}
}
