package registry

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRegistry(t *testing.T) {
	t.Parallel()
	r := New[func() int]("widget", "internal/widget/providers")
	if _, err := r.Get("a"); err == nil || !strings.Contains(err.Error(), `unknown widget "a"; known: none (is internal/widget/providers imported?)`) {
		t.Errorf("Get on an empty registry: %v", err)
	}
	r.Register("b", func() int { return 2 })
	r.Register("a", func() int { return 1 })
	if diff := cmp.Diff([]string{"a", "b"}, r.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	if f, err := r.Get("b"); err != nil || f() != 2 {
		t.Errorf("Get(b) = %v", err)
	}
	if _, err := r.Get("c"); err == nil || !strings.Contains(err.Error(), `unknown widget "c"; known: a, b`) {
		t.Errorf("Get(c): %v", err)
	}
	for name, f := range map[string]func() int{"": func() int { return 0 }, "nil": nil, "a": func() int { return 3 }} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			r.Register(name, f)
		}()
	}
}
