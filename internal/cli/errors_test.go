package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

// TestExitCode: every error maps to its code's exit code; --json prints
// one JSON object on stdout and nothing on stderr, plain mode the error
// and, when the message does not name it, the fix.
func TestExitCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err    error
		exit   int
		code   engine.Code
		stderr string
	}{
		{flagError{errors.New("--limit must be positive")}, exitUsage, engine.CodeUsage, "error: --limit must be positive\nRun 'ctx help' for usage.\n"},
		{fmt.Errorf("%w: /r has no index; run `ctx index`", engine.ErrNotIndexed), exitNotIndexed, engine.CodeNotIndexed, "error: not indexed: /r has no index; run `ctx index`\n"},
		{fmt.Errorf("%w: the first index of /r is being built", engine.ErrIndexing), exitNotIndexed, engine.CodeIndexing, "error: not indexed: the first index of /r is being built\nfix: ask again shortly (progress says how far the index run is), or run ctx index, which waits for it and finishes it\n"},
		{engine.Errorf(engine.ErrInvalidArgument, "bad glob %q", "["), exitUsage, engine.CodeInvalidArgument, "error: bad glob \"[\"\nfix: correct the argument the message names\n"},
		{fmt.Errorf("%w: nothing in time", engine.ErrTimeout), exitError, engine.CodeTimeout, "error: timed out: nothing in time\nfix: " + engine.FixTimeout + "\n"},
		{fmt.Errorf("indexing: %w", context.Canceled), exitError, engine.CodeCanceled, "canceled\n"},
		{errors.New("disk on fire"), exitError, engine.CodeInternal, "error: disk on fire\n"},
	} {
		var out, errOut bytes.Buffer
		if got := exitCode(tc.err, IO{Out: &out, ErrOut: &errOut}, nil, false); got != tc.exit || errOut.String() != tc.stderr || out.Len() != 0 {
			t.Errorf("exitCode(%q) = %d, stderr %q, stdout %q; want %d, %q, nothing", tc.err, got, errOut.String(), out.String(), tc.exit, tc.stderr)
		}
		out.Reset()
		errOut.Reset()
		if got := exitCode(tc.err, IO{Out: &out, ErrOut: &errOut}, nil, true); got != tc.exit || errOut.Len() != 0 {
			t.Errorf("exitCode(%q) with --json = %d, stderr %q; want %d and nothing on stderr", tc.err, got, errOut.String(), tc.exit)
		}
		var v struct {
			Error engine.Failure `json:"error"`
		}
		dec := json.NewDecoder(&out)
		if err := dec.Decode(&v); err != nil || v.Error.Code != tc.code || v.Error.Message != tc.err.Error() || dec.More() {
			t.Errorf("exitCode(%q) with --json printed %+v (%v); want one object with code %s and the message", tc.err, v, err, tc.code)
		}
	}
}

// TestJSONErrors: --json is seen when it parsed, and among the arguments
// of a command line that did not.
func TestJSONErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"find", "--json", "--bogus", "x"}, true},
		{[]string{"find", "--bogus", "--json=true", "x"}, true},
		{[]string{"find", "--bogus", "x"}, false},
		{[]string{"find", "--", "--json"}, false},
	} {
		if got := jsonErrors(nil, tc.args); got != tc.want {
			t.Errorf("jsonErrors(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
