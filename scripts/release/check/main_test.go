package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// A Go program built with cgo off is a static ELF on linux: it passes the
// linux check for its own architecture and fails the others. (The test
// binary itself is not one under -race, which links through cgo.)
func TestCheckOnTestBinary(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("needs linux/amd64 or linux/arm64")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "probe")
	build := exec.Command("go", "build", "-o", exe, "main.go")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
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
