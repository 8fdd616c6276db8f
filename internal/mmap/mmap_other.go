//go:build !unix

package mmap

import "os"

// Map reads path whole: this platform gets no memory mapping.
func Map(path string) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	return b, func() {}, err
}

// Release does nothing: the bytes Map read are the process's own.
func Release(b []byte) {}
