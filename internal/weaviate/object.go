package weaviate

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// MaxBatch is how many objects [Client.BatchPut] sends per request:
// Weaviate's documentation suggests batches of a few hundred, and 500
// objects of 1,536 dims stay near 10 MB of JSON.
const MaxBatch = 500

// Object is one Weaviate object with its own vector.
type Object struct {
	ID         string // UUID
	Class      string
	Tenant     string // "" for a single-tenant class
	Properties map[string]any
	Vector     []float32
}

type wireObject struct {
	Class      string         `json:"class"`
	ID         string         `json:"id"`
	Tenant     string         `json:"tenant,omitempty"`
	Properties map[string]any `json:"properties,omitempty"`
	Vector     []float32      `json:"vector,omitempty"`
}

func (o Object) wire() wireObject {
	return wireObject{Class: o.Class, ID: o.ID, Tenant: o.Tenant, Properties: o.Properties, Vector: o.Vector}
}

// BatchPut creates or replaces objs (by ID) with POST /v1/batch/objects,
// [MaxBatch] at a time. Weaviate answers 200 even when some objects fail;
// those failures become one error that counts them and quotes the first
// few. Batches before a failing one stay written.
func (c *Client) BatchPut(ctx context.Context, objs []Object) error {
	for start := 0; start < len(objs); start += MaxBatch {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("weaviate batch put: %w", err)
		}
		part := objs[start:min(start+MaxBatch, len(objs))]
		body := struct {
			Objects []wireObject `json:"objects"`
		}{Objects: make([]wireObject, len(part))}
		for i, o := range part {
			body.Objects[i] = o.wire()
		}
		var resp []struct {
			Class  string `json:"class"`
			ID     string `json:"id"`
			Result struct {
				Errors *struct {
					Error []struct {
						Message string `json:"message"`
					} `json:"error"`
				} `json:"errors"`
			} `json:"result"`
		}
		class := part[0].Class
		if err := c.do(ctx, http.MethodPost, c.endpoint("/v1/batch/objects", "consistency_level", c.ConsistencyLevel), body, &resp); err != nil {
			return fmt.Errorf("weaviate batch put %s: %w", class, err)
		}
		var failed []string
		n := 0
		for _, r := range resp {
			if r.Result.Errors == nil || len(r.Result.Errors.Error) == 0 {
				continue
			}
			n++
			if len(failed) < 3 {
				var msgs []string
				for _, e := range r.Result.Errors.Error {
					msgs = append(msgs, e.Message)
				}
				failed = append(failed, fmt.Sprintf("%s: %s", r.ID, strings.Join(msgs, "; ")))
			}
		}
		if n > 0 {
			return fmt.Errorf("weaviate batch put %s: %d of %d objects failed: %s", class, n, len(part), strings.Join(failed, "; "))
		}
	}
	return nil
}

// BatchDelete deletes the objects of class (and tenant, "" for none) that
// match where, and returns how many it deleted. Weaviate caps the matches
// of one request (QUERY_MAXIMUM_RESULTS, 10,000 by default), so it
// repeats the request until a round matches fewer than the cap.
func (c *Client) BatchDelete(ctx context.Context, class, tenant string, where Filter) (int, error) {
	wf, err := where.rest()
	if err != nil {
		return 0, fmt.Errorf("weaviate batch delete %s: %v", class, err)
	}
	body := map[string]any{
		"match":  map[string]any{"class": class, "where": wf},
		"output": "minimal",
	}
	u := c.endpoint("/v1/batch/objects", "consistency_level", c.ConsistencyLevel, "tenant", tenant)
	total := 0
	for {
		var resp struct {
			Results struct {
				Matches    int `json:"matches"`
				Limit      int `json:"limit"`
				Successful int `json:"successful"`
				Failed     int `json:"failed"`
				Objects    []struct {
					ID     string `json:"id"`
					Errors *struct {
						Error []struct {
							Message string `json:"message"`
						} `json:"error"`
					} `json:"errors"`
				} `json:"objects"`
			} `json:"results"`
		}
		if err := c.do(ctx, http.MethodDelete, u, body, &resp); err != nil {
			return total, fmt.Errorf("weaviate batch delete %s: %w", class, err)
		}
		r := resp.Results
		total += r.Successful
		if r.Failed > 0 {
			return total, fmt.Errorf("weaviate batch delete %s: %d of %d matches failed", class, r.Failed, r.Matches)
		}
		if r.Limit <= 0 || r.Matches < r.Limit || r.Successful == 0 {
			return total, nil
		}
		if err := ctx.Err(); err != nil {
			return total, fmt.Errorf("weaviate batch delete %s: %w", class, err)
		}
	}
}

// GetObject returns the object of class (and tenant) with the UUID id,
// with its vector, or nil, nil when there is none.
func (c *Client) GetObject(ctx context.Context, class, tenant, id string) (*Object, error) {
	if err := checkName("class", class); err != nil {
		return nil, fmt.Errorf("weaviate get object: %v", err)
	}
	var w wireObject
	u := c.endpoint("/v1/objects/"+url.PathEscape(class)+"/"+url.PathEscape(id),
		"include", "vector", "tenant", tenant, "consistency_level", c.ConsistencyLevel)
	err := c.do(ctx, http.MethodGet, u, nil, &w)
	if isStatus(err, http.StatusNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("weaviate get object %s/%s: %w", class, id, err)
	}
	return &Object{ID: w.ID, Class: w.Class, Tenant: w.Tenant, Properties: w.Properties, Vector: w.Vector}, nil
}

// PutObject creates o, or replaces the object with its ID. Weaviate
// 1.35 answers a PUT /v1/objects/{class}/{id} for an absent object with
// 500 ("no object with id"), not 404, so PutObject first asks with HEAD
// whether the object exists, then replaces it with PUT or creates it with
// POST /v1/objects (also the fallback should a PUT meet 404).
func (c *Client) PutObject(ctx context.Context, o Object) error {
	if err := checkName("class", o.Class); err != nil {
		return fmt.Errorf("weaviate put object: %v", err)
	}
	cl := c.ConsistencyLevel
	u := c.endpoint("/v1/objects/"+url.PathEscape(o.Class)+"/"+url.PathEscape(o.ID), "consistency_level", cl, "tenant", o.Tenant)
	err := c.do(ctx, http.MethodHead, u, nil, nil)
	if err == nil {
		u = c.endpoint("/v1/objects/"+url.PathEscape(o.Class)+"/"+url.PathEscape(o.ID), "consistency_level", cl)
		err = c.do(ctx, http.MethodPut, u, o.wire(), nil)
	}
	if isStatus(err, http.StatusNotFound) {
		err = c.do(ctx, http.MethodPost, c.endpoint("/v1/objects", "consistency_level", cl), o.wire(), nil)
	}
	if err != nil {
		return fmt.Errorf("weaviate put object %s/%s: %w", o.Class, o.ID, err)
	}
	return nil
}
