package weaviate

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// eachPage is how many objects one request of [Client.Each] lists.
const eachPage = 1000

// Each calls fn with the properties of every object of a class (and
// tenant, "" for a single-tenant class), in UUID order, paging with
// Weaviate's cursor API (GET /v1/objects with after=), so a class of any
// size is listed without the query result cap (QUERY_MAXIMUM_RESULTS).
// The listing carries every property. An error from fn stops it and is
// returned.
func (c *Client) Each(ctx context.Context, class, tenant string, fn func(props map[string]json.RawMessage) error) error {
	if err := checkName("class", class); err != nil {
		return fmt.Errorf("weaviate list: %v", err)
	}
	after := ""
	for {
		var page struct {
			Objects []struct {
				ID         string                     `json:"id"`
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"objects"`
		}
		u := c.endpoint("/v1/objects", "class", class, "tenant", tenant, "limit", strconv.Itoa(eachPage), "after", after)
		if err := c.do(ctx, http.MethodGet, u, nil, &page); err != nil {
			return fmt.Errorf("weaviate list %s: %w", class, err)
		}
		for _, o := range page.Objects {
			if err := fn(o.Properties); err != nil {
				return err
			}
		}
		if len(page.Objects) < eachPage {
			return nil
		}
		after = page.Objects[len(page.Objects)-1].ID
	}
}
