// Package atomicfile replaces files so that readers see the old content or
// the new, never a part: agent configuration files (ctx setup) and
// adapted models (ctx train).
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data (creating its directory), through a
// temporary file in the same directory that is synced and renamed over
// path; on error the temporary file is removed and path is untouched. A
// reader that opened or mapped the old file keeps it.
func Write(path string, data []byte, mode fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".ctx-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
