package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/onnx"
	"github.com/ctx-dev/ctx/internal/httpjson"
	"github.com/ctx-dev/ctx/internal/llm"
	"github.com/ctx-dev/ctx/internal/memory"
	"github.com/ctx-dev/ctx/internal/rerank"
	"github.com/ctx-dev/ctx/internal/spend"
	"github.com/ctx-dev/ctx/internal/store"
	"github.com/ctx-dev/ctx/internal/workspace"
	"github.com/ctx-dev/ctx/internal/wvstore"
)

// Code names a class of failure: the "code" of a `--json` error object
// and of an MCP isError result's structured content. The codes, what each
// means, the CLI's exit code for it and its usual fix are one table
// (README, "Error codes"); [Classify] maps an error to its code.
type Code string

// The error codes. Codes are only ever added, never renamed.
const (
	CodeNotIndexed          Code = "not_indexed"
	CodeStale               Code = "stale"
	CodeIndexing            Code = "indexing"
	CodePartial             Code = "partial"
	CodeInterrupted         Code = "interrupted"
	CodeEmptyIndex          Code = "empty_index"
	CodeIndexTooNew         Code = "index_too_new"
	CodeIndexCorrupt        Code = "index_corrupt"
	CodeArchiveIncompatible Code = "archive_incompatible"
	CodeArchiveCorrupt      Code = "archive_corrupt"
	CodeUsage               Code = "usage"
	CodeInvalidArgument     Code = "invalid_argument"
	CodeOutsideRoot         Code = "outside_root"
	CodeUnsafeRoot          Code = "unsafe_root"
	CodeTooLarge            Code = "too_large"
	CodeNotFound            Code = "not_found"
	CodeNotConfigured       Code = "not_configured"
	CodeProviderUnavailable Code = "provider_unavailable"
	CodeBackendUnavailable  Code = "backend_unavailable"
	CodeSpendCap            Code = "spend_cap"
	CodePermissionDenied    Code = "permission_denied"
	CodeTimeout             Code = "timeout"
	CodeCanceled            Code = "canceled"
	CodeInternal            Code = "internal"
)

// Sentinels of the error table that no lower package produces. A
// producer wraps one with %w, or marks an error with it through
// [Errorf] when the sentinel's text would only repeat the message.
var (
	// ErrUsage marks a malformed command line (an unknown command or
	// flag, a missing argument); the CLI's flag errors match it.
	ErrUsage = errors.New("usage")
	// ErrInvalidArgument marks a request whose value is malformed or out
	// of range: a bad glob, a name, an MCP argument over its limit.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrNotFound marks a request for something that does not exist: a
	// file that is not in the index, a definition, a --repo directory.
	ErrNotFound = errors.New("not found")
	// ErrNotConfigured marks a request that needs a setting that is not
	// made: an embedding model for the dense channel, a Weaviate URL.
	ErrNotConfigured = errors.New("not configured")
	// ErrTooLarge marks an input over a size limit that a flag lifts.
	ErrTooLarge = errors.New("too large")
	// ErrProviderUnavailable marks a search that needed a remote model
	// (the dense channel alone) when it failed.
	ErrProviderUnavailable = errors.New("provider unavailable")
	// ErrBackendUnavailable marks a failure to reach or use the
	// distributed backend (Weaviate).
	ErrBackendUnavailable = errors.New("backend unavailable")
	// ErrTimeout means the request deadline (limits.request_timeout,
	// CTX_REQUEST_TIMEOUT) passed before anything could be answered.
	ErrTimeout = errors.New("timed out")
)

// notIndexedAs is a sentinel that also matches [ErrNotIndexed]: the
// states of a first index that cannot answer yet are all "not indexed"
// to callers that only ask that, and their messages read so.
type notIndexedAs struct{ name string }

func (e *notIndexedAs) Error() string        { return ErrNotIndexed.Error() }
func (e *notIndexedAs) Is(target error) bool { return target == ErrNotIndexed }

var (
	// ErrIndexing means a run is building the root's first index and
	// nothing is searchable yet; the error carries the run's progress
	// ([Failure].Progress). It matches [ErrNotIndexed].
	ErrIndexing error = &notIndexedAs{"indexing"}
	// ErrPartialIndex means a run is building the root's first index and
	// the request needs all of it (a definition not found may be in a
	// file not indexed yet); [Engine.Find] answers from the files
	// committed so far instead. It matches [ErrNotIndexed].
	ErrPartialIndex error = &notIndexedAs{"partial"}
	// ErrInterrupted means the root's first index run stopped before it
	// finished (killed, canceled, or cut by a deadline) and no run is
	// going on: `ctx index` completes it. It matches [ErrNotIndexed].
	ErrInterrupted error = &notIndexedAs{"interrupted"}
)

// Failure is an error as ctx reports it to agents: `{"error": Failure}`
// on the CLI's stdout with --json, and the structured content of an MCP
// isError result.
type Failure struct {
	Code    Code   `json:"code" jsonschema:"the class of failure (see ctx's README, Error codes): not_indexed, stale, indexing, partial, interrupted, invalid_argument, outside_root, not_found, timeout, ..."`
	Message string `json:"message" jsonschema:"what went wrong"`
	// Fix is the command or setting that fixes it, when one does.
	Fix string `json:"fix,omitempty" jsonschema:"the command or setting that fixes it"`
	// Progress is the first index run's progress, for indexing and
	// partial.
	Progress *IndexProgress `json:"progress,omitempty" jsonschema:"how far the index run that must finish first has come"`
}

// codeRule is one row of the error table: errors that match get the code
// and, unless the error carries its own ([WithFix]), the fix.
type codeRule struct {
	code  Code
	match func(error) bool
	fix   string
}

func is(targets ...error) func(error) bool {
	return func(err error) bool {
		for _, t := range targets {
			if errors.Is(err, t) {
				return true
			}
		}
		return false
	}
}

// Fixes used by more than one rule, and by front ends.
const (
	FixIndex         = "ctx index"
	FixCacheDir      = "set CTX_CACHE_DIR or --cache-dir to a writable directory"
	FixTimeout       = "raise limits.request_timeout (CTX_REQUEST_TIMEOUT, e.g. 30s; 0 turns the deadline off), or narrow the request (--path, --language)"
	fixProvider      = "check that the service is running and reachable (CTX_EMBED_URL, CTX_LLM_URL or CTX_RERANK_URL), or set CTX_EMBED_PROVIDER=builtin for the built-in model"
	fixWaitForRun    = "ask again shortly (progress says how far the index run is), or run ctx index, which waits for it and finishes it"
	fixBackend       = "check that Weaviate is running and reachable at CTX_WEAVIATE_URL (scripts/weaviate.sh start), or use the local backend (--backend local)"
	fixNotConfigured = "make the setting the message names"
)

// codeRules is the error table: the first row whose match holds gives
// the code. Order matters where classes nest: a canceled index run is
// canceled, not interrupted; a first index being built is indexing, not
// not_indexed.
var codeRules = []codeRule{
	{CodeCanceled, is(context.Canceled), ""},
	{CodeTimeout, is(ErrTimeout, context.DeadlineExceeded), FixTimeout},
	{CodeUsage, is(ErrUsage), "ctx help"},
	{CodeIndexing, is(ErrIndexing), fixWaitForRun},
	{CodePartial, is(ErrPartialIndex), "ask again when the index run is done (progress says how far it is), or search with ctx find, which answers from the files indexed so far"},
	{CodeInterrupted, is(ErrInterrupted), FixIndex},
	{CodeNotIndexed, is(wvstore.ErrNotSynced), "ctx index --backend weaviate"},
	{CodeNotIndexed, is(ErrNotIndexed, store.ErrNotIndexed), FixIndex},
	{CodeStale, is(ErrStale, store.ErrSchemaOld), FixIndex},
	{CodeEmptyIndex, is(ErrEmptyIndex), "ctx status"},
	{CodeIndexTooNew, is(store.ErrSchemaTooNew, memory.ErrSchemaTooNew), "ctx index --rebuild"},
	{CodeArchiveIncompatible, is(ErrArchiveIncompatible), "ctx index (builds the index here), or import with a ctx build and embedding model that match the archive's (ctx version; CTX_EMBED_PROVIDER)"},
	{CodeArchiveCorrupt, is(ErrArchiveCorrupt), "export the archive again (or download it again), or ctx index"},
	{CodeIndexCorrupt, is(store.ErrCorrupt, embed.ErrBadVector), "ctx index --rebuild"},
	{CodeOutsideRoot, is(discover.ErrOutsideRoot), "pass a path inside the indexed root, or point --repo (MCP: repo_path) at a root that holds it"},
	{CodeUnsafeRoot, is(discover.ErrUnsafeRoot), "pass --force to index it anyway"},
	{CodeTooLarge, is(ErrTooManyFiles), "pass --force to index it anyway, or run inside the repository you meant (or pass --repo)"},
	{CodeTooLarge, is(ErrTooLarge), "pass --force"},
	{CodeInvalidArgument, is(ErrInvalidArgument, workspace.ErrInvalid, memory.ErrInvalid), "correct the argument the message names"},
	{CodeSpendCap, is(spend.ErrCapExceeded), "raise the cap the message names (CTX_SPEND_*; 0 means no cap), or wait for the next UTC day"},
	{CodeNotConfigured, is(ErrNoLLM, ErrNotConfigured, onnx.ErrNotBuilt), fixNotConfigured},
	{CodeBackendUnavailable, is(ErrBackendUnavailable), fixBackend},
	{CodeProviderUnavailable, is(ErrProviderUnavailable, httpjson.ErrUnavailable, embed.ErrRateLimited, llm.ErrRateLimited, rerank.ErrRateLimited, httpjson.ErrRateLimited), fixProvider},
	{CodePermissionDenied, is(fs.ErrPermission, store.ErrAccess, ErrCacheDir), FixCacheDir},
	{CodeNotFound, is(ErrNotFound, workspace.ErrNotFound, memory.ErrNotFound, fs.ErrNotExist), ""},
}

// Classify maps err to the failure the front ends report: the code of
// the first row of the error table it matches (by errors.Is on the
// producers' sentinels), else [CodeInternal]; the fix the error carries
// ([WithFix]), else the row's; and the progress of the index run it
// waits for, if any. A nil err gives the zero Failure.
func Classify(err error) Failure {
	if err == nil {
		return Failure{}
	}
	f := Failure{Code: CodeInternal, Message: err.Error()}
	for _, r := range codeRules {
		if r.match(err) {
			f.Code, f.Fix = r.code, r.fix
			break
		}
	}
	var fe *fixError
	if errors.As(err, &fe) {
		f.Fix = fe.fix
	}
	var pe *progressError
	if errors.As(err, &pe) {
		f.Progress = pe.progress
	}
	return f
}

// Codes lists every code, in the order of the README's table.
func Codes() []Code {
	return []Code{CodeNotIndexed, CodeStale, CodeIndexing, CodePartial, CodeInterrupted, CodeEmptyIndex, CodeIndexTooNew, CodeIndexCorrupt,
		CodeArchiveIncompatible, CodeArchiveCorrupt, CodeUsage, CodeInvalidArgument, CodeOutsideRoot, CodeUnsafeRoot, CodeTooLarge, CodeNotFound, CodeNotConfigured,
		CodeProviderUnavailable, CodeBackendUnavailable, CodeSpendCap, CodePermissionDenied, CodeTimeout, CodeCanceled, CodeInternal}
}

// classError is an error whose text is its own and that also matches a
// class sentinel ([Errorf]).
type classError struct {
	err   error
	class error
}

func (e *classError) Error() string   { return e.err.Error() }
func (e *classError) Unwrap() []error { return []error{e.err, e.class} }

// Errorf formats an error as fmt.Errorf does (%w included) and marks it
// as of class, a sentinel of the error table such as [ErrNotFound] or
// [ErrInvalidArgument], without the sentinel's text in the message.
func Errorf(class error, format string, args ...any) error {
	return &classError{err: fmt.Errorf(format, args...), class: class}
}

// fixError attaches the fix for an error ([WithFix]).
type fixError struct {
	err error
	fix string
}

func (e *fixError) Error() string { return e.err.Error() }
func (e *fixError) Unwrap() error { return e.err }

// WithFix returns err with the command or setting that fixes it, which
// [Classify] reports instead of its table's default (an MCP server names
// `ctx index --repo ROOT` or a tool). Nil stays nil.
func WithFix(err error, fix string) error {
	if err == nil {
		return nil
	}
	return &fixError{err: err, fix: fix}
}

// progressError attaches an index run's progress to an error.
type progressError struct {
	err      error
	progress *IndexProgress
}

func (e *progressError) Error() string { return e.err.Error() }
func (e *progressError) Unwrap() error { return e.err }

func withProgress(err error, p *IndexProgress) error {
	if p == nil {
		return err
	}
	return &progressError{err: err, progress: p}
}
