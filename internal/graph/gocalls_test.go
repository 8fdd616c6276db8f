package graph

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// goFixture is a small repository of three packages: app (the caller),
// its import lock, and the external "fmt".
var goFixture = map[string]string{
	"lock/lock.go": `package lock

type Mutex struct{ n int }

func (m *Mutex) Lock()   {}
func (m *Mutex) Unlock() {}

type Locker interface {
	Lock()
	Unlock()
}

func New() *Mutex { return &Mutex{} }
`,
	"app/server.go": `package app

import (
	"fmt"

	"example.com/lock"
)

type base struct{}

func (base) Close() error { return nil }

type Server struct {
	base
	mu      lock.Mutex
	l       lock.Locker
	handler func()
	conns   map[string]*Server
}

func (s *Server) Shutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.l.Lock()
	s.closeIdle()
	_ = s.Close()
	s.handler()
	m := lock.New()
	m.Lock()
	c := s.conns["x"]
	c.closeIdle()
	f := s.closeIdle
	f()
	fmt.Println(len("x"), helper())
	_ = Server{}
}

func (s *Server) closeIdle() {}

func helper() int { return 1 }
`,
}

func newFixtureCalls() *GoCalls {
	return NewGoCalls(func(dir string, tests bool) []GoFile {
		var out []GoFile
		for p, src := range goFixture {
			if path.Dir(p) == dir && (tests || !strings.HasSuffix(p, "_test.go")) {
				out = append(out, GoFile{Path: p, Src: []byte(src)})
			}
		}
		slices.SortFunc(out, func(a, b GoFile) int { return strings.Compare(a.Path, b.Path) })
		return out
	}, func(file, spec string) string {
		if spec == "example.com/lock" {
			return "lock"
		}
		return ""
	})
}

func TestGoCalls(t *testing.T) {
	t.Parallel()
	calls, ok := newFixtureCalls().Calls("app/server.go", 22)
	if !ok {
		t.Fatal("Calls found no function at app/server.go:22")
	}
	type want struct {
		name, kind, decl, reason string
		external                 bool
	}
	got := map[string][]want{} // by "line name"
	for _, c := range calls {
		decl := ""
		if c.DeclFile != "" {
			decl = c.DeclFile + ":" + strconv.Itoa(c.DeclLine)
		}
		key := strconv.Itoa(c.Line) + " " + c.Name
		got[key] = append(got[key], want{c.Name, c.Kind, decl, c.Reason, c.External})
	}
	for key, w := range map[string]want{
		"22 Lock":      {"Lock", "method", "lock/lock.go:5", "", false},           // a field's type from an import
		"23 Unlock":    {"Unlock", "method", "lock/lock.go:6", "", false},         // under defer
		"24 Lock":      {"Lock", "interface method", "lock/lock.go:9", "", false}, // through an interface
		"25 closeIdle": {"closeIdle", "method", "app/server.go:38", "", false},    // the receiver's own method
		"26 Close":     {"Close", "method", "app/server.go:11", "", false},        // promoted from an embedded field
		"27 handler":   {"handler", "func value", "", "a call of a field of function type", false},
		"28 New":       {"New", "function", "lock/lock.go:13", "", false},
		"29 Lock":      {"Lock", "method", "lock/lock.go:5", "", false}, // a local from New's declared result
		"32 closeIdle": {"closeIdle", "method value", "app/server.go:38", "", false},
		"33 f":         {"f", "func value", "", "a call of a local function value", false},
		"34 Println":   {"Println", "function", "", "in package fmt, outside the repository", true},
		"34 helper":    {"helper", "function", "app/server.go:40", "", false},
	} {
		gs := got[key]
		if len(gs) != 1 || gs[0] != w {
			t.Errorf("%s: got %+v, want %+v", key, gs, w)
		}
	}
	// A package function call names its package's directory.
	for _, c := range calls {
		if c.Name == "New" && c.Pkg != "lock" || c.Name == "Lock" && c.Pkg != "" {
			t.Errorf("%s at line %d: Pkg %q", c.Name, c.Line, c.Pkg)
		}
	}
	// A map element's type needs a type checker: unresolved, not guessed.
	if gs := got["31 closeIdle"]; len(gs) != 1 || gs[0].decl != "" || gs[0].reason == "" {
		t.Errorf("c.closeIdle() on a map element: %+v, want unresolved with a reason", gs)
	}
	// Builtins and composite literals are not calls of anything.
	for key := range got {
		if strings.HasSuffix(key, " len") || strings.HasSuffix(key, " Server") {
			t.Errorf("listed %q", key)
		}
	}
	if _, ok := newFixtureCalls().Calls("app/server.go", 3); ok {
		t.Error("Calls found a function at the import block")
	}
}
