package version

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ptr(b bool) *bool { return &b }

func TestGet(t *testing.T) {
	vcs := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/ctx-dev/ctx", Version: "v0.0.0-20261128040000-1b06d2d5e8a1+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "-tags", Value: "onnx"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "1b06d2d5e8a1f00dfeedfacecafebeefdeadbeef"},
			{Key: "vcs.time", Value: "2026-11-28T04:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	noVCS := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/ctx-dev/ctx", Version: "(devel)"}}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		// link-time values
		release, commit, commitTime, modified string
		want                                  Info
	}{
		{
			name: "no build info",
			want: Info{Version: Devel, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH},
		},
		{
			name: "work tree without VCS stamping",
			bi:   noVCS,
			want: Info{Version: Devel, Go: "go1.26.8", OS: runtime.GOOS, Arch: runtime.GOARCH},
		},
		{
			name: "work tree with VCS stamping",
			bi:   vcs,
			want: Info{Version: "v0.0.0-20261128040000-1b06d2d5e8a1+dirty", Commit: "1b06d2d5e8a1f00dfeedfacecafebeefdeadbeef",
				CommitTime: "2026-11-28T04:00:00Z", Modified: ptr(true), Go: "go1.26.8", OS: runtime.GOOS, Arch: runtime.GOARCH, Tags: "onnx"},
		},
		{
			name:    "release build overrides the build info",
			bi:      vcs,
			release: "v0.3.0", commit: "0123456789abcdef0123456789abcdef01234567", commitTime: "2026-11-27T10:00:00Z", modified: "false",
			want: Info{Version: "v0.3.0", Commit: "0123456789abcdef0123456789abcdef01234567",
				CommitTime: "2026-11-27T10:00:00Z", Modified: ptr(false), Go: "go1.26.8", OS: runtime.GOOS, Arch: runtime.GOARCH, Tags: "onnx"},
		},
		{
			name:    "release version alone keeps the stamped commit",
			bi:      vcs,
			release: "v0.3.0",
			want: Info{Version: "v0.3.0", Commit: "1b06d2d5e8a1f00dfeedfacecafebeefdeadbeef",
				CommitTime: "2026-11-28T04:00:00Z", Modified: ptr(true), Go: "go1.26.8", OS: runtime.GOOS, Arch: runtime.GOARCH, Tags: "onnx"},
		},
		{
			name:   "unparsable modified flag is unknown",
			bi:     noVCS,
			commit: "0123456789abcdef0123456789abcdef01234567", modified: "maybe",
			want: Info{Version: Devel, Commit: "0123456789abcdef0123456789abcdef01234567", Go: "go1.26.8", OS: runtime.GOOS, Arch: runtime.GOARCH},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The link-time variables are package state: no t.Parallel.
			release, commit, commitTime, modified = tt.release, tt.commit, tt.commitTime, tt.modified
			t.Cleanup(func() { release, commit, commitTime, modified = "", "", "", "" })
			if diff := cmp.Diff(tt.want, get(tt.bi)); diff != "" {
				t.Errorf("get (-want +got):\n%s", diff)
			}
		})
	}
}
