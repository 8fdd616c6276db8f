package graph

import (
	"strings"
	"unicode"

	"github.com/ctx-dev/ctx/internal/discover"
	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Name is a top-level constant or variable a file declares on a line of
// its own: what the chunker groups into unnamed blocks (one-line
// declarations) or names only by its first entry (a Go const or var
// group), so that a definition lookup still finds it.
type Name struct {
	Name string
	Kind string // "const" or "var"
	Line int    // 1-based
}

var (
	goGroupStart = lazyre.New(`^(const|var)\s*\(\s*(?://.*)?$`)
	goGroupEntry = lazyre.New(`^\t([A-Za-z_]\w*)\b`)
	goSingle     = lazyre.New(`^(const|var)\s+([A-Za-z_]\w*)\b`)
	pyAssign     = lazyre.New(`^([A-Za-z_]\w*)\s*(?::[^=]+)?=[^=]`)
	jsRequire    = lazyre.New(`^\s*(?:await\s+)?(?:require|import)\s*\(`)
	jsDecl       = lazyre.New(`^(?:export\s+)?(const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=`)
	// cDecl: a file-scope declaration with an initialiser: qualifiers and
	// a type, then the name, optional array brackets, then "=".
	// cDeclNoInit: a file-scope variable without an initialiser
	// ("static unsigned long count;"); extern declarations and forward
	// type declarations are not definitions.
	cDeclNoInit = lazyre.New(`^(?:(?:static|const|volatile|unsigned|signed|long|short|thread_local)\s+)*[A-Za-z_][\w:<>]*(?:\s*\*+\s*|\s+)\*?\s*([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*\s*;\s*(?://.*)?$`)
	cDecl       = lazyre.New(`^(?:(?:static|extern|const|constexpr|inline|volatile|unsigned|signed|struct|enum)\s+)*[A-Za-z_][\w:<>]*(?:\s*\*+\s*|\s+)(?:const\s+)?\*?\s*([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*\s*=`)
)

// Names returns the top-level one-line constants and variables of a file
// (Go const/var group entries and single declarations, Python module
// assignments, JavaScript/TypeScript const/let/var, C/C++ file-scope
// variables with initialisers), in line order. Declarations that span a
// block of their own are left to the chunker; a name may therefore also
// be a chunk's (callers dedupe by line).
func Names(lang string, src []byte) []Name {
	switch lang {
	case discover.LangGo, discover.LangPython, discover.LangJavaScript, discover.LangTypeScript, discover.LangTSX, discover.LangC, discover.LangCPP:
	default:
		return nil // the index calls this for every file
	}
	lines := strings.Split(string(src), "\n")
	var out []Name
	add := func(name, kind string, line int) {
		if kind == "" {
			kind = "var"
			if isUpperName(name) {
				kind = "const"
			}
		}
		out = append(out, Name{Name: name, Kind: kind, Line: line})
	}
	switch lang {
	case discover.LangGo:
		group := ""
		for i, l := range lines {
			switch {
			case group != "":
				if strings.HasPrefix(l, ")") {
					group = ""
				} else if m := goGroupEntry().FindStringSubmatch(l); m != nil && m[1] != "_" {
					add(m[1], group, i+1)
				}
			default:
				if m := goGroupStart().FindStringSubmatch(l); m != nil {
					group = m[1]
				} else if m := goSingle().FindStringSubmatch(l); m != nil && m[2] != "_" {
					add(m[2], m[1], i+1)
				}
			}
		}
	case discover.LangPython:
		inString := ""
		for i, l := range lines {
			if inString != "" {
				if strings.Contains(l, inString) {
					inString = ""
				}
				continue
			}
			for _, q := range []string{`"""`, `'''`} {
				if strings.Count(l, q)%2 == 1 {
					inString = q
				}
			}
			if m := pyAssign().FindStringSubmatch(l); m != nil && inString == "" {
				add(m[1], "", i+1)
			}
		}
	case discover.LangJavaScript, discover.LangTypeScript, discover.LangTSX:
		for i, l := range lines {
			// "var read = require('./read')" binds an import, not a
			// definition of its own.
			if m := jsDecl().FindStringSubmatch(l); m != nil && !strings.Contains(l, "=>") && !strings.Contains(l, "function") && !strings.Contains(l, "class ") && !jsRequire().MatchString(l[len(m[0]):]) {
				kind := "var"
				if m[1] == "const" && isUpperName(m[2]) {
					kind = "const"
				}
				add(m[2], kind, i+1)
			}
		}
	case discover.LangC, discover.LangCPP:
		depth := 0
		for i, l := range lines {
			t := strings.TrimSpace(l)
			if depth == 0 && l != "" && !unicode.IsSpace(rune(l[0])) && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "//") &&
				!strings.HasPrefix(t, "/*") && !strings.HasPrefix(t, "return") && !strings.HasPrefix(t, "typedef") {
				if eq := strings.IndexByte(l, '='); eq > 0 && !strings.Contains(l[:eq], "(") {
					if m := cDecl().FindStringSubmatch(l); m != nil {
						kind := "var"
						if strings.Contains(l[:eq], "const") || isUpperName(m[1]) {
							kind = "const"
						}
						add(m[1], kind, i+1)
					}
				} else if eq < 0 && !strings.Contains(l, "(") && !cForward().MatchString(t) {
					if m := cDeclNoInit().FindStringSubmatch(l); m != nil {
						add(m[1], "var", i+1)
					}
				}
			}
			code := stripCLiterals(l)
			depth += strings.Count(code, "{") - strings.Count(code, "}")
			if depth < 0 {
				depth = 0
			}
			if strings.HasPrefix(t, "namespace ") || strings.HasPrefix(t, "extern \"C\"") {
				// A namespace's members are file-scope too.
				depth = max(0, depth-strings.Count(l, "{"))
			}
		}
	}
	return out
}

// cForward matches C/C++ lines that declare no variable: forward type
// declarations, extern declarations and other statements.
var cForward = lazyre.New(`^(?:struct|class|union|enum|typedef|using|extern|template|friend|namespace|return|goto|case|default|public|private|protected)\b`)

// stripCLiterals removes string and character literals and a // comment
// from a C line, so their braces do not count.
func stripCLiterals(l string) string {
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '/' && i+1 < len(l) && l[i+1] == '/':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// isUpperName reports whether a name is written in capitals (MAX_ITEMS),
// the convention for constants, or Go/C++ kConstant style.
func isUpperName(s string) bool {
	if len(s) > 1 && s[0] == 'k' && unicode.IsUpper(rune(s[1])) {
		return true
	}
	hasUpper := false
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
		hasUpper = hasUpper || unicode.IsUpper(r)
	}
	return hasUpper
}
