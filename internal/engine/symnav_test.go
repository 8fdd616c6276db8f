package engine_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/engine"
)

// symnavRepo is a repository named "shop" holding same-named definitions
// in several scopes, a long function the chunker splits, and calls whose
// receivers need scope to resolve.
func symnavRepo(t *testing.T) *engine.Engine {
	t.Helper()
	root := filepath.Join(t.TempDir(), "shop")
	writeFile(t, root, "go.mod", "module example.com/shop\n")
	writeFile(t, root, "cart/cart.go", `package cart

import "example.com/shop/store"

type Cart struct {
	db    store.DB
	items map[string]*Cart
}

func Close() {}

func (c *Cart) Close() error {
	c.db.Close()
	c.items["x"].Close()
	Close()
	return nil
}
`)
	writeFile(t, root, "store/store.go", `package store

type DB struct{}

func (d *DB) Close() error { return nil }

type Reader interface{ Read() }

type Both interface {
	Reader
}
`)
	writeFile(t, root, "other/reader.go", "package other\n\ntype Reader interface{ Other() }\n\ntype Wrap interface {\n\tReader\n}\n")
	var long strings.Builder
	long.WriteString("package cart\n\n// Total adds.\nfunc Total() int {\n\tn := 0\n")
	for i := range 150 {
		fmt.Fprintf(&long, "\tn += %d\n", i)
	}
	long.WriteString("\treturn n\n}\n")
	writeFile(t, root, "cart/total.go", long.String())
	writeFile(t, root, "py/models.py", "class Order:\n    def close(self):\n        self.flush()\n\n    def flush(self):\n        pass\n\n\nclass Invoice:\n    def close(self):\n        pass\n")
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})
	return e
}

func TestQualifiedDefinitions(t *testing.T) {
	t.Parallel()
	e := symnavRepo(t)
	for _, tc := range []struct {
		symbol, path, symbolWant, resolution string
		confidence                           float64
	}{
		{"(*Cart).Close", "cart/cart.go", "(*Cart).Close", "exact", 1},
		{"cart.Close", "cart/cart.go", "Close", "exact", 1}, // the function, not the method
		{"(*DB).Close", "store/store.go", "(*DB).Close", "exact", 1},
		{"store.Reader", "store/store.go", "Reader", "exact", 1},
		{"Order.close", "py/models.py", "Order.close", "exact", 1},
		{"models.Invoice.close", "py/models.py", "Invoice.close", "exact", 1},
		{"shop.cart.Close", "cart/cart.go", "Close", "exact", 1}, // the root's name qualifies too
		{"Reader", "other/reader.go", "Reader", "ambiguous", 0.45},
		{"nosuch.Close", "cart/cart.go", "Close", "name-only", 0.1},
	} {
		defs, err := e.Definitions(t.Context(), tc.symbol, "", 5, false)
		if err != nil || len(defs) == 0 {
			t.Errorf("Definitions(%q) = %v, %v", tc.symbol, defs, err)
			continue
		}
		d := defs[0]
		if d.Path != tc.path || d.Symbol != tc.symbolWant || d.Resolution != tc.resolution || d.Confidence != tc.confidence {
			t.Errorf("Definitions(%q)[0] = %s %s %s %.3f, want %s %s %s %.3f", tc.symbol, d.Path, d.Symbol, d.Resolution, d.Confidence,
				tc.path, tc.symbolWant, tc.resolution, tc.confidence)
		}
	}
}

func TestSplitDefinitionIsOneAnswer(t *testing.T) {
	t.Parallel()
	e := symnavRepo(t)
	defs, err := e.Definitions(t.Context(), "Total", "", 5, true)
	if err != nil || len(defs) != 1 {
		t.Fatalf("Definitions(Total) = %+v, %v; want one answer", defs, err)
	}
	if d := defs[0]; d.Parts < 2 || d.StartLine != 3 || d.EndLine != 157 || !strings.HasSuffix(d.Code, "return n\n}\n") {
		t.Errorf("Definitions(Total) = L%d-L%d in %d parts; want L3-L157 in several, whole code", d.StartLine, d.EndLine, d.Parts)
	}
	h, err := e.ChunkAt(t.Context(), "cart/total.go", 140)
	if err != nil {
		t.Fatal(err)
	}
	if h.StartLine != 3 || h.EndLine != 157 || h.Parts < 2 || h.Part != 0 {
		t.Errorf("ChunkAt(total.go:140) = L%d-L%d part %d of %d, want the whole definition L3-L157", h.StartLine, h.EndLine, h.Part, h.Parts)
	}
}

func TestCalleesNeverGuess(t *testing.T) {
	t.Parallel()
	e := symnavRepo(t)
	def, calls, err := e.Callees(t.Context(), "(*Cart).Close", "", 0)
	if err != nil || def.Path != "cart/cart.go" {
		t.Fatalf("Callees((*Cart).Close) = %+v, %v", def, err)
	}
	byLine := map[int]engine.Callee{}
	for _, c := range calls {
		byLine[c.Line] = c
	}
	if c := byLine[13]; c.Target == nil || c.Target.Path != "store/store.go" || c.Resolution != "resolved" {
		t.Errorf("c.db.Close() = %+v, want (*DB).Close in store/store.go", c)
	}
	if c := byLine[14]; c.Target != nil || c.Resolution != "unresolved" || c.Reason == "" {
		t.Errorf("c.items[\"x\"].Close() = %+v, want unresolved with a reason", c)
	}
	if c := byLine[15]; c.Target == nil || c.Target.Symbol != "Close" || c.Target.Path != "cart/cart.go" {
		t.Errorf("Close() = %+v, want the package function", c)
	}
	_, calls, err = e.Callees(t.Context(), "Order.close", "", 0)
	if err != nil || len(calls) != 1 || calls[0].Target == nil || calls[0].Target.Symbol != "Order.flush" {
		t.Errorf("Callees(Order.close) = %+v, %v; want self.flush linked to Order.flush", calls, err)
	}
}

func TestHierarchyNarrowsToThePackage(t *testing.T) {
	t.Parallel()
	e := symnavRepo(t)
	h, err := e.Hierarchy(t.Context(), "store.Reader", 0)
	if err != nil {
		t.Fatal(err)
	}
	if h.Definition == nil || h.Definition.Path != "store/store.go" || len(h.Subtypes) != 1 || h.Subtypes[0].Type != "Both" {
		t.Errorf("Hierarchy(store.Reader) = %+v, want store's Reader with subtype Both only", h)
	}
	h, err = e.Hierarchy(t.Context(), "other.Reader", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Subtypes) != 1 || h.Subtypes[0].Type != "Wrap" {
		t.Errorf("Hierarchy(other.Reader) subtypes = %+v, want Wrap only", h.Subtypes)
	}
}

// TestDeclarationsAreDefinitions: an interface or trait method without a
// body, a C prototype, a JavaScript "obj.m = function" and a chain's
// second name are found by a definition lookup; a C prototype follows the
// definition with a body; Ruby's Base#m and Base.m are told apart.
func TestDeclarationsAreDefinitions(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "lib")
	writeFile(t, root, "cache/Storage.java", "package cache;\n\npublic interface Storage {\n    Response find(String url);\n}\n")
	writeFile(t, root, "cache/Memory.java", "package cache;\n\nclass Memory implements Storage {\n    public Response find(String url) {\n        return null;\n    }\n}\n")
	writeFile(t, root, "ser/mod.rs", "pub trait Serializer {\n    fn serialize_str(self, v: &str);\n}\n")
	writeFile(t, root, "uv/uv.h", "#define UV_EXTERN extern\n\nUV_EXTERN int uv_run(uv_loop_t* loop);\n")
	writeFile(t, root, "uv/core.c", "int uv_run(uv_loop_t* loop) {\n  return 0;\n}\n")
	writeFile(t, root, "web/response.js", "var res = {};\n\nres.set =\nres.header = function header(field, val) {\n  return this;\n};\n\nexports.normalizeType = function (type) {\n  return type;\n};\n")
	writeFile(t, root, "app/base.rb", "class Base\n  def call(env)\n    env\n  end\n\n  def self.call(env)\n    new.call(env)\n  end\nend\n")
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})
	for _, tc := range []struct {
		symbol, path  string
		line          int
		resolution    string
		confidence    float64
		second, later string // the second answer's path and resolution, when one is wanted
	}{
		{symbol: "Storage.find", path: "cache/Storage.java", line: 4, resolution: "exact", confidence: 1},
		{symbol: "Serializer::serialize_str", path: "ser/mod.rs", line: 2, resolution: "exact", confidence: 1},
		{symbol: "uv_run", path: "uv/core.c", line: 1, resolution: "unique", confidence: 1, second: "uv/uv.h", later: "declaration"},
		{symbol: "res.header", path: "web/response.js", line: 4, resolution: "exact", confidence: 1},
		{symbol: "res.set", path: "web/response.js", line: 3, resolution: "exact", confidence: 1},
		{symbol: "response.normalizeType", path: "web/response.js", line: 8, resolution: "exact", confidence: 1},
		{symbol: "Base#call", path: "app/base.rb", line: 2, resolution: "exact", confidence: 1},
		{symbol: "Base.call", path: "app/base.rb", line: 6, resolution: "exact", confidence: 1},
	} {
		defs, err := e.Definitions(t.Context(), tc.symbol, "", 5, false)
		if err != nil || len(defs) == 0 {
			t.Errorf("Definitions(%q) = %v, %v", tc.symbol, defs, err)
			continue
		}
		d := defs[0]
		if d.Path != tc.path || d.StartLine > tc.line || d.EndLine < tc.line || d.Resolution != tc.resolution || d.Confidence != tc.confidence {
			t.Errorf("Definitions(%q)[0] = %s:%d-%d %s %.2f, want %s:%d %s %.2f", tc.symbol, d.Path, d.StartLine, d.EndLine,
				d.Resolution, d.Confidence, tc.path, tc.line, tc.resolution, tc.confidence)
		}
		if tc.second != "" && (len(defs) < 2 || defs[1].Path != tc.second || defs[1].Resolution != tc.later) {
			t.Errorf("Definitions(%q) = %+v, want %s (%s) second", tc.symbol, defs, tc.second, tc.later)
		}
	}
}

// TestGuessReachesSplitDefinition: a mention through a receiver of unknown
// type is linked, as a 0.5 guess, to the name's only definition even when
// the index holds that definition in several parts.
func TestGuessReachesSplitDefinition(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "app")
	var long strings.Builder
	long.WriteString("package sum\n\n// Total adds.\nfunc (s *Sum) Total() int {\n\tn := 0\n")
	for i := range 150 {
		fmt.Fprintf(&long, "\tn += %d\n", i)
	}
	long.WriteString("\treturn n\n}\n\ntype Sum struct{}\n")
	writeFile(t, root, "sum/sum.go", long.String())
	writeFile(t, root, "use/use.js", "function show(x) {\n  return x.Total();\n}\n")
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})
	refs, err := e.References(t.Context(), engine.ReferenceQuery{Symbol: "Total", Kinds: []string{"call"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0].Path != "use/use.js" || refs[0].Definition != "sum/sum.go:3" || refs[0].Confidence != 0.5 {
		t.Errorf("refs = %+v, want use/use.js linked to sum/sum.go:3 at 0.5", refs)
	}
}
