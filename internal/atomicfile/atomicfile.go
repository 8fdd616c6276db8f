// Package atomicfile replaces files so that readers see the old content or
// the new, never a part: agent configuration files (ctx setup), adapted
// models (ctx train) and index archives (ctx export).
package atomicfile

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data (creating its directory), through a
// temporary file in the same directory that is synced and renamed over
// path; on error the temporary file is removed and path is untouched. A
// reader that opened or mapped the old file keeps it.
func Write(path string, data []byte, mode fs.FileMode) error {
	return WriteFunc(path, mode, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc is [Write] for content too big to hold in memory: write
// streams it into the temporary file, and an error from write leaves path
// untouched too (ctx export writes index archives so).
func WriteFunc(path string, mode fs.FileMode, write func(io.Writer) error) (err error) {
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
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
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
