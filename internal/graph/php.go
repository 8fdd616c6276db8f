package graph

import (
	"bytes"
	"path"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

var (
	phpUseStart = lazyre.New(`^use\s+`)
	// phpNamespaceBlock: namespace A\B { (a braced namespace, whose body
	// may hold use statements one level down).
	phpNamespaceBlock = lazyre.New(`^namespace(?:\s+[\w\\]+)?\s*\{`)
	// phpRequire: require/include[_once] with one literal path, alone or
	// after __DIR__, dirname(__FILE__) or dirname(__DIR__).
	phpRequire = lazyre.New(`^(?:<\?php\s+)?(?:require_once|require|include_once|include)\b\s*\(?\s*` +
		`(?:(__DIR__|dirname\s*\(\s*__FILE__\s*\)|dirname\s*\(\s*__DIR__\s*\))\s*\.\s*)?` +
		`(?:'([^'$]+)'|"([^"$]+)")\s*\)?\s*;`)
	phpName = lazyre.New(`^\\?[A-Za-z_]\w*(?:\\[A-Za-z_]\w*)*$`)
	phpAs   = lazyre.New(`(?i)\s+as\s+\w+`)
)

// phpImports reads namespace use statements at the top level of a file
// or of a braced namespace (a use inside a class imports a trait by a
// name relative to the namespace, and is not read): one Import per
// name, "A\B" for a class or namespace, "function A\f" and "const A\C"
// for the others; group uses (A\{B, C}) expand. It also reads require
// and include statements with a literal path, "__DIR__/x.php" standing
// for __DIR__ . '/x.php' and dirname(__FILE__) . '/x.php'.
func phpImports(src []byte) []Import {
	var (
		out     []Import
		depth   int
		nsDepth = -1 // brace depth of a braced namespace's body
		pending []byte
		pendAt  int
	)
	scanLines(src, phpSyntax, func(n int, code []byte, braces int) bool {
		t := bytes.TrimSpace(code)
		switch {
		case pending != nil:
			pending = append(append(pending, ' '), t...)
			if i := bytes.IndexByte(pending, ';'); i >= 0 {
				out = append(out, phpUses(pending[:i], pendAt)...)
				pending = nil
			} else if len(pending) > maxStatement {
				pending = nil
			}
		case phpUseStart().Match(t) && (depth == 0 || depth == nsDepth):
			rest := t[len(phpUseStart().Find(t)):]
			if i := bytes.IndexByte(rest, ';'); i >= 0 {
				out = append(out, phpUses(rest[:i], n)...)
			} else {
				pending, pendAt = append([]byte(nil), rest...), n
			}
		case phpNamespaceBlock().Match(t):
			nsDepth = depth + 1
		default:
			if m := phpRequire().FindSubmatch(t); m != nil {
				p := string(m[2]) + string(m[3])
				switch {
				case len(m[1]) == 0:
				case strings.HasPrefix(string(m[1]), "dirname") && strings.Contains(string(m[1]), "__DIR__"):
					p = "__DIR__/.." + p
				default:
					p = "__DIR__" + p
				}
				out = append(out, Import{Spec: p, Line: n})
			}
		}
		depth += braces
		if depth < nsDepth {
			nsDepth = -1
		}
		return true
	})
	return out
}

// phpUses expands the names of one use statement (the text after "use").
func phpUses(s []byte, n int) []Import {
	str := strings.TrimSpace(string(s))
	kind := ""
	for _, k := range []string{"function", "const"} {
		if rest, ok := strings.CutPrefix(str, k); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			kind, str = k+" ", rest
		}
	}
	str = stripSpace(phpAs().ReplaceAllString(str, ""))
	var out []Import
	for _, part := range splitTop(str, ',') {
		prefix, group, ok := strings.Cut(part, "{")
		names := []string{part}
		if ok {
			names = nil
			for _, g := range strings.Split(strings.TrimSuffix(group, "}"), ",") {
				if g != "" {
					names = append(names, prefix+g)
				}
			}
		}
		for _, name := range names {
			if len(out) < maxUseLeaves && phpName().MatchString(name) {
				out = append(out, Import{Spec: kind + strings.TrimPrefix(name, `\`), Line: n})
			}
		}
	}
	return out
}

// resolvePHP maps a require path to a file: "__DIR__/..." beside the
// requiring file (internal); a plain path beside the requiring file,
// at the root, or (include_path) at the end of any file's path,
// internal only when found. A use of a class A\B\C resolves by the
// PSR-4 convention to a file C.php whose trailing directories spell
// the namespace's last segments (case-insensitively, at least two
// segments or the whole name matched: app/Models/User.php for
// App\Models\User; or a class file directly in src/ or lib/, where
// packages map their namespace prefix), the longest match then the
// nearest file winning;
// a function or const use resolves to its namespace's directory the
// same way. Composer's autoload map is not read, so a use is internal
// only when it resolves.
func (r *Resolver) resolvePHP(from, spec string) Resolution {
	if rel, ok := strings.CutPrefix(spec, "__DIR__"); ok {
		return r.besideFile(from, "./"+rel)
	}
	kind := ""
	for _, k := range []string{"function ", "const "} {
		if rest, ok := strings.CutPrefix(spec, k); ok {
			kind, spec = k, rest
		}
	}
	if kind == "" && !strings.Contains(spec, `\`) && (strings.Contains(spec, "/") || strings.Contains(spec, ".")) {
		p := path.Clean(spec)
		if strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
			p = path.Join(path.Dir(from), p)
			if r.files[p] {
				return Resolution{Target: p, Internal: true}
			}
			return Resolution{}
		}
		for _, t := range []string{path.Join(path.Dir(from), p), p} {
			if r.files[t] {
				return Resolution{Target: t, Internal: true}
			}
		}
		if f := closest(from, r.suffixFiles(p)); f != "" {
			return Resolution{Target: f, Internal: true}
		}
		return Resolution{}
	}
	segs := strings.Split(spec, `\`)
	if kind != "" {
		if len(segs) < 2 {
			return Resolution{}
		}
		segs = segs[:len(segs)-1]
		if d := phpBest(from, segs, r.namedDirs(segs[len(segs)-1]), false); d != "" {
			return Resolution{Target: d, Internal: true}
		}
		return Resolution{}
	}
	if f := phpBest(from, segs, r.namedFiles(segs[len(segs)-1]+".php"), true); f != "" {
		return Resolution{Target: f, Internal: true}
	}
	return Resolution{}
}

func (r *Resolver) namedFiles(base string) []string {
	r.paths()
	return r.more.byBase[base]
}

func (r *Resolver) namedDirs(base string) []string {
	r.paths()
	return r.more.dirsByBase[base]
}

// phpBest returns the candidate whose trailing path elements spell the
// most trailing segments of a namespaced name (file: the last element
// is "Name.php"), needing two or the whole name.
func phpBest(from string, segs, cands []string, file bool) string {
	need := min(2, len(segs))
	return mostSpelled(from, cands, need, func(c string) int {
		p := c
		if file {
			p = strings.TrimSuffix(c, ".php")
		}
		n := 0
		for p != "" && n < len(segs) && strings.EqualFold(path.Base(p), segs[len(segs)-1-n]) {
			n++
			p = parentDir(p)
		}
		if n == 1 && need == 2 && file && (strings.EqualFold(path.Base(p), "src") || strings.EqualFold(path.Base(p), "lib")) {
			n = 2 // a package's top class: Vendor\Pkg\ maps to src/
		}
		return n
	})
}
