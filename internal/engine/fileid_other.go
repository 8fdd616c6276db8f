//go:build !unix

package engine

import "os"

// idOf identifies a file by size and modification time where there are
// no inode numbers: a replaced database is new enough to differ.
func idOf(fi os.FileInfo) fileID {
	return fileID{dev: uint64(fi.Size()), ino: uint64(fi.ModTime().UnixNano())}
}
