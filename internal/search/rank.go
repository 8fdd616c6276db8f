package search

import (
	"cmp"
	"fmt"
	"math"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctx-dev/ctx/internal/analyze"
	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/graph"
	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/store"
)

// bm25Weights are the BM25 column weights (name, path, doc, body): a term in
// a definition's name counts as much as three in its body, one in the path
// or doc comment as two.
var bm25Weights = store.BM25Weights{3, 2, 2, 1}

// ColumnWeights returns the BM25 column weights every search's BM25
// channels use (a store that bakes them into its documents, such as the
// Weaviate backend's, checks them against these).
func ColumnWeights() store.BM25Weights { return bm25Weights }

// weights are the per-channel RRF weights for one query kind.
type weights struct {
	bm25, code, phrase, symbol, path, mention, dense float64
}

// channelWeights returns the RRF weights for a query kind. Symbol queries
// trust the symbol table most; long queries lean on the identifiers they
// quote; the dense channel counts 0.3 for symbol queries and 0.5 otherwise,
// as in the published stack cited by ../shared/notes/ranking.md.
func channelWeights(k analyze.QueryKind) weights {
	switch k {
	case analyze.QuerySymbol:
		return weights{bm25: 1, code: 1, phrase: 1, symbol: 2, path: 1, mention: 2, dense: 0.3}
	case analyze.QueryLong:
		return weights{bm25: 1, code: 1, phrase: 1, symbol: 0.5, path: 0.5, mention: 1, dense: 0.5}
	default:
		return weights{bm25: 1, code: 1, phrase: 1, symbol: 1, path: 1, mention: 2, dense: 0.5}
	}
}

// tuning holds the ranking adjustments, sized relative to the top fused
// score because fused RRF scores are flat (../shared/notes/ranking.md).
// Each value was chosen on the semble DEV set (12 repositories, 225
// queries, lexical-only; ../shared/bench/eval.py semble); the NDCG@10
// deltas quoted are from those runs.
type tuning struct {
	// DefBoost: a chunk defining the exact symbol of a symbol query.
	DefBoost float64
	// DefFold scales DefBoost when the name matches ignoring case only:
	// 0.7 → 0.3 took symbol queries 0.862 → 0.890 (serde's Serialize trait
	// above its many serialize methods).
	DefFold float64
	// DefBoostOther: a chunk defining a symbol named in a longer query
	// (0.6 measured the same, 0.736 vs 0.737).
	DefBoostOther float64
	// NameBoost: query words matching the file name or parent directory,
	// times the share of the query's words they cover (at most 0.2 for
	// long queries; see LongNameBoost).
	NameBoost float64
	// Coherence: per extra candidate chunk of the same file, log-damped.
	// (Adding a share of the file's other chunk scores instead cost 0.015.)
	// Swept with the built-in model (semble DEV hybrid): 0 → 0.800, 0.04
	// → 0.809, 0.08 → 0.816, 0.12 → 0.813, 0.16 → 0.806, 0.24 → 0.803;
	// SWE-bench DEV 50 Acc@5 0.74 at 0, 0.78 at 0.08. It can lift a
	// caller in a busy file above the function a query names when their
	// fused scores are close (RRF k=60 keeps top ranks within ~5%).
	Coherence float64
	// Penalties multiply chunks of files the query did not ask for. Tests
	// 0.6 → 0.3 (with Diversity 0.1) took 0.720 → 0.729.
	TestPenalty, ExamplePenalty, DocPenalty, VendorPenalty, DeclPenalty float64
	// Diversity damps each further chunk of an already-listed file:
	// 0.5 → 0.2 → 0.1 took 0.714 → 0.720 → 0.729 with the test penalty;
	// 0.05 was no better.
	Diversity float64
	// SiblingShare and SiblingDiversity: in a grouped answer (a pack), a
	// further chunk of a file scoring at least SiblingShare of the file's
	// best is damped by SiblingDiversity instead of Diversity. Tried as a
	// newcomer, the packed answers to "how does a transaction commit
	// write dirty pages" (boltdb) and "how are unknown options reported"
	// (commander) showed the file's type or a sibling but not (*Tx).Commit
	// and unknownOption, ranked first by BM25 and second by the dense
	// channel: damped ×0.1 they fell below the pack's cutoff. Applied to
	// the flat list, semble DEV NDCG@10 was 0.8479 off, (share, factor)
	// (0.7, 0.5) 0.8491, (0.8, 0.5) 0.8491, (0.9, 0.5) 0.8492, (0.8, 0.3)
	// 0.8483, (0.9, 0.7) 0.8456, but leave-one-repository-out held-out
	// 0.8472 (sinatra's line-level gold carries the gain): it does not
	// survive cross-validation for the flat list, which keeps Diversity.
	// The pack groups by file anyway; SWE-bench DEV 50 gold file inside
	// the pack is measured with it (README).
	SiblingShare, SiblingDiversity float64
	// PathWeight scales the path channel (2 measured the same as 1). The
	// channel is further scaled by the share of query words the path
	// covers: architecture queries 0.653 → 0.712, semantic 0.751 → 0.725,
	// overall -0.001, and it stops "parse.go" from winning every question
	// with "parse" in it on the Go standard library.
	PathWeight float64
	// TinyPenalty multiplies chunks of at most tinyLines lines (a lone
	// #define, a one-line var), which BM25's length normalisation lifts
	// above the code that does the work (0.767 → 0.768).
	TinyPenalty float64
	// FileBM25 weighs the file-level view of the BM25 hits (0 → 0.5 took
	// 0.768 → 0.776; 1 and 2 measured the same as 0.5).
	FileBM25 float64
	// DenseRerank weighs the candidates' order by cosine similarity to
	// the query (every candidate of every channel, not only the dense
	// top 100), added as an RRF term. With the model trained on the
	// balanced data set (hybrid, same run): 0 → 1 → 2 → 4 took 0.798 →
	// 0.805 → 0.808 → 0.808; adding the raw cosine instead (×0.5 of the
	// top score) measured 0.798.
	DenseRerank float64
	// DenseRerankLong replaces DenseRerank for long queries (issue
	// texts). With the ctx-code-3 model, SWE-bench DEV 50 MRR measured
	// 0.649 at 0, 0.635 at 1, 0.626 at 2 and 0.608 at 4 (Acc@5 0.76,
	// 0.74, 0.72, 0.72): a whole issue's vector says little about which
	// of the candidates the change is in. (ctx-code-2 measured 0.657,
	// 0.663 and 0.653 at 0, 1 and 2.)
	DenseRerankLong float64
	// SupersededPenalty multiplies chunks under a version directory (v3)
	// when a candidate of the same parent sits under a higher one (v4):
	// the older tree is kept for compatibility, and an unqualified
	// question is about the current one. ForeignOSPenalty multiplies
	// chunks of files built only for another operating system than the
	// host's (win/ or *_windows.go on Linux): an equal pair of platform
	// files is a tie that the machine the question is asked on breaks.
	// semble DEV (same index, same run): neither 0.816; superseded 0.7
	// alone 0.823; foreign OS 0.7 alone (win/ only) 0.825; both at 0.85
	// 0.827, 0.7 0.832, 0.5 0.833; with other systems' file names
	// (sunos.c, *_freebsd.go) 0.836. SWE-bench DEV 50 unchanged (MRR 0.653).
	SupersededPenalty, ForeignOSPenalty float64
	// DenseDropDF: query words whose term is in more than this share of
	// the chunks are left out of the text the dense channel embeds
	// (denseQuery). semble DEV with the built-in ctx-code-3 model (√count
	// bags): off 0.836, 0.8 0.838, 0.5 0.842, 0.25 0.840; with the raw-count
	// ctx-code-2 model 0.5 cost 0.843 → 0.839.
	DenseDropDF float64
	// TitleWeight and TitleRRFK fuse a long query's whole-text and title
	// searches by file (fuseTitle): weight of the title's list (the whole
	// text's is 1) and the RRF k. Simulated on the two rankings of ctx at
	// 238e521 (Acc@1/@5 and MRR; DEV 50 | Lite dev 23): whole text only
	// 0.56/0.76 0.650 | 0.52/0.87 0.671; title only 0.46/0.72 0.586 |
	// 0.61/0.78 0.689; fused with weight 1 and k 1 0.56/0.82 0.676 |
	// 0.65/0.87 0.741, k 10 0.52/0.82 0.648 | 0.65/0.87 0.735, k 60
	// 0.52/0.82 0.642 | 0.65/0.83 0.732; weight 0.5 with k 1 0.56/0.78
	// 0.666 | 0.57/0.87 0.697.
	TitleWeight, TitleRRFK float64
	// LongNameBoost multiplies NameBoost for a long query and for its
	// title. Swept with scripts/rank-cv at 2d954e5, NameBoost for all
	// queries (semble DEV NDCG@10 | SWE-bench DEV 50 MRR | Lite dev
	// split MRR): 0 0.826 | 0.684 | 0.767, 0.25 0.840 | 0.685 | 0.746,
	// 0.5 0.840 | 0.702 | 0.742, 1 0.841 | 0.709 | 0.774, 1.5 0.842 |
	// 0.681 | 0.775, 2 0.839 | 0.671 | 0.769; 1 was chosen by most
	// leave-one-repository-out folds of each set (0.5 by 0 of 12, 1 of 8
	// and 0 of 6), but cost this repository's ranking suite recall@1
	// 0.851 → 0.806 (short questions over the Go standard library and
	// the MCP SDK). Doubling it for issue texts alone keeps the gain
	// (DEV 50 0.709, Lite dev 0.774; the title alone ×2 0.699 and 0.741,
	// the whole text alone ×2 0.702 and 0.774) and leaves short queries
	// as they were.
	LongNameBoost float64
	// QualMiss multiplies the definition boost of a symbol query's name
	// ("http.Server") for a definition whose directories, file stem,
	// breadcrumb and symbol do not hold the query's qualifiers (net/rpc's
	// Server). On the Go standard library it put io.Reader, sync.Mutex,
	// filepath.Walk and bufio.Scanner first (were strings.Reader,
	// internal/sync, go/ast and text/scanner); semble DEV unchanged
	// (0.839). Lifting a long query's qualified mentions ("QuerySet.none()"
	// in an issue) ×2 measured SWE-bench DEV 50 MRR 0.702 → 0.706 and the
	// Lite dev split 0.742 → 0.736, so long queries are left alone.
	QualMiss float64
	// InternalPenalty multiplies, for symbol queries, chunks under an
	// internal, detail or private directory (Go's internal/sync twin of
	// sync.Mutex, which QualMiss cannot tell apart: both are in a sync
	// directory): the public declaration is what an API lookup wants.
	// semble DEV unchanged at 0.8 (its symbol queries name no twin).
	InternalPenalty float64
	// PatchWeight is the weight, in a long query's fusion by file
	// (fuseTitle), of the list of files a diff in the query changes
	// (tests left out): an issue that carries its fix names the file to
	// change. At 2 the first patched file that either list found
	// outranks a file both lists put first (1/2 + 1/2). SWE-bench Lite
	// DEV 50 Acc@1 (scripts/rank-cv): 0 0.60, 0.5, 1 and 2 0.64 (two
	// issues carry a diff of the file to change; one more diff changes
	// only a test); chosen by all 8 held-out folds.
	PatchWeight float64
	// NamedDefBoost lifts a definition whose exact name is a capitalised
	// word of a question ([analyze.Query].Names: "Semigroup and Monoid
	// type classes" → trait Monoid, not MonoidK); above 0 those words
	// also feed the symbol channel, in their exact case only. semble DEV
	// (scripts/rank-cv, one run per value): 0 0.8403, 0.1 0.8407, 0.2 and
	// 0.3 0.8412 (cats "how Monad composes dependent effectful
	// computations" 0.79 → 1.00), 0.5 0.8397 (zod "JSON Schema to Zod
	// schema conversion" 1.00 → 0.63); 11 of 12 held-out folds choose
	// 0.2. An issue's title is searched as a question: SWE-bench Lite DEV
	// 50 Acc@1 0.64 → 0.66 and MRR 0.732 → 0.748 at 0.2 and 0.3 (sympy
	// "Wrong Derivative kind attribute" → class Derivative), chosen by all
	// 8 folds; the Lite dev split unchanged (MRR 0.774).
	NamedDefBoost float64
	// LongDocPenalty further multiplies prose (markdown and text files)
	// for long queries: an issue quotes the documentation it read, while
	// the change it asks for is in code. SWE-bench DEV 50 Acc@1/@10 and
	// MRR (Lite dev split MRR): 1 0.56/0.82 0.675 (0.741), 0.6 0.58/0.84
	// 0.685 (0.742), 0.3 the same as 0.6.
	LongDocPenalty float64
}

// denseRerank returns the dense-rerank weight for a query kind.
func (t tuning) denseRerank(k analyze.QueryKind) float64 {
	if k == analyze.QueryLong {
		return t.DenseRerankLong
	}
	return t.DenseRerank
}

// tinyLines: a chunk is tiny when EndLine-StartLine < tinyLines, i.e. it
// spans at most three lines.
const tinyLines = 3

var tune = tuning{
	DefBoost:          1.0,
	DefFold:           0.3,
	DefBoostOther:     0.3,
	NameBoost:         0.5,
	Coherence:         0.08,
	TestPenalty:       0.3,
	ExamplePenalty:    0.7,
	DocPenalty:        0.8,
	VendorPenalty:     0.5,
	DeclPenalty:       0.8,
	Diversity:         0.1,
	SiblingShare:      0.8,
	SiblingDiversity:  0.5,
	PathWeight:        1,
	TinyPenalty:       0.6,
	FileBM25:          1,
	DenseRerank:       2,
	DenseRerankLong:   0,
	SupersededPenalty: 0.7,
	ForeignOSPenalty:  0.7,
	DenseDropDF:       0.5,
	TitleWeight:       1,
	TitleRRFK:         1,
	LongNameBoost:     2,
	LongDocPenalty:    0.5,
	QualMiss:          0.5,
	InternalPenalty:   0.8,
	PatchWeight:       2,
	NamedDefBoost:     0.2,
}

// rank applies the ranking adjustments in place and sorts cands by score.
// names maps chunk ids to bare defined names; declared maps chunks the
// symbol channel found by a name declared inside them to that
// declaration, which counts as the chunk's definition (nil: none); words
// are q.Raw's content words (newQueryWords) and quals its qualified
// names (queryQualifiers), analysed once per search for this and the
// recall channels.
func rank(q *analyze.Query, words queryWords, quals qualified, cands []Result, names map[int64]string, declared map[int64]store.Declared) {
	if len(cands) == 0 {
		return
	}
	top := 0.0
	for _, c := range cands {
		top = math.Max(top, c.Score)
	}
	raw := strings.ToLower(q.Raw)
	// A short query that names tests, examples or docs asks for them; a
	// long one (an issue, a traceback), or its title, mentions them in
	// passing while the code to change is the implementation.
	short := q.Kind != analyze.QueryLong && !q.IsTitle
	wantsTests := short && mentions(raw, "test", "tests", "testing", "spec", "specs", "unittest", "fixture", "fixtures")
	wantsExamples := short && mentions(raw, "example", "examples", "demo", "demos", "sample", "samples")
	wantsDocs := short && mentions(raw, "doc", "docs", "documentation", "readme", "guide", "tutorial", "changelog")

	syms := map[string]bool{}
	symsFold := map[string]bool{}
	for _, s := range q.Symbols {
		l := lastSegment(s)
		syms[l] = true
		symsFold[strings.ToLower(l)] = true
	}
	if q.Kind == analyze.QuerySymbol {
		l := lastSegment(q.Name)
		syms[l] = true
		symsFold[strings.ToLower(l)] = true
	}
	// A Rust macro is asked for as it is invoked ("select!", "vec!") and
	// defined without the "!" (macro_rules! select); the "!" stays on
	// every other name (Ruby's save!).
	var macroSyms map[string]bool
	if q.Kind == analyze.QuerySymbol {
		macroSyms = map[string]bool{}
		for s := range syms {
			if m, ok := strings.CutSuffix(s, "!"); ok && m != "" {
				macroSyms[m] = true
			}
		}
	}

	named := map[string]bool{}
	for _, n := range q.Names {
		named[n] = true
	}
	// A short query that writes a type and the name of one of its members
	// apart ("AxiosHeaders normalize", "JsonReader peek") asks for that
	// member, as its qualified form does: the query's words that are not
	// stopwords, and its symbols' names, lower case. With
	// any word of the query taken for an owner as well, "http server
	// shutdown" found Server.Shutdown, but semble DEV lost 0.001 (a
	// Phoenix question 1.0 -> 0.63): only code-style symbols own. A member
	// may be written in code style too ("ArgMatches get_one"): a symbol
	// of the query owned by another of its symbols is the member asked
	// for, not a second subject.
	var memberWords, ownerNames map[string]bool
	if short && q.Kind != analyze.QuerySymbol && len(q.Symbols) > 0 {
		memberWords, ownerNames = map[string]bool{}, map[string]bool{}
		for _, s := range q.Symbols {
			ownerNames[strings.ToLower(lastSegment(s))] = true
		}
		analyze.Words(raw, func(w string, _ int) {
			if !analyze.IsStopword(w) {
				memberWords[w] = true
			}
		})
	}
	// The owners a qualified symbol query writes ("AxiosHeaders" of
	// "AxiosHeaders.normalize", "Sinatra" of "Sinatra::Base"), lower
	// case: where the name asked for is defined, not what is asked for.
	owners := map[string]bool{}
	if q.Kind == analyze.QuerySymbol {
		target := lastSegment(q.Name)
		lower := strings.ToLower(target)
		for _, qual := range quals[target] {
			for _, w := range qual {
				if w != lower {
					owners[w] = true
				}
			}
		}
	}
	wantsInternal := q.Kind == analyze.QuerySymbol && mentions(raw, "internal", "detail", "details", "impl", "private")
	// The names a symbol query asks for that a candidate defines as a
	// type, lower case: an impl block of that name (Rust "impl X {",
	// whose header is often a chunk of one line once its methods are
	// chunks of their own; a Swift extension) holds its methods, not its
	// definition, and is lifted as an owner is.
	typeDefined := map[string]bool{}
	if q.Kind == analyze.QuerySymbol {
		for _, c := range cands {
			if name := names[c.ChunkID]; c.Kind != kindImpl && isDefinitionKind(c.Kind) && symsFold[strings.ToLower(name)] {
				typeDefined[strings.ToLower(name)] = true
			}
		}
	}

	// What each candidate defines, read once for the loop below; heldDef:
	// a candidate defines the name a qualified symbol query asks for under
	// its qualifiers (its own definition or one declared in it).
	defs := make([]definition, len(cands))
	heldDef, ownedDef := false, false
	for i := range cands {
		defs[i] = definedBy(&cands[i], names, declared, quals, q.Kind == analyze.QuerySymbol)
		heldDef = heldDef || q.Kind == analyze.QuerySymbol && defs[i].held && syms[defs[i].name]
		ownedDef = ownedDef || q.Kind == analyze.QuerySymbol && defs[i].owned && syms[defs[i].name]
	}
	perFile := map[string]int{}
	for _, c := range cands {
		perFile[c.Path]++
	}
	superseded := supersededPaths(perFile, raw)
	wantsOS := mentionsOS(raw)
	// What a file's path says is the same for each of its chunks.
	facts := make(map[string]*pathFacts, len(perFile))

	for i := range cands {
		c := &cands[i]
		mult := 1.0
		add := 0.0
		d := defs[i]
		name, lname := d.name, strings.ToLower(d.name)
		otherOwner := false
		implOnly := c.Kind == kindImpl && typeDefined[lname]
		if d.isDef {
			qs, held := quals[name], d.held
			switch {
			case implOnly:
				add += tune.DefBoostOther * top
				c.Boosts = append(c.Boosts, "impl-block")
			case owners[lname]:
				// The owner's definition holds or leads to the answer,
				// so it counts as a name the query mentions: with the
				// full lift, a one-line class header outranked the
				// method asked for, whose own chunk the header's file
				// then damped as a second result (diversify). semble
				// DEV NDCG@10 unchanged (0.848) either way.
				add += tune.DefBoostOther * top
				c.Boosts = append(c.Boosts, "owner-definition")
			case q.Kind == analyze.QuerySymbol && (syms[name] || c.Kind == "macro" && macroSyms[name]):
				b := tune.DefBoost
				switch {
				case held && !d.owned && ownedDef:
					// Another candidate is a member of the type the
					// qualifier names: "Fernet.decrypt" is Fernet's
					// method, not MultiFernet's in the module fernet.
					b *= tune.QualMiss
					c.Boosts = append(c.Boosts, "definition (loosely qualified)")
				case held:
					c.Defines = true
					c.Boosts = append(c.Boosts, "definition (qualified)")
				case len(qs) > 0:
					b *= tune.QualMiss
					if heldDef {
						// The qualified definition is among the
						// candidates: another owner's is further off,
						// and its file's name holding the qualifier
						// (value_parser.rs for Parser::parse) says
						// nothing more.
						b *= tune.QualMiss
						otherOwner = true
					}
					c.Boosts = append(c.Boosts, "definition (other owner)")
				default:
					c.Defines = true
					c.Boosts = append(c.Boosts, "definition")
				}
				add += b * top
			case memberWords[lname] && ownedBy(c.Symbol, ownerNames, lname):
				add += tune.DefBoost * top
				c.Boosts = append(c.Boosts, "member-definition")
			case q.Kind == analyze.QuerySymbol && symsFold[lname]:
				add += tune.DefFold * tune.DefBoost * top
				c.Boosts = append(c.Boosts, "definition~")
			case syms[name] && inFrameFile(q.FrameScoped[name], c.Path):
				add += tune.DefBoostOther * top
				c.Boosts = append(c.Boosts, "mentioned-definition")
			case tune.NamedDefBoost > 0 && named[name]:
				add += tune.NamedDefBoost * top
				c.Boosts = append(c.Boosts, "named-definition")
			}
		}
		f := facts[c.Path]
		if f == nil {
			f = factsOf(c.Path, words)
			facts[c.Path] = f
		}
		if q.Kind == analyze.QuerySymbol && !wantsInternal && f.internal {
			mult *= tune.InternalPenalty
			c.Boosts = append(c.Boosts, "internal")
		}
		// File name and directory matches.
		if share := f.share; share > 0 && !otherOwner {
			if q.Kind == analyze.QueryLong {
				share = math.Min(share, 0.2)
			}
			nb := tune.NameBoost
			if !short {
				nb *= tune.LongNameBoost
			}
			add += nb * share * top
			c.Boosts = append(c.Boosts, fmt.Sprintf("file-name×%.2f", share))
		}
		if q.Kind == analyze.QuerySymbol && symsFold[f.stem] {
			add += 0.3 * top
			c.Boosts = append(c.Boosts, "file-is-symbol")
		}
		if n := perFile[c.Path]; n > 1 {
			mult *= 1 + tune.Coherence*math.Log(float64(n))
		}
		// A definition of a name a short query writes is never tiny: a
		// one-line function the query names must not lose to a longer
		// chunk that only mentions it. An issue text names many
		// identifiers in passing, and so does its title line; sparing
		// their one-line definitions cost SWE-bench DEV 50 Acc@1
		// 0.60 → 0.52 (whole text and title) and 0.56 (title alone).
		// The owner of a qualified name is not the name asked for: its
		// one-line header ("impl ArgAction {" of "ArgAction::Count") is
		// tiny.
		if c.EndLine-c.StartLine < tinyLines && !(syms[name] && !owners[lname] && !implOnly && (q.Kind == analyze.QuerySymbol || short && isDefinitionKind(c.Kind))) {
			mult *= tune.TinyPenalty
			c.Boosts = append(c.Boosts, "tiny")
		}
		if superseded[c.Path] {
			mult *= tune.SupersededPenalty
			c.Boosts = append(c.Boosts, "superseded")
		}
		if !wantsOS && f.foreignOS {
			mult *= tune.ForeignOSPenalty
			c.Boosts = append(c.Boosts, "other-os")
		}
		switch {
		case !wantsTests && f.test:
			mult *= tune.TestPenalty
			c.Boosts = append(c.Boosts, "test")
		case !wantsExamples && f.example:
			mult *= tune.ExamplePenalty
			c.Boosts = append(c.Boosts, "example")
		case f.vendor:
			mult *= tune.VendorPenalty
			c.Boosts = append(c.Boosts, "vendored")
		case !wantsDocs && (c.Language == "markdown" || c.Language == "text"):
			mult *= tune.DocPenalty
			c.Boosts = append(c.Boosts, "docs")
		case f.decl && !(short && f.pyInit && isCodeDefinition(c.Kind)) && !c.Defines:
			// The definition a symbol query asks for is the answer
			// wherever it is: a package that ships .d.ts and .js only
			// defines ErrorCode in its .d.ts (semble DEV and the ranking
			// suite unchanged; an issue text is never a symbol query).
			// A package's __init__.py mostly re-exports, but a function
			// or class defined there is the code itself (pygments keeps
			// guess_lexer and get_lexer_by_name in lexers/__init__.py):
			// a short query finds it as any other. An issue text keeps
			// the penalty: sparing them moved SWE-bench DEV 50 Acc@1 0.66
			// → 0.64 (two sphinx issues lost their gold file's first rank
			// to the 3,000-line sphinx/ext/autodoc/__init__.py; semble
			// DEV unchanged).
			mult *= tune.DeclPenalty
			c.Boosts = append(c.Boosts, "declarations")
		}
		if q.Kind == analyze.QueryLong && (c.Language == "markdown" || c.Language == "text") {
			mult *= tune.LongDocPenalty
			c.Boosts = append(c.Boosts, "prose")
		}
		c.Score = (c.Score + add) * mult
	}
	sortResults(cands, func(a, b *Result) int {
		if c := byScore(a, b); c != 0 {
			return c
		}
		// Equal scores go by place in the tree, not by chunk id (ids
		// follow the order files were indexed in).
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.StartLine, b.StartLine), cmp.Compare(a.ChunkID, b.ChunkID))
	})
}

// definition is what a candidate defines as ranking reads it.
type definition struct {
	name  string // the bare defined name ("" for none)
	isDef bool   // name is set and of a definition's kind
	held  bool   // a definition under the query's qualifiers of name
	owned bool   // held, and a member of the type the qualifiers name
}

// definedBy returns what chunk c defines: its own definition (names holds
// its bare name), or the declaration inside it that the symbol channel
// found it by (declared): "time.Monday" in the const group that starts
// with Sunday, "io.Reader.Read" in the Reader interface, "Keyword =
// Token.Keyword" in a block of module assignments. held is worked out
// only for a name the query qualifies (quals).
func definedBy(c *Result, names map[int64]string, declared map[int64]store.Declared, quals qualified, declOnly bool) definition {
	name, symbol, crumb, kind := names[c.ChunkID], c.Symbol, c.Breadcrumb, c.Kind
	d, declaredHere := declared[c.ChunkID]
	if declaredHere {
		name, symbol, crumb, kind = d.Name, cmp.Or(d.Symbol, d.Name), d.Crumb, d.Kind
	}
	// For a symbol query (declOnly) a later piece of a split definition
	// (a class's members past its first 60 lines, a long function's tail)
	// continues the definition without declaring it: "ArrayList" answered
	// a one-line comment between ArrayList's methods, a piece labelled as
	// the class, before the piece holding its declaration (semble DEV:
	// 20 first answers now start at the declaration, NDCG@10 unchanged). A
	// question that names a type may ask about any of its pieces: applied
	// to every query, SWE-bench DEV 50 lost sympy-21614 ("Wrong Derivative
	// kind attribute", whose kind property is in a later piece of class
	// Derivative) from rank 1 to 3.
	def := definition{name: name, isDef: name != "" && isDefinitionKind(kind) && !isConstructor(name, symbol, kind) && (!declOnly || c.Part <= 1 || declaredHere)}
	if qs := quals[name]; def.isDef && len(qs) > 0 {
		def.held = holdsQualifiers(c.Path, c.Language, symbol, crumb, qs)
		def.owned = def.held && ownerQualified(symbol, qs)
	}
	return def
}

// isConstructor reports whether a method or function is its type's
// constructor, named as the type is (Java, C#, C++ and Dart write
// ArrayList.ArrayList, Foo::Foo): it builds the type but does not define
// the name, so a question naming the type asks for the type's own chunk.
// The symbol query "ArrayList" answered the no-argument constructor
// first, and "how does ConcurrentHashMap resize its table" the empty
// constructor, both lifted as definitions of the name.
//
// It runs for every method and function among a query's candidates, so it
// compares strings instead of parsing the symbol (graph.ParseLookup runs
// two regular expressions a call).
func isConstructor(name, symbol, kind string) bool {
	if name == "" || kind != "method" && kind != "function" {
		return false
	}
	owner, ok := strings.CutSuffix(symbol, name)
	if !ok {
		return false
	}
	for _, sep := range []string{"::", ".", "#"} {
		if o, ok := strings.CutSuffix(owner, sep); ok {
			o = lastSegment(o)
			if i := strings.IndexByte(o, '<'); i > 0 {
				o = o[:i] // Foo<T>::Foo
			}
			return o == name
		}
	}
	return false
}

// ownedBy reports whether a definition's symbol ("AxiosHeaders.normalize",
// "(*Server).Shutdown") is a member of a type whose name, lower case, is
// in owners and is not name (the member's own name, lower case: a
// constructor Foo.Foo is not a member asked for by "Foo"): its innermost
// qualifier, not its file or directories.
func ownedBy(symbol string, owners map[string]bool, name string) bool {
	quals := graph.ParseLookup(symbol).Quals
	if len(quals) == 0 {
		return false
	}
	o := strings.ToLower(quals[len(quals)-1])
	return o != name && owners[o]
}

// pathFacts is what [rank] reads from a candidate's path.
type pathFacts struct {
	stem      string  // fileStem
	share     float64 // the query words its name holds (queryWords.share)
	internal  bool    // isInternalPath
	foreignOS bool    // isForeignOSPath for this system
	test      bool    // discover.IsTestPath
	example   bool    // isExamplePath
	vendor    bool    // isVendorPath
	decl      bool    // a declarations file (.d.ts, __init__.py)
	pyInit    bool    // a Python package's __init__.py
}

func factsOf(p string, words queryWords) *pathFacts {
	n := namedPath(p)
	f := n.facts
	f.share = words.share(n.terms, n.words)
	return &f
}

// pathName is what ranking reads from a path alone, whatever the query:
// its facts but share, and the terms and words of its name that share
// compares with the query's.
type pathName struct {
	facts pathFacts       // share unset
	terms map[string]bool // nameTerms; read only
	words []string        // nameWords; read only
}

// pathNames caches pathName by path for every search of the process:
// working them out was 0.2 ms of a 3.6 ms server-side retrieval in quick
// mode, for the same few hundred candidate files query after query
// (BenchmarkRetrievalGoroot's profile). A path's entry never changes
// (it depends on the path string and the system only), so entries are
// never stale; the cache is emptied when it holds maxPathNames paths,
// about 10 MB at 300 bytes a path.
var (
	pathNames    sync.Map // path -> *pathName
	pathNamesLen atomic.Int64
)

const maxPathNames = 1 << 15

// namedPath returns p's cached pathName, working it out on a miss.
func namedPath(p string) *pathName {
	if v, ok := pathNames.Load(p); ok {
		return v.(*pathName)
	}
	n := pathNameOf(p)
	if pathNamesLen.Add(1) > maxPathNames {
		pathNames.Clear()
		pathNamesLen.Store(1)
	}
	pathNames.Store(p, n)
	return n
}

// pathNameOf works out p's pathName.
func pathNameOf(p string) *pathName {
	lower := strings.ToLower(p)
	return &pathName{
		facts: pathFacts{
			stem:      fileStem(p),
			internal:  isInternalPath(p),
			foreignOS: isForeignOSPath(lower, runtime.GOOS),
			test:      discover.IsTestPath(p),
			example:   isExamplePath(lower),
			vendor:    isVendorPath(lower),
			decl:      strings.HasSuffix(lower, ".d.ts") || path.Base(lower) == "__init__.py",
			pyInit:    path.Base(lower) == "__init__.py",
		},
		terms: nameTerms(p),
		words: nameWords(p),
	}
}

// byScore orders results by score, best first.
func byScore(a, b *Result) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	}
	return 0
}

// sortResults sorts rs by order, stably (results that order calls equal
// keep their relative order), as sort.SliceStable would. It sorts
// positions, not the results themselves (a Result is about 200 bytes and
// a ranking sorts hundreds), then moves each result once, in place.
func sortResults(rs []Result, order func(a, b *Result) int) {
	idx := make([]int32, len(rs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(i, j int32) int {
		if c := order(&rs[i], &rs[j]); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	// Move each result once, following the permutation's cycles (position
	// k takes the result at idx[k]), instead of through a sorted copy.
	for k := range idx {
		if idx[k] == int32(k) {
			continue
		}
		tmp := rs[k]
		j := k
		for {
			next := int(idx[j])
			idx[j] = int32(j)
			if next == k {
				rs[j] = tmp
				break
			}
			rs[j] = rs[next]
			j = next
		}
	}
}

// diversify damps each further chunk of an already-listed file by
// tune.Diversity per earlier chunk (×0.1, ×0.01, …) so the first results
// cover more files, then returns the best limit results (cands sorted by
// score, best first). For a grouped answer (a pack, whose files are
// shown by their best hit with up to a few segments each) a chunk that
// scores at least tune.SiblingShare of its file's best is damped by
// tune.SiblingDiversity instead: it answers as well as the file's first.
func diversify(cands []Result, limit int, grouped bool) []Result {
	type listed struct {
		n    int     // the file's chunks so far
		best float64 // its first (best) chunk's score
	}
	files := map[string]listed{}
	for i := range cands {
		c := &cands[i]
		f, ok := files[c.Path]
		if !ok {
			files[c.Path] = listed{n: 1, best: c.Score}
			continue
		}
		damp := tune.Diversity
		if grouped && c.Score >= tune.SiblingShare*f.best {
			damp = tune.SiblingDiversity
		}
		c.Score *= math.Pow(damp, float64(f.n))
		f.n++
		files[c.Path] = f
	}
	sortResults(cands, byScore)
	if len(cands) > limit {
		cands = cands[:limit]
	}
	return cands
}

// mentions reports whether text has one of the words (lower case) as a
// whole word or as a part of an identifier (TestRetry, test_parse).
func mentions(text string, words ...string) bool {
	found := false
	analyze.Words(text, func(w string, _ int) {
		if found {
			return
		}
		analyze.Parts(w, func(p string) {
			lp := strings.ToLower(p)
			for _, x := range words {
				if lp == x {
					found = true
				}
			}
		})
	})
	return found
}

func isExamplePath(p string) bool {
	stem := fileStem(p)
	return strings.Contains(p, "example") || strings.Contains(p, "/demo/") || strings.HasPrefix(p, "demo/") ||
		strings.Contains(p, "/samples/") || strings.HasPrefix(p, "samples/") || strings.Contains(p, "/benchmark") ||
		strings.HasPrefix(p, "bench") || strings.Contains(p, "docs_src/") || strings.HasPrefix(p, "docs/") ||
		strings.HasSuffix(stem, "_benchmark") || strings.HasSuffix(stem, "-benchmark") || strings.HasSuffix(stem, "_bench") ||
		strings.HasSuffix(stem, "-bench")
}

func isVendorPath(p string) bool {
	return strings.Contains(p, "vendor/") || strings.Contains(p, "third_party/") || strings.Contains(p, "/compat/") ||
		strings.Contains(p, "/legacy/") || strings.Contains(p, "_generated") || strings.Contains(p, ".pb.") ||
		strings.Contains(p, "/gen/") || strings.Contains(p, ".min.") || isVersionedAsset(path.Base(p))
}

// isVersionedAsset reports whether a file name matches reVersionedAsset,
// trying the expression only on the names it can match: it runs for every
// candidate file of every search.
func isVersionedAsset(name string) bool {
	return (strings.HasSuffix(name, ".js") || strings.HasSuffix(name, ".mjs") || strings.HasSuffix(name, ".css")) &&
		reVersionedAsset().MatchString(name)
}

// reVersionedAsset matches the name of a copied script or style sheet that
// carries its release (jquery-3.5.1.js, underscore-1.13.1.min.js): a
// library shipped as an asset, not the project's own code.
var reVersionedAsset = lazyre.New(`[-.]v?\d+\.\d+(\.\d+)*(\.min)?\.(js|mjs|css)$`)

// isInternalPath reports whether a path has a directory that marks code
// outside the public API: internal (Go, abseil), detail or details (C++),
// impl, private, _private or __private (Rust macros' support modules).
func isInternalPath(p string) bool {
	dir, _ := path.Split(strings.ToLower(p))
	for _, d := range strings.Split(dir, "/") {
		switch d {
		case "internal", "detail", "details", "impl", "private", "_private", "__private":
			return true
		}
	}
	return false
}

// supersededPaths returns the candidate paths (the keys of paths) under a
// version directory (v1, v2, …) whose parent directory holds a higher
// version among the candidates: src/v3/types.ts beside
// src/v4/core/schemas.ts. A version the query (lower case) names, as in
// "v3 error types", is not damped.
func supersededPaths(paths map[string]int, query string) map[string]bool {
	type at struct {
		path, parent string
		v            int
	}
	var vs []at
	newest := map[string]int{}
	named := map[string]bool{}
	analyze.Words(query, func(w string, _ int) { named[w] = true })
	for p := range paths {
		segs := strings.Split(p, "/")
		for i, s := range segs[:len(segs)-1] {
			if len(s) < 2 || s[0] != 'v' {
				continue
			}
			n, err := strconv.Atoi(s[1:])
			if err != nil || n < 0 {
				continue
			}
			parent := strings.Join(segs[:i], "/")
			if !named[strings.ToLower(s)] {
				vs = append(vs, at{p, parent, n})
			}
			newest[parent] = max(newest[parent], n)
			break
		}
	}
	var out map[string]bool
	for _, x := range vs {
		if x.v < newest[x.parent] {
			if out == nil {
				out = map[string]bool{}
			}
			out[x.path] = true
		}
	}
	return out
}

// isForeignOSPath reports whether the lower-case path p is built only for
// another operating system than host (a GOOS value): on any host but
// Windows a win/, windows/ or win32/ directory or a *_windows.* file; on
// Windows a unix/, linux/ or posix/ directory or a *_unix.* file; on
// any host a file named for another system (sunos.c, os390.c,
// *_freebsd.go).
func isForeignOSPath(p, host string) bool {
	dirs, base := path.Split(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	hasDir := func(names ...string) bool {
		for _, n := range names {
			if strings.HasPrefix(dirs, n+"/") || strings.Contains(dirs, "/"+n+"/") {
				return true
			}
		}
		return false
	}
	// A part of the stem between _ and - (zsyscall_windows, os390-syscalls).
	for _, part := range strings.FieldsFunc(stem, func(r rune) bool { return r == '_' || r == '-' }) {
		if os, ok := osNames[part]; ok && os != host && !(host != "windows" && os == "unix") {
			return true
		}
	}
	if host == "windows" {
		return hasDir("unix", "linux", "posix")
	}
	return hasDir("win", "windows", "win32")
}

// mentionsOS reports whether the lower-case query names an operating
// system (or "win", "msvc", "mingw", "bsd"): then no file is another
// system's.
func mentionsOS(query string) bool {
	found := false
	analyze.Words(query, func(w string, _ int) {
		_, os := osNames[w]
		found = found || os || w == "win" || w == "msvc" || w == "mingw" || w == "bsd"
	})
	return found
}

// osNames maps file-name words that name an operating system to its GOOS
// value ("unix" for the family).
var osNames = map[string]string{
	"windows": "windows", "win32": "windows", "win64": "windows",
	"linux": "linux", "android": "android",
	"darwin": "darwin", "macos": "darwin", "osx": "darwin", "ios": "ios",
	"freebsd": "freebsd", "openbsd": "openbsd", "netbsd": "netbsd", "dragonfly": "dragonfly",
	"solaris": "solaris", "sunos": "solaris", "illumos": "illumos", "aix": "aix",
	"os390": "zos", "zos": "zos", "ibmi": "ibmi", "plan9": "plan9", "haiku": "haiku",
	"cygwin": "cygwin", "hurd": "hurd", "qnx": "qnx",
	"unix": "unix", "posix": "unix",
}

// inFrameFile reports whether path, relative to the root, is the file one
// of frames names ([store.MentionNames], as the mention channel matches
// them), or whether frames is empty: a name the query writes only as a
// stack frame's function ([analyze.Query].FrameScoped) is the definition
// in that frame's file, not each definition of the name ("__init__" of
// run.py, not of every class).
func inFrameFile(frames []string, path string) bool {
	return len(frames) == 0 || slices.ContainsFunc(frames, func(f string) bool { return store.MentionNames(path, f) })
}
