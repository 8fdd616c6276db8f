// Command check verifies that a release binary is what its target needs:
// an ELF executable for linux with no interpreter and no shared-library
// dependencies (it runs on any linux kernel of its architecture, whatever
// the libc), or a Mach-O executable for darwin that loads only libraries
// every macOS has (/usr/lib, /System/Library) and, on arm64, carries the
// code signature macOS requires before it runs anything.
//
//	go run ./scripts/release/check -goos darwin -goarch arm64 dist/ctx_v0.3.0_darwin_arm64/ctx
//
// It prints one line describing the file and exits 1 when a check fails.
package main

import (
	"debug/elf"
	"debug/macho"
	"flag"
	"fmt"
	"log"
	"strings"
)

func main() {
	log.SetFlags(0)
	goos := flag.String("goos", "", "target GOOS: linux or darwin")
	goarch := flag.String("goarch", "", "target GOARCH: amd64 or arm64")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: check -goos OS -goarch ARCH FILE")
	}
	var desc string
	var err error
	switch *goos {
	case "linux":
		desc, err = checkELF(flag.Arg(0), *goarch)
	case "darwin":
		desc, err = checkMachO(flag.Arg(0), *goarch)
	default:
		err = fmt.Errorf("-goos %q: want linux or darwin", *goos)
	}
	if err != nil {
		log.Fatalf("%s: %v", flag.Arg(0), err)
	}
	fmt.Printf("%s: %s\n", flag.Arg(0), desc)
}

var elfMachine = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// checkELF requires a static executable of the right machine.
func checkELF(path, goarch string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if want, ok := elfMachine[goarch]; !ok || f.Machine != want {
		return "", fmt.Errorf("machine %v, want %v for %s", f.Machine, elfMachine[goarch], goarch)
	}
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return "", fmt.Errorf("type %v, want an executable", f.Type)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return "", fmt.Errorf("has an interpreter (dynamically linked); want a static executable")
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return "", err
	}
	if len(libs) > 0 {
		return "", fmt.Errorf("needs shared libraries %v; want a static executable", libs)
	}
	return fmt.Sprintf("ELF %v %v, static (no interpreter, no shared libraries)", f.Class, f.Machine), nil
}

var machoCPU = map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}

// lcCodeSignature is LC_CODE_SIGNATURE, which debug/macho does not name.
const lcCodeSignature macho.LoadCmd = 0x1d

// checkMachO requires an executable of the right CPU that loads only
// system libraries, signed when arm64.
func checkMachO(path, goarch string) (string, error) {
	f, err := macho.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if want, ok := machoCPU[goarch]; !ok || f.Cpu != want {
		return "", fmt.Errorf("cpu %v, want %v for %s", f.Cpu, machoCPU[goarch], goarch)
	}
	if f.Type != macho.TypeExec {
		return "", fmt.Errorf("type %v, want an executable", f.Type)
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return "", err
	}
	for _, l := range libs {
		if !strings.HasPrefix(l, "/usr/lib/") && !strings.HasPrefix(l, "/System/Library/") {
			return "", fmt.Errorf("loads %s, which is not a system library", l)
		}
	}
	signed := false
	for _, l := range f.Loads {
		if raw := l.Raw(); len(raw) >= 4 && macho.LoadCmd(f.ByteOrder.Uint32(raw)) == lcCodeSignature {
			signed = true
		}
	}
	if goarch == "arm64" && !signed {
		return "", fmt.Errorf("no code signature; macOS on arm64 kills unsigned executables")
	}
	return fmt.Sprintf("Mach-O %v executable, signed %v, loads %s", f.Cpu, signed, strings.Join(libs, ", ")), nil
}
