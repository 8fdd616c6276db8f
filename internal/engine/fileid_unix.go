//go:build unix

package engine

import (
	"os"
	"syscall"
)

// idOf identifies a file by device and inode.
func idOf(fi os.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: st.Ino}
	}
	return fileID{ino: uint64(fi.ModTime().UnixNano())}
}
