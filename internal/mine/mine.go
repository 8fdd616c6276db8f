package mine

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/ctx-dev/ctx/internal/chunk"
	"github.com/ctx-dev/ctx/internal/discover"
)

// Output file names in [Options.Out].
const (
	PairsFile    = "pairs.jsonl"
	ManifestFile = "manifest.json"
)

// FormatVersion identifies the record and manifest format.
//
//	1: query, code, kind, lang, source, path, split; manifest with sources, totals, exclusions.
const FormatVersion = 1

// Defaults for [Options].
const (
	DefaultMaxQueryBytes = 256
	DefaultMaxCodeBytes  = 2 << 10
)

// Split names.
const (
	SplitTrain   = "train"
	SplitHeldout = "heldout"
)

// Options configures [Mine].
type Options struct {
	// Roots are the sources to mine. Two roots with one ID are an error.
	Roots []Root
	// Out is the directory that receives [PairsFile] and [ManifestFile];
	// it is created if missing.
	Out string
	// Seed drives the held-out split and the language balancing: the same
	// roots, options and seed give byte-identical output.
	Seed uint64
	// Heldout is the fraction of source groups held out, in [0, 1].
	Heldout float64
	// MaxPerLang caps the pairs kept per language; 0 means no cap. Which
	// pairs are kept is decided by a seeded hash, not by file order.
	MaxPerLang int
	// MaxQueryBytes and MaxCodeBytes cap the lengths of queries (cut at a
	// word) and code (cut at a line); 0 means 256 and 2048.
	MaxQueryBytes int
	MaxCodeBytes  int
	// Exclude is the exclusion list; nil means [DefaultExclusions]. Tests
	// may pass their own; the benchmark's list must stay in force for
	// real data.
	Exclude *Exclusions
	// Workers bounds the files chunked at once; 0 means GOMAXPROCS.
	Workers int
	// Logger receives progress per source; nil discards.
	Logger *slog.Logger
}

// Manifest describes one mining run; it is written as [ManifestFile].
// It holds no timings or host names, so it is as reproducible as the pairs.
type Manifest struct {
	Format  int             `json:"format"`
	Seed    uint64          `json:"seed"`
	Options ManifestOptions `json:"options"`
	// Pairs is the number of records in [PairsFile].
	Pairs int `json:"pairs"`
	// Sources lists every mined source, sorted by ID.
	Sources []SourceStats `json:"sources"`
	// Excluded lists the sources skipped by the exclusion list.
	Excluded []ExcludedSource `json:"excluded"`
	// ByLang and ByKind count records: language (or kind) → split → n.
	ByLang map[string]map[string]int `json:"byLang"`
	ByKind map[string]map[string]int `json:"byKind"`
	// Dropped counts candidate pairs left out, by reason ("duplicate-code",
	// "duplicate-pair", "language-cap", "doc-short", …).
	Dropped map[string]int `json:"dropped"`
	// SkippedFiles counts files not mined, by reason.
	SkippedFiles map[string]int `json:"skippedFiles"`
}

// ManifestOptions records the options that shape the output.
type ManifestOptions struct {
	Heldout       float64 `json:"heldout"`
	MaxPerLang    int     `json:"maxPerLang"`
	MaxQueryBytes int     `json:"maxQueryBytes"`
	MaxCodeBytes  int     `json:"maxCodeBytes"`
}

// SourceStats describes one mined source.
type SourceStats struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Dir     string `json:"dir"`
	Group   string `json:"group"`
	Version string `json:"version"`
	Package string `json:"package,omitempty"`
	Licence string `json:"licence"`
	Heldout bool   `json:"heldout"`
	// Files is how many files were read and chunked.
	Files int `json:"files"`
	// Pairs counts the records written, by pair kind.
	Pairs map[string]int `json:"pairs"`
}

// ExcludedSource is a source the exclusion list kept out.
type ExcludedSource struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Dir    string `json:"dir"`
	Reason string `json:"reason"`
}

// Mine walks opts.Roots, mines (natural language → code) pairs with the
// ctx chunker and writes them, with a manifest, to opts.Out.
//
// Sources are processed held-out first, so a piece of code found in both
// a held-out and a training source is kept only in the held-out one (code
// is deduplicated by a hash of its whitespace-normalised text within each
// pair kind, and pairs by query and code). A bad file is counted in
// Manifest.SkippedFiles and never stops the run.
func Mine(ctx context.Context, opts Options) (*Manifest, error) {
	if opts.Out == "" {
		return nil, errors.New("mine: no output directory")
	}
	if opts.Heldout < 0 || opts.Heldout > 1 {
		return nil, fmt.Errorf("mine: held-out fraction %v not in [0, 1]", opts.Heldout)
	}
	lim := limits{query: cmp.Or(opts.MaxQueryBytes, DefaultMaxQueryBytes), code: cmp.Or(opts.MaxCodeBytes, DefaultMaxCodeBytes)}
	excl := opts.Exclude
	if excl == nil {
		excl = DefaultExclusions()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Manifest{
		Format: FormatVersion, Seed: opts.Seed,
		Options:  ManifestOptions{Heldout: opts.Heldout, MaxPerLang: opts.MaxPerLang, MaxQueryBytes: lim.query, MaxCodeBytes: lim.code},
		Sources:  []SourceStats{},
		Excluded: []ExcludedSource{},
		ByLang:   map[string]map[string]int{}, ByKind: map[string]map[string]int{},
		Dropped: map[string]int{}, SkippedFiles: map[string]int{},
	}

	roots := slices.Clone(opts.Roots)
	slices.SortStableFunc(roots, func(a, b Root) int { return strings.Compare(a.ID, b.ID) })
	var mined []Root
	for i, r := range roots {
		if r.ID == "" {
			return nil, fmt.Errorf("mine: root %s has no ID", r.Dir)
		}
		if i > 0 && roots[i-1].ID == r.ID {
			return nil, fmt.Errorf("mine: two roots with ID %s", r.ID)
		}
		if why, ok := excl.Check(r); ok {
			m.Excluded = append(m.Excluded, ExcludedSource{ID: r.ID, Kind: r.Kind, Dir: r.Dir, Reason: why})
			log.Info("excluded", "source", r.ID, "reason", why)
			continue
		}
		mined = append(mined, r)
	}
	heldout := func(r Root) bool { return unitHash(opts.Seed, "split", r.group()) < opts.Heldout }
	// Held-out sources first: deduplication then keeps shared code out of training.
	slices.SortStableFunc(mined, func(a, b Root) int {
		ha, hb := heldout(a), heldout(b)
		if ha != hb {
			if ha {
				return -1
			}
			return 1
		}
		return 0
	})

	ck := chunk.New(nil)
	seenCode := map[[16]byte]bool{}
	seenPair := map[[16]byte]bool{}
	var all []Pair
	srcIndex := map[string]int{}
	for _, r := range mined {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st := SourceStats{ID: r.ID, Kind: r.Kind, Dir: r.Dir, Group: r.group(), Version: r.Version, Package: r.Package,
			Licence: detectLicence(r), Heldout: heldout(r), Pairs: map[string]int{}}
		split := SplitTrain
		if st.Heldout {
			split = SplitHeldout
		}
		ps, files, err := mineRoot(ctx, ck, r, lim, opts.Workers, excl, m)
		if err != nil {
			return nil, fmt.Errorf("mining %s: %w", r.ID, err)
		}
		st.Files = files
		kept := 0
		for _, p := range ps {
			ck := digest(p.Kind, normalise(p.Code))
			pk := digest(p.Query, "\x00", p.Code)
			switch {
			case seenCode[ck]:
				m.Dropped["duplicate-code"]++
			case seenPair[pk]:
				m.Dropped["duplicate-pair"]++
			default:
				seenCode[ck], seenPair[pk] = true, true
				p.Source, p.Split = r.ID, split
				all = append(all, p)
				kept++
			}
		}
		srcIndex[r.ID] = len(m.Sources)
		m.Sources = append(m.Sources, st)
		log.Info("mined", "source", r.ID, "files", files, "pairs", kept, "heldout", st.Heldout)
	}

	all = balance(all, opts.Seed, opts.MaxPerLang, m.Dropped)
	slices.SortFunc(all, func(a, b Pair) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Path, b.Path), cmp.Compare(a.line, b.line),
			cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)), strings.Compare(a.Query, b.Query))
	})
	for _, p := range all {
		m.Sources[srcIndex[p.Source]].Pairs[p.Kind]++
		inc(m.ByLang, p.Lang, p.Split)
		inc(m.ByKind, p.Kind, p.Split)
	}
	m.Pairs = len(all)
	slices.SortFunc(m.Sources, func(a, b SourceStats) int { return strings.Compare(a.ID, b.ID) })

	if err := writeOutput(opts.Out, all, m); err != nil {
		return nil, err
	}
	return m, nil
}

// mineRoot chunks every indexable file of r (its Files, else a walk of
// its Dir) in parallel and returns its candidate pairs in file order, and
// how many files it read.
func mineRoot(ctx context.Context, ck *chunk.Chunker, r Root, lim limits, workers int, excl *Exclusions, m *Manifest) ([]Pair, int, error) {
	found, err := rootFiles(ctx, r, excl, m)
	if err != nil {
		return nil, 0, err
	}
	var files []discover.File
	for _, f := range found {
		switch {
		case f.Language == discover.LangText || f.Language == discover.LangMarkdown:
		case slices.ContainsFunc(strings.Split(path.Dir(f.Path), "/"), func(d string) bool { return strings.EqualFold(d, "testdata") }):
			m.SkippedFiles["testdata"]++
		default:
			files = append(files, f)
		}
	}
	out, err := mineFiles(ctx, ck, files, lim, workers)
	if err != nil {
		return nil, 0, err
	}
	var all []Pair
	n := 0
	for _, o := range out {
		if o.skip != "" {
			m.SkippedFiles[o.skip]++
			continue
		}
		n++
		for k, v := range o.drops {
			m.Dropped[k] += v
		}
		all = append(all, o.pairs...)
	}
	return all, n, nil
}

// fileResult is what one file gave: its pairs and the ones dropped, or
// why it was skipped.
type fileResult struct {
	pairs []Pair
	drops map[string]int
	skip  string // a discover.Reason, or empty
}

// mineFiles reads, sniffs and chunks files in parallel (workers at a
// time; 0 means GOMAXPROCS) and returns each one's pairs, in file order.
// An unreadable or sniffed-out file is skipped with its reason; errors
// come from the chunker (ctx's cancellation).
func mineFiles(ctx context.Context, ck *chunk.Chunker, files []discover.File, lim limits, workers int) ([]fileResult, error) {
	out := make([]fileResult, len(files))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cmp.Or(workers, runtime.GOMAXPROCS(0)))
	for i, f := range files {
		g.Go(func() error {
			src, err := os.ReadFile(f.Abs)
			if err != nil {
				out[i].skip = string(discover.ReasonUnreadable)
				return nil
			}
			if reason, _, skip := discover.Sniff(f.Path, src); skip {
				out[i].skip = string(reason)
				return nil
			}
			chunks, err := ck.Chunk(gctx, f.Path, f.Language, src)
			if err != nil {
				return err
			}
			drops := map[string]int{}
			var ps []Pair
			for _, c := range chunks {
				for _, p := range pairs(c, f.Language, src, lim, drops) {
					p.Path = f.Path
					ps = append(ps, p)
				}
			}
			out[i] = fileResult{pairs: ps, drops: drops}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// MineFiles mines the pairs of files (doc comment → definition, split
// name and breadcrumb → body, comment → the block it describes) with the
// default length caps and returns each file's pairs, in file order, with
// Path set and Source and Split empty; a skipped file has none. It
// applies no exclusion list: it is for per-repository adaptation, where
// the caller mines the code it is about to search. Errors come from the
// chunker (ctx's cancellation).
func MineFiles(ctx context.Context, ck *chunk.Chunker, files []discover.File, workers int) ([][]Pair, error) {
	res, err := mineFiles(ctx, ck, files, limits{query: DefaultMaxQueryBytes, code: DefaultMaxCodeBytes}, workers)
	if err != nil {
		return nil, err
	}
	out := make([][]Pair, len(res))
	for i := range res {
		out[i] = res[i].pairs
	}
	return out, nil
}

// rootFiles lists the files of r: a walk of r.Dir, or r.Files when set,
// minus those below a directory named like an excluded package's
// ([Exclusions.Path]) and those over [discover.DefaultMaxFileBytes].
func rootFiles(ctx context.Context, r Root, excl *Exclusions, m *Manifest) ([]discover.File, error) {
	if r.Files == nil {
		res, err := discover.Walk(ctx, r.Dir, nil)
		if err != nil {
			return nil, err
		}
		for _, s := range res.Skips {
			m.SkippedFiles[string(s.Reason)]++
		}
		return res.Files, nil
	}
	var files []discover.File
	for _, p := range r.Files {
		if _, ex := excl.Path(p); ex {
			m.SkippedFiles["excluded-dir"]++
			continue
		}
		abs := filepath.Join(r.Dir, filepath.FromSlash(p))
		fi, err := os.Lstat(abs)
		switch {
		case err != nil:
			m.SkippedFiles[string(discover.ReasonUnreadable)]++
			continue
		case !fi.Mode().IsRegular():
			m.SkippedFiles[string(discover.ReasonSymlink)]++
			continue
		case fi.Size() > discover.DefaultMaxFileBytes:
			m.SkippedFiles[string(discover.ReasonTooLarge)]++
			continue
		}
		files = append(files, discover.File{Path: p, Abs: abs, Size: fi.Size(), Language: discover.Language(p)})
	}
	return files, nil
}

// balance keeps at most max pairs per language, those with the smallest
// seeded hash of their query and code; max 0 keeps all.
func balance(all []Pair, seed uint64, max int, dropped map[string]int) []Pair {
	if max <= 0 {
		return all
	}
	byLang := map[string][]int{}
	for i, p := range all {
		byLang[p.Lang] = append(byLang[p.Lang], i)
	}
	keep := make([]bool, len(all))
	for _, idx := range byLang {
		if len(idx) > max {
			hs := make(map[int]uint64, len(idx))
			for _, i := range idx {
				hs[i] = binary.BigEndian.Uint64(seeded(seed, "pick", all[i].Kind, all[i].Query, all[i].Code)[:8])
			}
			slices.SortFunc(idx, func(a, b int) int { return cmp.Or(cmp.Compare(hs[a], hs[b]), cmp.Compare(a, b)) })
			dropped["language-cap"] += len(idx) - max
			idx = idx[:max]
		}
		for _, i := range idx {
			keep[i] = true
		}
	}
	out := all[:0]
	for i, p := range all {
		if keep[i] {
			out = append(out, p)
		}
	}
	return out
}

func writeOutput(dir string, pairs []Pair, m *Manifest) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating output directory: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, PairsFile))
	if err != nil {
		return fmt.Errorf("writing pairs: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("writing pairs: %w", cerr)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := writePairs(w, pairs); err != nil {
		return fmt.Errorf("writing pairs: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing pairs: %w", err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding manifest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing manifest: %w", err)
	}
	return nil
}

func writePairs(w io.Writer, pairs []Pair) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, p := range pairs {
		if err := enc.Encode(p); err != nil {
			return err
		}
	}
	return nil
}

func inc(m map[string]map[string]int, k, split string) {
	if m[k] == nil {
		m[k] = map[string]int{SplitTrain: 0, SplitHeldout: 0}
	}
	m[k][split]++
}

func kindOrder(k string) int {
	switch k {
	case PairDoc:
		return 0
	case PairName:
		return 1
	}
	return 2
}

// normalise collapses all whitespace, so reindented copies of code
// deduplicate.
func normalise(s string) string { return strings.Join(strings.Fields(s), " ") }

func digest(parts ...string) [16]byte {
	h := sha256.New()
	for _, p := range parts {
		io.WriteString(h, p)
		h.Write([]byte{0})
	}
	var d [16]byte
	copy(d[:], h.Sum(nil))
	return d
}

func seeded(seed uint64, parts ...string) []byte {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	for _, p := range parts {
		io.WriteString(h, p)
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

// unitHash maps (seed, parts) to a number in [0, 1).
func unitHash(seed uint64, parts ...string) float64 {
	return float64(binary.BigEndian.Uint64(seeded(seed, parts...)[:8])>>11) / (1 << 53)
}
