//go:build onnx

package onnx

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// minRuntime is the oldest ONNX Runtime whose C API has the version
// onnxruntime_go v1.27.0 asks for (ORT_API_VERSION 24).
const minRuntime = "1.24"

// env is the process's ONNX Runtime environment. onnxruntime_go keeps
// one global environment bound to one shared library, so it is loaded
// once, by the first New, and kept until the process exits: unloading
// and reloading it between providers would gain little and risk the
// library's global state.
var env struct {
	mu  sync.Mutex // guards lib and the loading of the environment
	lib string     // absolute path of the loaded library; "" before
}

// loadRuntime loads the library at path, or checks that it is the one
// already loaded. Errors wrap fs.ErrNotExist when there is no such file.
func loadRuntime(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("ONNX Runtime library %s: %v", path, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return fmt.Errorf("ONNX Runtime library: %w", err)
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.lib != "" {
		if env.lib != abs {
			return fmt.Errorf("ONNX Runtime library %s: this process already loaded %s, and one process loads one", abs, env.lib)
		}
		return nil
	}
	ort.SetSharedLibraryPath(abs)
	// Only errors: the runtime logs to stderr, and warnings about graph
	// optimisations would clutter every command's output.
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("loading ONNX Runtime library %s (ctx needs version %s or newer): %v", abs, minRuntime, err)
	}
	env.lib = abs
	return nil
}
