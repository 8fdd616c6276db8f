//go:build unix

// Package mmap maps files read-only into memory (a plain read where the
// platform has no mapping), for the vector file and adapted models.
package mmap

import (
	"os"
	"syscall"
)

// Map maps path read-only and returns its bytes and a func that
// unmaps them. The mapping outlives the file descriptor; a file replaced
// by rename stays readable through it.
func Map(path string) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := fi.Size()
	if size == 0 {
		return nil, func() {}, nil
	}
	if int64(int(size)) != size {
		return nil, nil, syscall.EFBIG
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, &os.PathError{Op: "mmap", Path: path, Err: err}
	}
	return b, func() { syscall.Munmap(b) }, nil
}

// Release tells the kernel this process no longer needs the pages of b,
// a mapping Map returned, that it has read: they leave the resident set
// (they stay in the page cache, and a later read maps them again with
// the same bytes). Without it, every page a process ever read of a large
// file counts in its resident set until the mapping goes. Errors are
// ignored: releasing is only a hint.
func Release(b []byte) {
	if len(b) > 0 {
		_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}
