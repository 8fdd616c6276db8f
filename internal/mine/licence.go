package mine

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// licenceHead is how much of a licence file is read.
const licenceHead = 4 << 10

// detectLicence names the licence of a root: the first of r.LicenceFiles,
// then of the LICENSE*/LICENCE*/COPYING* files in r.Dir (sorted), whose
// first lines it recognises. It returns "unknown" otherwise.
func detectLicence(r Root) string {
	files := append(append([]string(nil), r.LicenceFiles...), licenceFilesIn(r.Dir)...)
	for _, f := range files {
		b, err := readHead(f, licenceHead)
		if err != nil {
			continue
		}
		if l := classifyLicence(string(b)); l != "unknown" {
			return l
		}
	}
	return "unknown"
}

// licenceFilesIn returns the LICENSE*, LICENCE* and COPYING* files
// directly in dir (any case), sorted; none when dir cannot be read.
func licenceFilesIn(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := strings.ToUpper(e.Name())
		if !e.IsDir() && (strings.HasPrefix(n, "LICENSE") || strings.HasPrefix(n, "LICENCE") || strings.HasPrefix(n, "COPYING")) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

func readHead(p string, n int) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, _ := f.Read(b)
	return b[:k], nil
}

// classifyLicence names the licence whose text (or Debian copyright
// "License:" field) starts text: MIT, BSD-2-Clause, BSD-3-Clause,
// Apache-2.0, GPL, LGPL, MPL, ISC, Python-2.0, else "unknown".
func classifyLicence(text string) string {
	// A machine-readable Debian copyright file names it.
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, "License: "); ok {
			if l := spdxLike(strings.TrimSpace(v)); l != "" {
				return l
			}
		}
	}
	t := strings.ToLower(strings.Join(strings.Fields(text), " "))
	switch {
	case strings.Contains(t, "apache license") && strings.Contains(t, "version 2.0"):
		return "Apache-2.0"
	case strings.Contains(t, "gnu lesser general public license"), strings.Contains(t, "gnu library general public license"):
		return "LGPL"
	case strings.Contains(t, "gnu general public license"):
		return "GPL"
	case strings.Contains(t, "mozilla public license"):
		return "MPL"
	case strings.Contains(t, "python software foundation license"):
		return "Python-2.0"
	case strings.Contains(t, "permission is hereby granted, free of charge"), strings.Contains(t, "mit license"):
		return "MIT"
	case strings.Contains(t, "permission to use, copy, modify, and/or distribute"), strings.Contains(t, "isc license"):
		return "ISC"
	case strings.Contains(t, "redistribution and use in source and binary forms"):
		if strings.Contains(t, "neither the name") || strings.Contains(t, "names of its contributors") || strings.Contains(t, "name of the copyright holder") {
			return "BSD-3-Clause"
		}
		return "BSD-2-Clause"
	}
	return "unknown"
}

// spdxLike maps a Debian copyright License value to the names above.
func spdxLike(v string) string {
	v = strings.ToLower(v)
	switch {
	case strings.HasPrefix(v, "expat"), strings.HasPrefix(v, "mit"):
		return "MIT"
	case strings.HasPrefix(v, "apache-2"):
		return "Apache-2.0"
	case strings.HasPrefix(v, "bsd-3"):
		return "BSD-3-Clause"
	case strings.HasPrefix(v, "bsd-2"):
		return "BSD-2-Clause"
	case strings.HasPrefix(v, "lgpl"):
		return "LGPL"
	case strings.HasPrefix(v, "gpl"):
		return "GPL"
	case strings.HasPrefix(v, "mpl"):
		return "MPL"
	case strings.HasPrefix(v, "isc"):
		return "ISC"
	case strings.HasPrefix(v, "psf"), strings.HasPrefix(v, "python"):
		return "Python-2.0"
	}
	return ""
}
