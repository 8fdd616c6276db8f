package graph

import (
	"bytes"
	"path"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

var (
	// cInclude: #include "x.h", #include <x.h>; #import and #include_next
	// too. A macro (#include FOO_H) is not read.
	cInclude = lazyre.New(`^#\s*(?:include|include_next|import)\s*(<[^<>"\n]+>|"[^<>"\n]+")`)
)

// includes reads the #include directives of a C or C++ file, wherever
// they are (conditional blocks included). Spec keeps the delimiters:
// `"x.h"` or `<x.h>`.
func includes(src []byte) []Import {
	var out []Import
	scanLines(src, cSyntax, func(n int, code []byte, _ int) bool {
		t := bytes.TrimSpace(code)
		if len(t) == 0 || t[0] != '#' {
			return true
		}
		if m := cInclude().FindSubmatch(t); m != nil {
			out = append(out, Import{Spec: string(m[1]), Line: n})
		}
		return true
	})
	return out
}

// resolveInclude maps an include to a file. A quoted include is looked
// up the way compilers do for the including file's directory, then in
// any directory that serves as an include root: every file whose path
// ends in the included relative path is a candidate (the include/ or
// src/ directory a build passes with -I, or the root) and the one
// nearest the including file wins. Quoted includes are internal by
// convention (an unresolved one is usually a generated header such as
// config.h, or a dependency's included with quotes), except a C or
// POSIX system header the repository does not hold. An angle include
// is internal only when the repository holds that relative path below
// an include/ directory, or at the root when the path has a directory
// part (<proj/x.h> with proj/ at the root): otherwise it is a system or
// dependency header.
func (r *Resolver) resolveInclude(from, spec string) Resolution {
	if len(spec) < 3 {
		return Resolution{}
	}
	name := path.Clean(spec[1 : len(spec)-1])
	if spec[0] == '"' {
		t := path.Join(path.Dir(from), name)
		if r.files[t] {
			return Resolution{Target: t, Internal: true}
		}
		rel := name
		for strings.HasPrefix(rel, "../") {
			rel = rel[3:]
		}
		if rel != ".." && !strings.HasPrefix(rel, "/") {
			if f := closest(from, r.suffixFiles(rel)); f != "" {
				return Resolution{Target: f, Internal: true}
			}
		}
		return Resolution{Internal: !systemHeaders[name]}
	}
	if strings.HasPrefix(name, "../") || strings.HasPrefix(name, "/") || name == ".." {
		return Resolution{}
	}
	cands := r.suffixFiles("include/" + name)
	if strings.Contains(name, "/") && r.files[name] {
		cands = append(cands, name)
	}
	if f := closest(from, cands); f != "" {
		return Resolution{Target: f, Internal: true}
	}
	return Resolution{}
}

// systemHeaders are the C standard library's headers and the POSIX ones
// most often included, which some code includes with quotes.
var systemHeaders = func() map[string]bool {
	m := map[string]bool{}
	for _, h := range strings.Fields(`assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h
		limits.h locale.h math.h setjmp.h signal.h stdalign.h stdarg.h stdatomic.h stdbit.h stdbool.h
		stdckdint.h stddef.h stdint.h stdio.h stdlib.h stdnoreturn.h string.h tgmath.h threads.h time.h
		uchar.h wchar.h wctype.h
		dirent.h dlfcn.h fcntl.h glob.h grp.h netdb.h poll.h pthread.h pwd.h regex.h sched.h semaphore.h
		strings.h syslog.h termios.h unistd.h utime.h
		arpa/inet.h netinet/in.h netinet/tcp.h sys/ioctl.h sys/mman.h sys/param.h sys/resource.h
		sys/select.h sys/socket.h sys/stat.h sys/time.h sys/types.h sys/uio.h sys/un.h sys/wait.h`) {
		m[h] = true
	}
	return m
}()
