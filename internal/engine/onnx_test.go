//go:build !onnx

package engine_test

import (
	"errors"
	"testing"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/embed/onnx"
	"github.com/ctx-dev/ctx/internal/engine"
)

// TestONNXNotBuilt: asking a build without -tags onnx for the onnx
// provider fails at Open with the error that says how to get it.
func TestONNXNotBuilt(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Embed = config.Embed{Provider: "onnx", Model: t.TempDir(), Library: "/nonexistent/libonnxruntime.so.1"}
	_, err := engine.Open(cfg, repo(t), nil)
	if !errors.Is(err, onnx.ErrNotBuilt) {
		t.Errorf("Open with provider onnx: %v, want onnx.ErrNotBuilt", err)
	}
}
