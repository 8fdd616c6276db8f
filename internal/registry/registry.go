// Package registry keeps the providers of one plug-in kind (LLM clients,
// rerankers) by name. Provider packages register a factory from their
// init functions; a front end links them by importing one "providers"
// package, and the configuration picks one by name, so no code outside a
// provider's package knows the provider.
package registry

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Registry maps provider names to factories of type F. It is safe for
// concurrent use.
type Registry[F any] struct {
	kind  string // what a provider is, for errors: "LLM provider", "reranker"
	links string // the package that links the providers, for errors
	mu    sync.RWMutex
	m     map[string]F // guarded by mu
}

// New returns an empty registry. kind names what is registered ("LLM
// provider") and links the package whose import registers them, both for
// error messages.
func New[F any](kind, links string) *Registry[F] {
	return &Registry[F]{kind: kind, links: links, m: map[string]F{}}
}

// Register adds f under name. It panics when name is empty, f is nil or
// name is taken: programmer errors at init.
func (r *Registry[F]) Register(name string, f F) {
	if v := reflect.ValueOf(&f).Elem(); name == "" || v.Kind() == reflect.Func && v.IsNil() {
		panic(fmt.Sprintf("registry: %s registered with an empty name or a nil factory", r.kind))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.m[name]; dup {
		panic(fmt.Sprintf("registry: %s %q registered twice", r.kind, name))
	}
	r.m[name] = f
}

// Get returns the factory registered as name. Errors: an unknown name,
// with the known ones listed (or a hint that the providers package is
// not linked when there are none).
func (r *Registry[F]) Get(name string) (F, error) {
	r.mu.RLock()
	f, ok := r.m[name]
	r.mu.RUnlock()
	if !ok {
		known := "none (is " + r.links + " imported?)"
		if names := r.Names(); len(names) > 0 {
			known = strings.Join(names, ", ")
		}
		return f, fmt.Errorf("unknown %s %q; known: %s", r.kind, name, known)
	}
	return f, nil
}

// Names returns the registered names, sorted.
func (r *Registry[F]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Sorted(maps.Keys(r.m))
}
