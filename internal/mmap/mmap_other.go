//go:build !unix

package mmap

import "os"

// Map reads path whole: this platform gets no memory mapping.
func Map(path string) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	return b, func() {}, err
}
