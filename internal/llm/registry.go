package llm

import (
	"fmt"

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/registry"
)

// Factory builds a client from options that [New] has checked; it fills
// in the provider's default URL and model and checks the rest.
type Factory func(Options) (Client, error)

// providers holds the registered factories.
var providers = registry.New[Factory]("LLM provider", "internal/llm/providers")

// Register makes a provider available to [New] under name. Providers call
// it from their package's init; it panics when name is empty, f is nil or
// name is already taken, which are programming errors.
func Register(name string, f Factory) { providers.Register(name, f) }

// Names returns the registered provider names, sorted.
func Names() []string { return providers.Names() }

// New builds the client of the provider registered as name. It returns an
// error for an unknown name (listing [Names]), a URL that is not an
// absolute http(s) URL, a negative limit, or whatever the provider
// rejects. It does not contact the service.
func New(name string, o Options) (Client, error) {
	f, err := providers.Get(name)
	if err != nil {
		return nil, err
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
