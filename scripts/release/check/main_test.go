package main

import (
	"os"
	"runtime"
	"testing"
)

// The test binary itself is a static ELF on linux (this package has no
// cgo): it passes the linux check for its own architecture and fails the
// others.
func TestCheckOnTestBinary(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("needs a linux/amd64 or linux/arm64 test binary")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkELF(exe, runtime.GOARCH); err != nil {
		t.Errorf("checkELF(test binary, %s): %v", runtime.GOARCH, err)
	}
	other := map[string]string{"amd64": "arm64", "arm64": "amd64"}[runtime.GOARCH]
	if _, err := checkELF(exe, other); err == nil {
		t.Errorf("checkELF(test binary, %s) passed a binary of another machine", other)
	}
	if _, err := checkMachO(exe, runtime.GOARCH); err == nil {
		t.Error("checkMachO passed an ELF file")
	}
}

// A dynamically linked ELF fails the static check.
func TestCheckRejectsDynamic(t *testing.T) {
	t.Parallel()
	const sh = "/bin/sh"
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("needs linux/amd64")
	}
	if _, err := os.Stat(sh); err != nil {
		t.Skip(err)
	}
	if _, err := checkELF(sh, "amd64"); err == nil {
		t.Errorf("checkELF(%s) passed a dynamically linked executable", sh)
	}
}
