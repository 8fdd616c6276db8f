// Package memory keeps a repository's memories: short notes, snippets and
// pointers that users and agents write down about the code ("retries are
// capped in client/retry.go because the upstream rate-limits at 10/s"),
// searched by the same channels as the code and blended with it by the
// engine's context search.
//
// Memories are user-authored data, not derived data, so they live in a
// SQLite file of their own beside the index ([Open]; the engine names it
// <index database>.memories): rebuilding, replacing or clearing the code
// index never touches them. The file is created by the first write; a
// missing file is a repository with no memories.
//
// Search ([Rank]) runs in memory over every stored memory: a repository
// holds hundreds to a few thousand of them. BenchmarkFindMemories (query
// embedding included, built-in model, 2-core AMD EPYC) takes about 8 ms at
// 1,000 memories and 65 ms at 10,000, mostly reading rows and postings
// through the pure-Go SQLite driver. Two channels are fused with
// [search.Fuse]: BM25 over the memory's text, tags and path with the code
// index's analysis ([analyze.Analyze] for the query, [analyze.Terms] for
// the memory) and scoring ([store.BM25TermScore]), and cosine similarity
// of embeddings made with the engine's embedding model.
//
// Invariants: a memory's text is stored as the user gave it (secrets are
// masked only in what is sent to a remote embedding provider, see
// [Embedder].Mask); two memories never share kind, text and path; a
// stored vector is tagged with the model identity that made it and is
// used only with that model (others are re-embedded, see [DB.Refresh]).
package memory

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kinds of memory. A kind says what the text is, for filters and for the
// reader; it does not change how a memory is searched.
const (
	// KindSnippet is a piece of code worth keeping (a working incantation,
	// a query, a command line).
	KindSnippet = "snippet"
	// KindExplanation is prose about why or how something is done: the
	// default, since most memories are notes.
	KindExplanation = "explanation"
	// KindPattern is a convention the code follows ("errors are wrapped
	// once per layer").
	KindPattern = "pattern"
	// KindExample is an example of using an API or a tool.
	KindExample = "example"
	// KindReference is a pointer elsewhere: a design document, an issue, a
	// file to read first.
	KindReference = "reference"
)

// DefaultKind is the kind of a memory stored without one.
const DefaultKind = KindExplanation

// Kinds lists every kind, in the order help texts give them.
var Kinds = []string{KindSnippet, KindExplanation, KindPattern, KindExample, KindReference}

// Limits on one memory ([Normalize]).
const (
	// MaxTextBytes is the longest memory text: 64 KiB. Memories are notes;
	// a longer text belongs in a file the code index reads.
	MaxTextBytes = 64 << 10
	// MaxTags is the most tags one memory holds.
	MaxTags = 32
	// MaxTagBytes is the longest tag.
	MaxTagBytes = 64
	// MaxPathBytes is the longest path a memory may name: Linux's PATH_MAX.
	MaxPathBytes = 4096
)

// ErrInvalid is wrapped by the errors of [Normalize] (and so of
// [DB.Add] and [Import]) for input that cannot be stored: empty or
// oversized text, an unknown kind, a path leaving the root, bad tags.
var ErrInvalid = errors.New("invalid memory")

// ErrNotFound is returned (wrapped) for a memory id that is not stored.
var ErrNotFound = errors.New("memory not found")

// Memory is one stored memory, in the shape of its JSON (snake_case like
// the result JSON).
type Memory struct {
	ID int64 `json:"id"`
	// Kind is one of [Kinds].
	Kind string `json:"kind"`
	Text string `json:"text"`
	// Tags are lower case, unique and sorted; never nil.
	Tags []string `json:"tags"`
	// Path is the slash path, relative to the repository root, that the
	// memory is about; empty when it is about no file in particular.
	Path string `json:"path,omitempty"`
	// Priority orders memories: higher ranks first among equals and lifts
	// a search hit a little (see [PriorityLift]). Default 0.
	Priority int `json:"priority"`
	// Created and Updated are stored in milliseconds and written as RFC
	// 3339 in UTC.
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Duplicate is set on the answer of [DB.Add] when a memory of the same
	// kind, text and path was already stored: the memory returned is that
	// one, unchanged.
	Duplicate bool `json:"duplicate,omitempty"`
}

// Input is a memory to store; [Normalize] checks it and fills defaults.
type Input struct {
	Text     string
	Kind     string   // default [DefaultKind]
	Tags     []string // each may hold several comma-separated tags
	Path     string   // relative to the root, slash or OS separators
	Priority int
}

// Filter narrows a listing or a search. The zero value keeps everything.
type Filter struct {
	// Kind keeps memories of this kind.
	Kind string
	// Tags keeps memories holding every one of these tags (normalised as
	// stored ones are).
	Tags []string
	// PathPrefix keeps memories whose path is this path or lies under it
	// (a directory prefix, compared by whole path elements).
	PathPrefix string
}

// keep reports whether m passes the filter; f must be normalised
// ([Filter.normalize]).
func (f Filter) keep(m *Memory) bool {
	if f.Kind != "" && m.Kind != f.Kind {
		return false
	}
	for _, t := range f.Tags {
		if !slices.Contains(m.Tags, t) {
			return false
		}
	}
	if p := f.PathPrefix; p != "" && m.Path != p && !strings.HasPrefix(m.Path, p+"/") {
		return false
	}
	return true
}

// normalize checks a filter's kind and cleans its tags and prefix the way
// stored memories are cleaned.
func (f Filter) normalize() (Filter, error) {
	var err error
	if f.Kind != "" {
		if f.Kind, err = normalizeKind(f.Kind); err != nil {
			return f, err
		}
	}
	if f.Tags, err = NormalizeTags(f.Tags); err != nil {
		return f, err
	}
	if f.PathPrefix != "" {
		if f.PathPrefix, err = NormalizePath(f.PathPrefix); err != nil {
			return f, err
		}
	}
	return f, nil
}

// Normalize checks in and returns it cleaned: kind lower case (empty
// becomes [DefaultKind]), tags through [NormalizeTags], path through
// [NormalizePath]. Text is kept as given; it must hold something besides
// white space, be valid UTF-8 and at most [MaxTextBytes] long. Errors wrap
// [ErrInvalid] and name the field.
func Normalize(in Input) (Input, error) {
	switch {
	case strings.TrimSpace(in.Text) == "":
		return in, fmt.Errorf("%w: the text is empty", ErrInvalid)
	case len(in.Text) > MaxTextBytes:
		return in, fmt.Errorf("%w: the text is %d bytes; the limit is %d bytes (64 KiB): keep the note short and point at the file instead", ErrInvalid, len(in.Text), MaxTextBytes)
	case !utf8.ValidString(in.Text):
		return in, fmt.Errorf("%w: the text is not valid UTF-8", ErrInvalid)
	}
	var err error
	if in.Kind, err = normalizeKind(in.Kind); err != nil {
		return in, err
	}
	if in.Tags, err = NormalizeTags(in.Tags); err != nil {
		return in, err
	}
	if in.Path, err = NormalizePath(in.Path); err != nil {
		return in, err
	}
	return in, nil
}

func normalizeKind(k string) (string, error) {
	k = strings.ToLower(strings.TrimSpace(k))
	if k == "" {
		return DefaultKind, nil
	}
	if !slices.Contains(Kinds, k) {
		return "", fmt.Errorf("%w: kind %q: want one of %s", ErrInvalid, k, strings.Join(Kinds, ", "))
	}
	return k, nil
}

// NormalizeTags splits each entry on commas, trims and lower-cases each
// tag, turns inner runs of white space into "-", drops empty ones and
// duplicates, and sorts the rest. Errors (wrapping [ErrInvalid]): more than
// [MaxTags] tags, a tag over [MaxTagBytes] bytes.
func NormalizeTags(tags []string) ([]string, error) {
	out := []string{}
	for _, entry := range tags {
		for _, t := range strings.Split(entry, ",") {
			t = strings.Join(strings.FieldsFunc(strings.ToLower(t), unicode.IsSpace), "-")
			if t == "" || slices.Contains(out, t) {
				continue
			}
			if len(t) > MaxTagBytes {
				return nil, fmt.Errorf("%w: tag %q is %d bytes; the limit is %d", ErrInvalid, t[:16]+"…", len(t), MaxTagBytes)
			}
			out = append(out, t)
		}
	}
	if len(out) > MaxTags {
		return nil, fmt.Errorf("%w: %d tags; the limit is %d", ErrInvalid, len(out), MaxTags)
	}
	slices.Sort(out)
	return out, nil
}

// NormalizePath returns p as a clean slash path relative to the root ("" for
// an empty p or "."). Backslashes are read as separators. Errors (wrapping
// [ErrInvalid]): an absolute path, a path with a ".." element (it could
// leave the root), one over [MaxPathBytes] bytes. Absolute paths inside the
// root are made relative by the caller, which knows the root.
func NormalizePath(p string) (string, error) {
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if p == "" {
		return "", nil
	}
	if len(p) > MaxPathBytes {
		return "", fmt.Errorf("%w: the path is %d bytes; the limit is %d", ErrInvalid, len(p), MaxPathBytes)
	}
	if path.IsAbs(p) || len(p) >= 2 && p[1] == ':' {
		return "", fmt.Errorf("%w: path %q is absolute: give it relative to the repository root", ErrInvalid, p)
	}
	if slices.Contains(strings.Split(p, "/"), "..") {
		return "", fmt.Errorf("%w: path %q leaves the repository root (..)", ErrInvalid, p)
	}
	p = path.Clean(p)
	if p == "." {
		return "", nil
	}
	return p, nil
}
