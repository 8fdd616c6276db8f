package engine

import (
	"encoding/base64"
	"fmt"
	"unicode/utf8"
)

// PathBytes returns what the path_bytes field of a JSON answer carries
// for a path: "" when p is valid UTF-8 (path says it exactly), else the
// base64 (standard alphabet, padded) of its raw bytes. File names on Linux
// may be any bytes, and encoding/json replaces invalid UTF-8 with U+FFFD,
// so path alone cannot name such a file; path_bytes can, and
// [DecodePathBytes] turns it back (ctx chunk --path-bytes).
func PathBytes(p string) string {
	if utf8.ValidString(p) {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(p))
}

// DecodePathBytes returns the path whose [PathBytes] is s (padded or not).
func DecodePathBytes(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(s)
	}
	if err != nil || len(b) == 0 {
		return "", fmt.Errorf("path bytes %q: want the base64 of a path, as in a result's path_bytes", s)
	}
	return string(b), nil
}
