//go:build !onnx

package onnx

import (
	"errors"
	"testing"
)

func TestNewNotBuilt(t *testing.T) {
	t.Parallel()
	p, err := New(Options{ModelDir: t.TempDir(), LibraryPath: "libonnxruntime.so"})
	if !errors.Is(err, ErrNotBuilt) || p != nil {
		t.Fatalf("New = %v, %v; want nil, ErrNotBuilt", p, err)
	}
}
