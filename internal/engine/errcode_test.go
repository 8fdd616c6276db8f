package engine_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/engine"
	"github.com/ctx-dev/ctx/internal/httpjson"
	"github.com/ctx-dev/ctx/internal/spend"
	"github.com/ctx-dev/ctx/internal/store"
	"github.com/ctx-dev/ctx/internal/workspace"
)

// TestClassify: each producer's sentinel, however wrapped, maps to its
// code in the error table, with the table's fix unless the error carries
// its own; anything else is internal.
func TestClassify(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error { return fmt.Errorf("doing a thing: %w", err) }
	for _, tc := range []struct {
		err  error
		code engine.Code
		fix  string
	}{
		{wrap(engine.ErrNotIndexed), engine.CodeNotIndexed, engine.FixIndex},
		{wrap(store.ErrNotIndexed), engine.CodeNotIndexed, engine.FixIndex},
		{wrap(fmt.Errorf("%w: building", engine.ErrIndexing)), engine.CodeIndexing, ""},
		{fmt.Errorf("%w: x", engine.ErrPartialIndex), engine.CodePartial, ""},
		{fmt.Errorf("%w: x", engine.ErrInterrupted), engine.CodeInterrupted, ""},
		{wrap(engine.ErrStale), engine.CodeStale, ""},
		{wrap(store.ErrSchemaOld), engine.CodeStale, ""},
		{wrap(store.ErrSchemaTooNew), engine.CodeIndexTooNew, ""},
		{wrap(store.ErrCorrupt), engine.CodeIndexCorrupt, "ctx index --rebuild"},
		{wrap(engine.ErrArchiveIncompatible), engine.CodeArchiveIncompatible, ""},
		{wrap(engine.ErrArchiveCorrupt), engine.CodeArchiveCorrupt, ""},
		// A damaged database inside an archive is the archive's damage.
		{fmt.Errorf("%w: %w", engine.ErrArchiveCorrupt, store.ErrCorrupt), engine.CodeArchiveCorrupt, ""},
		{wrap(engine.ErrEmptyIndex), engine.CodeEmptyIndex, ""},
		{wrap(discover.ErrOutsideRoot), engine.CodeOutsideRoot, ""},
		{wrap(discover.ErrUnsafeRoot), engine.CodeUnsafeRoot, "pass --force to index it anyway"},
		{engine.Errorf(engine.ErrInvalidArgument, "bad glob %q", "["), engine.CodeInvalidArgument, ""},
		{wrap(workspace.ErrInvalid), engine.CodeInvalidArgument, ""},
		{engine.Errorf(engine.ErrNotFound, "no definition of %q", "X"), engine.CodeNotFound, ""},
		{wrap(workspace.ErrNotFound), engine.CodeNotFound, ""},
		{wrap(fs.ErrNotExist), engine.CodeNotFound, ""},
		{wrap(engine.ErrNoLLM), engine.CodeNotConfigured, ""},
		{wrap(embed.ErrRateLimited), engine.CodeProviderUnavailable, ""},
		{wrap(httpjson.ErrUnavailable), engine.CodeProviderUnavailable, ""},
		{engine.Errorf(engine.ErrBackendUnavailable, "%w", httpjson.ErrUnavailable), engine.CodeBackendUnavailable, ""},
		{wrap(spend.ErrCapExceeded), engine.CodeSpendCap, ""},
		{wrap(&fs.PathError{Op: "open", Path: "/cache/x.lock", Err: fs.ErrPermission}), engine.CodePermissionDenied, engine.FixCacheDir},
		{wrap(store.ErrAccess), engine.CodePermissionDenied, engine.FixCacheDir},
		{wrap(engine.ErrCacheDir), engine.CodePermissionDenied, engine.FixCacheDir},
		{wrap(engine.ErrTooManyFiles), engine.CodeTooLarge, "pass --force to index it anyway, or run inside the repository you meant (or pass --repo)"},
		{wrap(engine.ErrTimeout), engine.CodeTimeout, engine.FixTimeout},
		{wrap(context.Canceled), engine.CodeCanceled, ""},
		{engine.WithFix(wrap(engine.ErrNotIndexed), "ctx index --repo /r"), engine.CodeNotIndexed, "ctx index --repo /r"},
		{errors.New("disk on fire"), engine.CodeInternal, ""},
	} {
		f := engine.Classify(tc.err)
		if f.Code != tc.code || f.Message != tc.err.Error() || tc.fix != "" && f.Fix != tc.fix {
			t.Errorf("Classify(%q) = %+v; want code %s, its message and fix %q", tc.err, f, tc.code, tc.fix)
		}
	}
	// No error is no failure.
	if f := engine.Classify(nil); f != (engine.Failure{}) {
		t.Errorf("Classify(nil) = %+v, want the zero Failure", f)
	}
}

// TestErrorfKeepsText: a class mark adds nothing to the message, and the
// error still wraps what its format wrapped.
func TestErrorfKeepsText(t *testing.T) {
	t.Parallel()
	err := engine.Errorf(engine.ErrNotFound, "reading %s: %w", "a.go", fs.ErrNotExist)
	if err.Error() != "reading a.go: file does not exist" || !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Errorf = %q (is ErrNotExist %v, ErrNotFound %v)", err, errors.Is(err, fs.ErrNotExist), errors.Is(err, engine.ErrNotFound))
	}
}

// TestREADMECodes: README's table of error codes lists every code of
// [engine.Codes], in its order, and no other.
func TestREADMECodes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var got []engine.Code
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "| code | meaning | exit |"):
			in = true
		case in && strings.HasPrefix(l, "| `"):
			code, _, _ := strings.Cut(strings.TrimPrefix(l, "| `"), "`")
			got = append(got, engine.Code(code))
		case in && !strings.HasPrefix(l, "|"):
			in = false
		}
	}
	if !slices.Equal(got, engine.Codes()) {
		t.Errorf("README's error codes %v, want %v", got, engine.Codes())
	}
}
