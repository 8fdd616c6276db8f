//go:build !unix

package search

import "os"

// mapFile reads path whole: this platform gets no memory mapping.
func mapFile(path string) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	return b, func() {}, err
}
