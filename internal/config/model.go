package config

import (
	"fmt"
	"strconv"
	"strings"
)

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
