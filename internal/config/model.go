package config

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// loadModelLayer reads the optional model layer's settings: the LLM, the
// reranker and spend control.
func loadModelLayer(c *Config) error {
	if v := os.Getenv("CTX_LLM_PROVIDER"); v != "" {
		c.LLM.Provider = strings.ToLower(v)
	}
	c.LLM.URL = os.Getenv("CTX_LLM_URL")
	c.LLM.Model = os.Getenv("CTX_LLM_MODEL")
	c.LLM.APIKey = os.Getenv("CTX_LLM_API_KEY")
	if c.LLM.APIKey == "" {
		switch c.LLM.Provider {
		case "openai":
			c.LLM.APIKey = os.Getenv("OPENAI_API_KEY")
		case "anthropic":
			c.LLM.APIKey = os.Getenv("ANTHROPIC_API_KEY")
		}
	}
	if err := envDuration("CTX_LLM_TIMEOUT", &c.LLM.Timeout); err != nil {
		return err
	}
	if v := os.Getenv("CTX_LLM_MAX_TOKENS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("CTX_LLM_MAX_TOKENS=%q: want a positive number of tokens", v)
		}
		c.LLM.MaxTokens = n
	}
	if v := os.Getenv("CTX_RERANK_PROVIDER"); v != "" {
		c.Rerank.Provider = strings.ToLower(v)
	}
	c.Rerank.URL = os.Getenv("CTX_RERANK_URL")
	c.Rerank.Model = os.Getenv("CTX_RERANK_MODEL")
	c.Rerank.APIKey = os.Getenv("CTX_RERANK_API_KEY")
	if v := os.Getenv("CTX_RERANK_TOP_N"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("CTX_RERANK_TOP_N=%q: want a positive number of results", v)
		}
		c.Rerank.TopN = n
	}
	if err := envDuration("CTX_RERANK_TIMEOUT", &c.Rerank.Timeout); err != nil {
		return err
	}
	if v := os.Getenv("CTX_PRICES"); v != "" {
		p, err := ParsePrices(v)
		if err != nil {
			return fmt.Errorf("CTX_PRICES: %v", err)
		}
		c.Spend.Prices = p
	}
	for _, cp := range []struct {
		key string
		dst *float64
	}{
		{"CTX_SPEND_EMBED_RUN", &c.Spend.EmbedRun}, {"CTX_SPEND_EMBED_DAY", &c.Spend.EmbedDay},
		{"CTX_SPEND_RERANK_RUN", &c.Spend.RerankRun}, {"CTX_SPEND_RERANK_DAY", &c.Spend.RerankDay},
		{"CTX_SPEND_LLM_RUN", &c.Spend.LLMRun}, {"CTX_SPEND_LLM_DAY", &c.Spend.LLMDay},
	} {
		if v := os.Getenv(cp.key); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 {
				return fmt.Errorf("%s=%q: want a non-negative amount in US dollars (0: no cap)", cp.key, v)
			}
			*cp.dst = f
		}
	}
	return nil
}

func envDuration(key string, dst *time.Duration) error {
	v := os.Getenv(key)
	if v == "" {
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return fmt.Errorf("%s=%q: want a positive duration such as 3s or 500ms", key, v)
	}
	*dst = d
	return nil
}

// ParsePrices reads a price table written "model=in/out[/req],…": US
// dollars per million input tokens, per million output tokens and per
// request; missing parts are 0. Errors name the bad entry.
func ParsePrices(s string) (map[string]Price, error) {
	out := map[string]Price{}
	for _, ent := range strings.Split(s, ",") {
		ent = strings.TrimSpace(ent)
		if ent == "" {
			continue
		}
		model, nums, ok := strings.Cut(ent, "=")
		model = strings.TrimSpace(model)
		if !ok || model == "" {
			return nil, fmt.Errorf("entry %q: want model=in/out[/request]", ent)
		}
		parts := strings.Split(nums, "/")
		if len(parts) > 3 {
			return nil, fmt.Errorf("entry %q: at most three prices (input, output, per request)", ent)
		}
		var f [3]float64
		for i, p := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("entry %q: price %q is not a non-negative number", ent, p)
			}
			f[i] = v
		}
		out[model] = Price{InPerMTok: f[0], OutPerMTok: f[1], PerRequest: f[2]}
	}
	return out, nil
}

// validateModelLayer checks the LLM and reranker settings.
func (c *Config) validateModelLayer() error {
	switch c.LLM.Provider {
	case "", "openai", "anthropic", "ollama":
	default:
		return fmt.Errorf("LLM provider %q: want openai, anthropic or ollama (CTX_LLM_PROVIDER)", c.LLM.Provider)
	}
	switch c.Rerank.Provider {
	case "", "cohere", "jina", "voyage":
	case "tei":
		if c.Rerank.URL == "" {
			return fmt.Errorf("reranker tei needs the server's address in CTX_RERANK_URL")
		}
	default:
		return fmt.Errorf("reranker %q: want cohere, jina, voyage or tei (CTX_RERANK_PROVIDER)", c.Rerank.Provider)
	}
	if c.LLM.MaxTokens < 0 || c.LLM.Timeout < 0 || c.Rerank.TopN < 0 || c.Rerank.Timeout < 0 {
		return fmt.Errorf("negative LLM or reranker limit")
	}
	return nil
}
