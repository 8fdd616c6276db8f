//go:build unix

package discover

import (
	"io/fs"
	"syscall"
)

// checkReadable reports whether the current user may read the file. A
// world-readable file needs no system call, which keeps the walk at one lstat
// per file for almost every file.
func checkReadable(abs string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o004 != 0 {
		return nil
	}
	const readOK = 0x4 // R_OK
	return syscall.Access(abs, readOK)
}
