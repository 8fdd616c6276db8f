// Package version reports which build of ctx is running: the module
// version, the VCS commit and whether its tree was modified, the Go
// toolchain and the platform.
//
// Release builds (scripts/release.sh) set the values at link time with
// -ldflags -X, because they build with -buildvcs=false or from an archive
// without .git; every other build falls back to what the Go toolchain
// records in the executable (runtime/debug.ReadBuildInfo: the module
// version of `go install …@vX.Y.Z`, and vcs.revision, vcs.time and
// vcs.modified when built inside a git work tree).
package version

import (
	"runtime"
	"runtime/debug"
	"strconv"
)

// Set at link time by release builds, e.g.
//
//	-X github.com/ctx-dev/ctx/internal/version.release=v0.3.0
//	-X github.com/ctx-dev/ctx/internal/version.commit=<40 hex digits>
//	-X github.com/ctx-dev/ctx/internal/version.commitTime=<RFC 3339>
//	-X github.com/ctx-dev/ctx/internal/version.modified=false
//
// An empty value means "not set": the build info decides.
var (
	release    string
	commit     string
	commitTime string
	modified   string
)

// Devel is [Info.Version] for a build from a source tree that no release
// or module version names.
const Devel = "(devel)"

// Info describes the running executable. The JSON field names are part of
// `ctx version --json`: fields are only ever added.
type Info struct {
	// Version is the module version (v1.2.3, a pseudo-version, or [Devel]).
	Version string `json:"version"`
	// Commit is the full VCS revision, "" when unknown.
	Commit string `json:"commit,omitempty"`
	// CommitTime is the commit's time in RFC 3339, "" when unknown.
	CommitTime string `json:"commit_time,omitempty"`
	// Modified reports whether the work tree had uncommitted changes; nil
	// when unknown.
	Modified *bool `json:"modified,omitempty"`
	// Go is the toolchain that built the executable ("go1.26.8").
	Go string `json:"go"`
	// OS and Arch are the target platform (GOOS, GOARCH).
	OS   string `json:"os"`
	Arch string `json:"arch"`
	// Tags are the build tags ("onnx"), "" for none.
	Tags string `json:"tags,omitempty"`
}

// Get returns the running executable's [Info]. It reads no file and never
// fails: what is unknown is left empty.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return get(bi)
}

// get is [Get] over given build info (nil when there is none), for tests.
func get(bi *debug.BuildInfo) Info {
	in := Info{Version: Devel, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	var vcsModified string
	if bi != nil {
		if v := bi.Main.Version; v != "" && v != Devel {
			in.Version = v
		}
		if bi.GoVersion != "" {
			in.Go = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Commit = s.Value
			case "vcs.time":
				in.CommitTime = s.Value
			case "vcs.modified":
				vcsModified = s.Value
			case "-tags":
				in.Tags = s.Value
			}
		}
	}
	if release != "" {
		in.Version = release
	}
	if commit != "" {
		in.Commit, in.CommitTime, vcsModified = commit, commitTime, modified
	}
	if b, err := strconv.ParseBool(vcsModified); err == nil {
		in.Modified = &b
	}
	return in
}
