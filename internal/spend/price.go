// Package spend prices and caps what ctx's optional remote models cost:
// embedding during indexing, reranking and LLM calls. It holds the price
// table ([DefaultPrices], overridden by CTX_PRICES through
// [config.Spend].Prices), the cost of a request ([Cost]), whether an
// endpoint is this machine ([Local], which costs nothing) and the [Meter]
// that checks the per-run and per-UTC-day caps before each request and
// records what each finished request cost.
//
// Invariants: a request is checked before it is sent and recorded after
// it finished; the day's totals live in a small SQLite ledger in the
// cache directory shared by every ctx process, so a cap holds across
// processes; a ledger that cannot be read is an error, never reset.
package spend

import (
	"net"
	"net/url"
	"strings"

	"github.com/ctx-dev/ctx/internal/config"
)

// Kind is what a request pays for; each kind has its own caps.
type Kind string

// The kinds of metered requests.
const (
	Embed  Kind = "embed"
	Rerank Kind = "rerank"
	LLM    Kind = "llm"
)

// PricesAsOf is the date the built-in price table ([DefaultPrices]) was
// written. List prices change; CTX_PRICES ([config.Spend].Prices)
// overrides or extends the table without a new ctx.
const PricesAsOf = "2026-11-25"

// defaultPrices is the built-in table: list prices in US dollars per
// million input (or embedded) and output tokens, and per request, from
// the providers' pricing pages as of [PricesAsOf]. Jina sells token
// packs; its entries are the per-million price of its paid tier.
var defaultPrices = map[string]config.Price{
	// OpenAI embeddings.
	"text-embedding-3-small": {InPerMTok: 0.02},
	"text-embedding-3-large": {InPerMTok: 0.13},
	"text-embedding-ada-002": {InPerMTok: 0.10},
	// OpenAI chat models.
	"gpt-4o-mini":  {InPerMTok: 0.15, OutPerMTok: 0.60},
	"gpt-4o":       {InPerMTok: 2.50, OutPerMTok: 10.00},
	"gpt-4.1-nano": {InPerMTok: 0.10, OutPerMTok: 0.40},
	"gpt-4.1-mini": {InPerMTok: 0.40, OutPerMTok: 1.60},
	"gpt-4.1":      {InPerMTok: 2.00, OutPerMTok: 8.00},
	"gpt-5-nano":   {InPerMTok: 0.05, OutPerMTok: 0.40},
	"gpt-5-mini":   {InPerMTok: 0.25, OutPerMTok: 2.00},
	"gpt-5":        {InPerMTok: 1.25, OutPerMTok: 10.00},
	// Anthropic. The -latest aliases and the dated names share a price.
	"claude-3-5-haiku-latest":  {InPerMTok: 0.80, OutPerMTok: 4.00},
	"claude-3-5-haiku":         {InPerMTok: 0.80, OutPerMTok: 4.00},
	"claude-3-5-sonnet-latest": {InPerMTok: 3.00, OutPerMTok: 15.00},
	"claude-3-5-sonnet":        {InPerMTok: 3.00, OutPerMTok: 15.00},
	"claude-3-7-sonnet":        {InPerMTok: 3.00, OutPerMTok: 15.00},
	"claude-sonnet-4":          {InPerMTok: 3.00, OutPerMTok: 15.00},
	"claude-sonnet-4-5":        {InPerMTok: 3.00, OutPerMTok: 15.00},
	"claude-haiku-4-5":         {InPerMTok: 1.00, OutPerMTok: 5.00},
	"claude-opus-4":            {InPerMTok: 15.00, OutPerMTok: 75.00},
	"claude-opus-4-1":          {InPerMTok: 15.00, OutPerMTok: 75.00},
	"claude-opus-4-5":          {InPerMTok: 5.00, OutPerMTok: 25.00},
	// Voyage embeddings and rerankers (per million tokens).
	"voyage-code-3":   {InPerMTok: 0.18},
	"voyage-3":        {InPerMTok: 0.06},
	"voyage-3-lite":   {InPerMTok: 0.02},
	"voyage-3-large":  {InPerMTok: 0.18},
	"voyage-3.5":      {InPerMTok: 0.06},
	"voyage-3.5-lite": {InPerMTok: 0.02},
	"rerank-2":        {InPerMTok: 0.05},
	"rerank-2-lite":   {InPerMTok: 0.02},
	"rerank-2.5":      {InPerMTok: 0.05},
	"rerank-2.5-lite": {InPerMTok: 0.02},
	// Cohere rerankers: $2.00 per 1,000 searches.
	"rerank-v3.5":              {PerRequest: 0.002},
	"rerank-english-v3.0":      {PerRequest: 0.002},
	"rerank-multilingual-v3.0": {PerRequest: 0.002},
	// Jina.
	"jina-embeddings-v3":                 {InPerMTok: 0.05},
	"jina-embeddings-v2-base-code":       {InPerMTok: 0.05},
	"jina-reranker-v2-base-multilingual": {InPerMTok: 0.05},
}

// DefaultPrices returns a copy of the built-in price table: model name to
// [config.Price] (US dollars per million input and output tokens and per
// request), as of [PricesAsOf]. Local providers are not listed: they cost
// nothing (see [Local]).
func DefaultPrices() map[string]config.Price {
	out := make(map[string]config.Price, len(defaultPrices))
	for k, v := range defaultPrices {
		out[k] = v
	}
	return out
}

// Lookup returns the price of model: from cfg.Prices (CTX_PRICES) first,
// then from [DefaultPrices]. A name no table holds is matched by the
// longest known name it starts with, followed by "-", ":" or "@", so a
// dated variant ("gpt-4o-mini-2024-07-18") takes its family's price
// ("gpt-4o-mini"); a name routed through a gateway ("openai/gpt-4o") is
// looked up without its vendor part too. ok is false when no entry
// matches.
func Lookup(cfg config.Spend, model string) (config.Price, bool) {
	p, _, ok := LookupSource(cfg, model)
	return p, ok
}

// Sources of a price, as [LookupSource] reports them.
const (
	// SourceBuiltin is the built-in table as of [PricesAsOf].
	SourceBuiltin = "built-in table as of " + PricesAsOf
	// SourceOverride is [config.Spend].Prices.
	SourceOverride = "CTX_PRICES"
)

// LookupSource is [Lookup] that also says where the price came from:
// [SourceOverride] or [SourceBuiltin] ("" when not found).
func LookupSource(cfg config.Spend, model string) (config.Price, string, bool) {
	names := []string{model}
	if i := strings.LastIndex(model, "/"); i >= 0 && i < len(model)-1 {
		names = append(names, model[i+1:])
	}
	for _, tab := range []struct {
		prices map[string]config.Price
		source string
	}{{cfg.Prices, SourceOverride}, {defaultPrices, SourceBuiltin}} {
		for _, name := range names {
			if p, ok := tab.prices[name]; ok {
				return p, tab.source, true
			}
		}
		for _, name := range names {
			if p, ok := longestPrefix(tab.prices, name); ok {
				return p, tab.source, true
			}
		}
	}
	return config.Price{}, "", false
}

// longestPrefix returns the price of the longest key that name starts
// with, followed by a separator.
func longestPrefix(prices map[string]config.Price, name string) (config.Price, bool) {
	best, found := "", false
	var price config.Price
	for k, p := range prices {
		if len(k) <= len(best) || len(name) <= len(k) || !strings.HasPrefix(name, k) {
			continue
		}
		if c := name[len(k)]; c != '-' && c != ':' && c != '@' {
			continue
		}
		best, price, found = k, p, true
	}
	return price, found
}

// Cost is the US dollar cost of a request of inTokens input (or embedded)
// tokens and outTokens output tokens, made as requests requests, at p.
func Cost(p config.Price, inTokens, outTokens, requests int) float64 {
	return float64(inTokens)*p.InPerMTok/1e6 + float64(outTokens)*p.OutPerMTok/1e6 + float64(requests)*p.PerRequest
}

// Local reports whether baseURL points at this machine, where a request
// costs nothing and no cap applies: empty (a provider that only runs
// locally), a unix socket (a path, or a unix: or http+unix: URL), the
// host localhost (or a name under .localhost), or a loopback or
// unspecified IP address. A URL that does not parse is not local.
func Local(baseURL string) bool {
	s := strings.TrimSpace(baseURL)
	if s == "" || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "unix:") || strings.HasPrefix(s, "http+unix:") {
		return true
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return false
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}
