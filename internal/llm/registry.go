package llm

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ctx-dev/ctx/internal/config"
)

// Factory builds a client from options that [New] has checked; it fills
// in the provider's default URL and model and checks the rest.
type Factory func(Options) (Client, error)

var (
	mu        sync.RWMutex // guards factories
	factories = map[string]Factory{}
)

// Register makes a provider available to [New] under name. Providers call
// it from their package's init; it panics when name is empty, f is nil or
// name is already taken, which are programming errors.
func Register(name string, f Factory) {
	if name == "" || f == nil {
		panic("llm: Register with an empty name or a nil factory")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := factories[name]; dup {
		panic(fmt.Sprintf("llm: provider %q registered twice", name))
	}
	factories[name] = f
}

// Names returns the registered provider names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(factories))
	for n := range factories {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// New builds the client of the provider registered as name. It returns an
// error for an unknown name (listing [Names]), a URL that is not an
// absolute http(s) URL, a negative limit, or whatever the provider
// rejects. It does not contact the service.
func New(name string, o Options) (Client, error) {
	mu.RLock()
	f := factories[name]
	mu.RUnlock()
	if f == nil {
		known := "none (is internal/llm/providers imported?)"
		if names := Names(); len(names) > 0 {
			known = strings.Join(names, ", ")
		}
		return nil, fmt.Errorf("unknown LLM provider %q; known: %s", name, known)
	}
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("LLM provider %s: %v", name, err)
	}
	c, err := f(o)
	if err != nil {
		return nil, fmt.Errorf("LLM provider %s: %v", name, err)
	}
	return c, nil
}

// FromConfig builds the configured client: (nil, nil) when c.Provider is
// "" (the layer is off), else [New] with c's URL, model, key, timeout and
// output cap.
func FromConfig(c config.LLM) (Client, error) {
	if c.Provider == "" {
		return nil, nil
	}
	return New(c.Provider, Options{
		URL:       c.URL,
		Model:     c.Model,
		APIKey:    c.APIKey,
		Timeout:   c.Timeout,
		MaxTokens: c.MaxTokens,
	})
}
