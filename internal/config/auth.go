package config

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// AuthProviders are the providers whose keys `ctx auth set` stores in the
// user file's [auth] table. A stored key feeds each Secret setting whose
// AuthFor names the provider (embed.api_key for the embedding provider,
// llm.api_key, rerank.api_key; weaviate.api_key; server.token for mcp),
// unless an environment variable sets it.
var AuthProviders = []string{"openai", "anthropic", "voyage", "cohere", "jina", "weaviate", "mcp"}

// providerEnv is each provider's own environment variable, which wins over
// a stored key.
var providerEnv = map[string]string{
	"openai":    "OPENAI_API_KEY",
	"anthropic": "ANTHROPIC_API_KEY",
	"voyage":    "VOYAGE_API_KEY",
	"weaviate":  "CTX_WEAVIATE_API_KEY",
	"mcp":       "CTX_MCP_TOKEN",
}

// AuthKey is what `ctx auth ls` says of one provider; never the key.
type AuthKey struct {
	Provider string
	// Stored reports a key in the user file's [auth] table.
	Stored bool
	// Env is the provider's own variable ("" for none); EnvSet reports
	// that it is set, which wins over the stored key.
	Env    string
	EnvSet bool
	// UsedBy lists the settings the provider's key feeds in the current
	// configuration (embed.api_key when embed.provider is openai, …).
	UsedBy []string
}

// AuthStatus reports on every provider of [AuthProviders], given the
// resolved configuration (for UsedBy). Errors: reading the user file.
func AuthStatus(r *Resolved) ([]AuthKey, error) {
	stored := map[string]fileValue{}
	if uf, err := UserFile(); err == nil {
		d, err := readFile(uf, false, "")
		if err != nil {
			return nil, err
		}
		stored = d.auth
	}
	out := make([]AuthKey, 0, len(AuthProviders))
	for _, p := range AuthProviders {
		k := AuthKey{Provider: p, Env: providerEnv[p]}
		_, k.Stored = stored[p]
		k.EnvSet = k.Env != "" && os.Getenv(k.Env) != ""
		for _, s := range settings {
			if s.AuthFor != nil && r != nil && s.AuthFor(&r.Config) == p {
				k.UsedBy = append(k.UsedBy, s.Key)
			}
		}
		out = append(out, k)
	}
	return out, nil
}

// CheckAuthProvider returns an error unless p is one of [AuthProviders].
func CheckAuthProvider(p string) error {
	if !slices.Contains(AuthProviders, p) {
		return fmt.Errorf("provider %q: want %s", p, orList(AuthProviders))
	}
	return nil
}

// SetAuth stores key as provider's key in the user file's [auth] table
// and returns the file. The file is written atomically with mode 0600,
// whatever its mode was. Errors: an unknown provider; an empty key or one
// of several lines; a user file that is not valid TOML.
func SetAuth(provider, key string) (string, error) {
	if err := CheckAuthProvider(provider); err != nil {
		return "", err
	}
	if key == "" || strings.ContainsAny(key, "\r\n") {
		return "", fmt.Errorf("the key for %s must be one non-empty line", provider)
	}
	f, err := UserFileTarget()
	if err != nil {
		return "", err
	}
	lit, err := KindString.formatTOML(key)
	if err != nil {
		return "", err
	}
	path := []string{authTable, provider}
	err = editFile(f, authTable+"."+provider, func(src []byte) ([]byte, error) { return setText(src, path, lit) },
		func(d *fileDoc) error {
			if d.auth[provider].v != key {
				return fmt.Errorf("the key for %s did not read back as written", provider)
			}
			return nil
		})
	return f.Path, err
}

// RemoveAuth removes provider's key from the user file and reports
// whether there was one.
func RemoveAuth(provider string) (bool, error) {
	if err := CheckAuthProvider(provider); err != nil {
		return false, err
	}
	f, err := UserFileTarget()
	if err != nil {
		return false, err
	}
	path := []string{authTable, provider}
	found := false
	err = editFile(f, authTable+"."+provider, func(src []byte) ([]byte, error) {
		out, ok, err := unsetText(src, path)
		found = ok
		return out, err
	}, func(d *fileDoc) error {
		if _, ok := d.auth[provider]; ok {
			return fmt.Errorf("the key for %s is still there", provider)
		}
		return nil
	})
	return found, err
}
