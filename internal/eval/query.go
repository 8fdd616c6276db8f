package eval

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/mine"
)

// Query is one question of an evaluation and the code that answers it.
type Query struct {
	// Text is what is searched.
	Text string `json:"query"`
	// Kind is the pair kind it was made from: "doc" (a doc comment, the
	// definition's own name taken out), "name" (the split name and the
	// enclosing type: "read mime header (Reader)") or "comment" (a
	// comment inside a body).
	Kind     string `json:"kind"`
	Language string `json:"language"`
	// Path is the file that answers it (relative to the root, slash
	// separated); StartLine and EndLine (1-based, inclusive) are the
	// code it was mined from: the definition, or the block a comment
	// describes. Symbol names the definition.
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Symbol    string `json:"symbol,omitempty"`
	// Stripped is set on a doc query whose text held the definition's
	// name, taken out.
	Stripped bool `json:"stripped,omitempty"`
}

// Query kinds, in the order [Select] takes them.
var Kinds = []string{mine.PairDoc, mine.PairName, mine.PairComment}

// DefaultQueries is how many queries [Select] keeps by default.
const DefaultQueries = 200

// minWords is the fewest words a doc query keeps once its name is out.
const minWords = 3

// SelectOptions configures [Select]; the zero value takes the defaults.
type SelectOptions struct {
	// N caps the queries; 0 means [DefaultQueries].
	N int
	// Seed picks the sample: the same pairs and seed select the same
	// queries in the same order.
	Seed uint64
	// KeepNames leaves a doc comment's mention of the definition's own
	// name in the query ("ReadMIMEHeader reads a MIME-style header"),
	// which lets exact-name lookup answer it.
	KeepNames bool
	// Eligible says whether queries may come from a file (nil: all):
	// ctx eval asks only files that ctx train holds out.
	Eligible func(path string) bool
}

// Pool counts what [Select] chose from.
type Pool struct {
	// Pairs is every pair mined from the repository; Eligible those from
	// eligible files.
	Pairs    int `json:"pairs"`
	Eligible int `json:"eligible"`
	// Ambiguous counts eligible pairs left out because the same query
	// text is mined from another file too (two files would answer it);
	// Short, doc pairs left with fewer than 3 words once the name was out;
	// Repeated, pairs whose text another pair of the same file already
	// asks.
	Ambiguous int `json:"ambiguous"`
	Short     int `json:"short"`
	Repeated  int `json:"repeated"`
	// Candidates is what the sample was drawn from.
	Candidates int `json:"candidates"`
}

// Select makes queries of pairs (a repository's, with Path, Symbol and
// lines set, as [mine.MineFiles] returns them): a doc pair's text loses
// the definition's own name unless opts.KeepNames; a text mined from two
// files is left out, since either would answer it; then up to opts.N are
// sampled by a seeded hash, taking the kinds in turn ([Kinds]) so that
// none crowds out the others.
func Select(pairs []mine.Pair, opts SelectOptions) ([]Query, Pool) {
	n := cmp.Or(opts.N, DefaultQueries)
	pool := Pool{Pairs: len(pairs)}
	qs := make([]Query, len(pairs))
	keys := make([]string, len(pairs))
	files := map[string]string{} // key → the one file that asks it, or "" for several
	for i, p := range pairs {
		q := Query{Text: p.Query, Kind: p.Kind, Language: p.Lang, Path: p.Path, StartLine: p.StartLine, EndLine: p.EndLine, Symbol: p.Symbol}
		if p.Kind == mine.PairDoc && !opts.KeepNames {
			q.Text, q.Stripped = StripName(p.Query, p.Symbol)
		}
		qs[i] = q
		if len(strings.Fields(q.Text)) < minWords && p.Kind == mine.PairDoc {
			continue // too short to ask: neither a candidate nor a rival
		}
		k := normalize(q.Text)
		keys[i] = k
		if f, ok := files[k]; !ok {
			files[k] = p.Path
		} else if f != p.Path {
			files[k] = ""
		}
	}
	byKind := map[string][]int{}
	hashes := make([]uint64, len(pairs))
	asked := map[string]bool{} // path + key
	for i, p := range pairs {
		if opts.Eligible != nil && !opts.Eligible(p.Path) {
			continue
		}
		pool.Eligible++
		k := keys[i]
		switch {
		case k == "":
			pool.Short++
			continue
		case files[k] == "":
			pool.Ambiguous++
			continue
		case asked[p.Path+"\x00"+k]:
			pool.Repeated++
			continue
		}
		asked[p.Path+"\x00"+k] = true
		hashes[i] = sampleHash(opts.Seed, p)
		byKind[p.Kind] = append(byKind[p.Kind], i)
		pool.Candidates++
	}
	for _, idx := range byKind {
		slices.SortFunc(idx, func(a, b int) int {
			return cmp.Or(cmp.Compare(hashes[a], hashes[b]), strings.Compare(pairs[a].Path, pairs[b].Path), strings.Compare(keys[a], keys[b]))
		})
	}
	var out []Query
	for len(out) < n {
		took := false
		for _, kind := range Kinds {
			if len(out) == n || len(byKind[kind]) == 0 {
				continue
			}
			out = append(out, qs[byKind[kind][0]])
			byKind[kind] = byKind[kind][1:]
			took = true
		}
		if !took {
			break
		}
	}
	return out, pool
}

// StripName takes the definition's name out of a doc query: every word
// that is name itself or a qualified or called form of it
// ("Reader.ReadMIMEHeader", "ReadMIMEHeader()", "`ReadMIMEHeader`",
// "ReadMIMEHeader's"), matched case-sensitively so that an English word
// that merely spells the name ("Parse the header" for parse) stays.
// stripped reports whether anything was taken out.
func StripName(q, name string) (out string, stripped bool) {
	if name == "" {
		return q, false
	}
	words := strings.Fields(q)
	kept := words[:0:0]
	for _, w := range words {
		core := strings.Trim(w, "`'\"()[]{}<>,.;:!?*")
		core = strings.TrimSuffix(strings.TrimSuffix(core, "'s"), "()")
		if core == name || strings.HasSuffix(core, "."+name) || strings.HasSuffix(core, "::"+name) ||
			strings.HasSuffix(core, "#"+name) || strings.HasSuffix(core, "->"+name) {
			stripped = true
			continue
		}
		kept = append(kept, w)
	}
	if !stripped {
		return q, false
	}
	return strings.Join(kept, " "), true
}

// normalize is the form under which two query texts count as the same.
func normalize(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// sampleHash orders the candidates for the sample. It hashes where a
// pair comes from, not its text, so that --keep-names samples the same
// queries and the two runs compare query by query.
func sampleHash(seed uint64, p mine.Pair) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d", p.Path, p.Kind, p.StartLine, p.EndLine)
	return h.Sum64()
}
