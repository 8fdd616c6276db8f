package engine_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/engine"
)

func links(ls []engine.TypeLink) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Type+" "+l.Relation+" "+l.Base+" @"+l.Path)
	}
	slices.Sort(out)
	return out
}

// TestHierarchy: supertypes and subtypes from headers in six languages
// and from Go embedded fields.
func TestHierarchy(t *testing.T) {
	t.Parallel()
	root := repo(t)
	writeFile(t, root, "java/Shape.java", "package shapes;\n\npublic abstract class Shape implements Drawable, Comparable<Shape> {\n  abstract double area();\n}\n")
	writeFile(t, root, "java/Circle.java", "package shapes;\n\npublic class Circle extends Shape {\n  double r;\n  double area() { return 3.14 * r * r; }\n}\n")
	writeFile(t, root, "py/shapes.py", "class Square(Shape, metaclass=Meta):\n    def area(self):\n        return 1\n")
	writeFile(t, root, "ts/tri.ts", "export class Triangle extends Shape implements Drawable {\n  area(): number { return 0.5; }\n}\n")
	writeFile(t, root, "cpp/hex.hpp", "class Hexagon : public Shape, private Named {\n public:\n  double area() const { return 6; }\n};\n")
	writeFile(t, root, "rs/lib.rs", "pub trait Drawable {\n    fn draw(&self);\n}\n\npub struct Dot;\n\nimpl Drawable for Dot {\n    fn draw(&self) {}\n}\n")
	writeFile(t, root, "go/canvas.go", "package canvas\n\n// Canvas draws shapes.\ntype Canvas struct {\n\t*Surface\n\tsync.Mutex\n\tname string\n}\n\n// Surface is a drawing area.\ntype Surface struct{ w, h int }\n")
	e := open(t, testConfig(t), root, nil)
	index(t, e, engine.IndexOptions{})

	h, err := e.Hierarchy(t.Context(), "Shape", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Circle extends Shape @java/Circle.java",
		"Hexagon extends Shape @cpp/hex.hpp",
		"Square extends Shape @py/shapes.py",
		"Triangle extends Shape @ts/tri.ts",
	}
	if d := cmp.Diff(want, links(h.Subtypes)); d != "" {
		t.Errorf("subtypes of Shape (-want +got):\n%s", d)
	}
	want = []string{"Shape implements Comparable @java/Shape.java", "Shape implements Drawable @java/Shape.java"}
	if d := cmp.Diff(want, links(h.Supertypes)); d != "" {
		t.Errorf("supertypes of Shape (-want +got):\n%s", d)
	}

	h, err = e.Hierarchy(t.Context(), "Drawable", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Dot impl Drawable @rs/lib.rs", "Shape implements Drawable @java/Shape.java", "Triangle implements Drawable @ts/tri.ts"} {
		if !slices.Contains(links(h.Subtypes), w) {
			t.Errorf("subtypes of Drawable = %v, lack %s", links(h.Subtypes), w)
		}
	}

	h, err = e.Hierarchy(t.Context(), "Canvas", 0)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"Canvas embeds Mutex @go/canvas.go", "Canvas embeds Surface @go/canvas.go"}
	if d := cmp.Diff(want, links(h.Supertypes)); d != "" {
		t.Errorf("Canvas embeds (-want +got):\n%s", d)
	}
	h, err = e.Hierarchy(t.Context(), "Surface", 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"Canvas embeds Surface @go/canvas.go"}, links(h.Subtypes)); d != "" {
		t.Errorf("Surface embedded by (-want +got):\n%s", d)
	}
}

func TestCallees(t *testing.T) {
	t.Parallel()
	e, _ := lookupRepo(t)
	def, calls, err := e.Callees(t.Context(), "main", "cmd/", 0)
	if err != nil {
		t.Fatal(err)
	}
	if def.Path != "cmd/main.go" {
		t.Fatalf("callees of %s:%d, want cmd/main.go's main", def.Path, def.StartLine)
	}
	got := map[string]string{}
	for _, c := range calls {
		got[c.Name] = c.Definition
	}
	want := map[string]string{"ParseConfig": "config/config.go:8", "Retry": "client/retry.go:5"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("callees of main (-want +got):\n%s", d)
	}
	if _, _, err := e.Callees(t.Context(), "NoSuchFunc", "", 0); err == nil {
		t.Errorf("callees of an undefined name succeeded")
	}
}
