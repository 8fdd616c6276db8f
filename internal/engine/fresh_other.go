//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package engine

// rootStatter returns [pathStat] for root: this system's directories are
// stat'ed by their whole paths.
func rootStatter(root string) (stat func(rel string) (int64, bool), done func()) {
	return func(rel string) (int64, bool) { return pathStat(root, rel) }, func() {}
}
