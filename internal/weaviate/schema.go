package weaviate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// ErrSchemaMismatch is wrapped by [Client.EnsureClass] when the class
// exists with a schema that cannot serve the wanted one.
var ErrSchemaMismatch = errors.New("weaviate schema mismatch")

// Property is one property of a [Class].
type Property struct {
	// Name must be a GraphQL name (letters, digits, underscore; not
	// starting with a digit).
	Name string
	// DataType is "text", "text[]", "int", "int[]", "number", "boolean",
	// "blob" (or any other Weaviate data type name).
	DataType string
	// Tokenization is "word", "whitespace", "field", "lowercase", or ""
	// for the server default ("word"); text properties only.
	Tokenization string
	// Filterable and Searchable set indexFilterable and indexSearchable;
	// nil leaves the server default (both on for text).
	Filterable, Searchable *bool
}

// Class is a Weaviate collection with vectors supplied by the client
// (vectorizer "none").
type Class struct {
	Name        string
	Description string
	Properties  []Property
	// MultiTenancy enables multi-tenancy with automatic tenant creation
	// off: tenants are added with [Client.AddTenants].
	MultiTenancy bool
	// Replicas is the replication factor; 0 means the server default (1).
	Replicas int
	// Shards is the shard count of a single-tenant class, fixed at
	// creation; 0 means the server default (one per node). Ignored with
	// MultiTenancy (each tenant is one shard).
	Shards int
	// Distance is the vector distance metric ("cosine", "dot", "l2-squared",
	// ...); "" means "cosine".
	Distance string
	// Stopwords is invertedIndexConfig.stopwords.preset: "en" (the
	// server's default when ""), or "none" so that BM25 queries keep every
	// term they are given.
	Stopwords string
}

// nameRE is the syntax of a GraphQL name, which class and property names
// must follow.
var nameRE = lazyre.New(`^[_A-Za-z][_0-9A-Za-z]*$`)

func checkName(kind, name string) error {
	if !nameRE().MatchString(name) {
		return fmt.Errorf("invalid %s name %q", kind, name)
	}
	return nil
}

// wireProperty and wireClass are the JSON shapes of /v1/schema.
type wireProperty struct {
	Name            string   `json:"name"`
	DataType        []string `json:"dataType"`
	Tokenization    string   `json:"tokenization,omitempty"`
	IndexFilterable *bool    `json:"indexFilterable,omitempty"`
	IndexSearchable *bool    `json:"indexSearchable,omitempty"`
}

type wireClass struct {
	Class              string         `json:"class"`
	Description        string         `json:"description,omitempty"`
	Vectorizer         string         `json:"vectorizer,omitempty"`
	Properties         []wireProperty `json:"properties"`
	MultiTenancyConfig *struct {
		Enabled            bool `json:"enabled"`
		AutoTenantCreation bool `json:"autoTenantCreation"`
	} `json:"multiTenancyConfig,omitempty"`
	ReplicationConfig *struct {
		Factor int `json:"factor"`
	} `json:"replicationConfig,omitempty"`
	ShardingConfig *struct {
		DesiredCount int `json:"desiredCount,omitempty"`
	} `json:"shardingConfig,omitempty"`
	VectorIndexConfig *struct {
		Distance string `json:"distance,omitempty"`
	} `json:"vectorIndexConfig,omitempty"`
	InvertedIndexConfig *wireInverted `json:"invertedIndexConfig,omitempty"`
}

type wireInverted struct {
	Stopwords struct {
		Preset string `json:"preset"`
	} `json:"stopwords"`
}

func toWire(cl Class) wireClass {
	w := wireClass{Class: cl.Name, Description: cl.Description, Vectorizer: "none", Properties: []wireProperty{}}
	for _, p := range cl.Properties {
		w.Properties = append(w.Properties, wireProperty{
			Name: p.Name, DataType: []string{p.DataType}, Tokenization: p.Tokenization,
			IndexFilterable: p.Filterable, IndexSearchable: p.Searchable,
		})
	}
	if cl.MultiTenancy {
		w.MultiTenancyConfig = &struct {
			Enabled            bool `json:"enabled"`
			AutoTenantCreation bool `json:"autoTenantCreation"`
		}{Enabled: true}
	}
	if cl.Replicas > 0 {
		w.ReplicationConfig = &struct {
			Factor int `json:"factor"`
		}{Factor: cl.Replicas}
	}
	if cl.Shards > 0 && !cl.MultiTenancy {
		w.ShardingConfig = &struct {
			DesiredCount int `json:"desiredCount,omitempty"`
		}{DesiredCount: cl.Shards}
	}
	dist := cl.Distance
	if dist == "" {
		dist = "cosine"
	}
	w.VectorIndexConfig = &struct {
		Distance string `json:"distance,omitempty"`
	}{Distance: dist}
	if cl.Stopwords != "" {
		w.InvertedIndexConfig = &wireInverted{}
		w.InvertedIndexConfig.Stopwords.Preset = cl.Stopwords
	}
	return w
}

func fromWire(w wireClass) *Class {
	cl := &Class{Name: w.Class, Description: w.Description}
	for _, p := range w.Properties {
		dt := ""
		if len(p.DataType) > 0 {
			dt = p.DataType[0]
		}
		cl.Properties = append(cl.Properties, Property{
			Name: p.Name, DataType: dt, Tokenization: p.Tokenization,
			Filterable: p.IndexFilterable, Searchable: p.IndexSearchable,
		})
	}
	if w.MultiTenancyConfig != nil {
		cl.MultiTenancy = w.MultiTenancyConfig.Enabled
	}
	if w.ReplicationConfig != nil {
		cl.Replicas = w.ReplicationConfig.Factor
	}
	if w.ShardingConfig != nil {
		cl.Shards = w.ShardingConfig.DesiredCount
	}
	if w.VectorIndexConfig != nil {
		cl.Distance = w.VectorIndexConfig.Distance
	}
	return cl
}

// Class returns the schema of the named class, or nil, nil when it does
// not exist.
func (c *Client) Class(ctx context.Context, name string) (*Class, error) {
	if err := checkName("class", name); err != nil {
		return nil, fmt.Errorf("weaviate class: %v", err)
	}
	var w wireClass
	err := c.do(ctx, http.MethodGet, c.endpoint("/v1/schema/"+url.PathEscape(name)), nil, &w)
	if isStatus(err, http.StatusNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("weaviate class %s: %w", name, err)
	}
	cl := fromWire(w)
	c.noteReplicas(name, cl.Replicas)
	return cl, nil
}

func (c *Client) noteReplicas(class string, factor int) {
	c.mu.Lock()
	c.replicated[class] = factor > 1
	c.mu.Unlock()
}

// EnsureClass creates cl when no class of that name exists. When one
// does, the properties of cl it lacks are added to it (a newer layout of
// the class's objects), and it returns an error wrapping
// [ErrSchemaMismatch] if a property has another data type or
// tokenization, or if multi-tenancy differs; extra properties on the
// server are fine, and other settings (replicas, shards, distance) are
// not compared.
func (c *Client) EnsureClass(ctx context.Context, cl Class) error {
	if err := checkName("class", cl.Name); err != nil {
		return fmt.Errorf("weaviate ensure class: %v", err)
	}
	for _, p := range cl.Properties {
		if err := checkName("property", p.Name); err != nil {
			return fmt.Errorf("weaviate ensure class %s: %v", cl.Name, err)
		}
	}
	have, err := c.Class(ctx, cl.Name)
	if err != nil {
		return fmt.Errorf("weaviate ensure class %s: %w", cl.Name, err)
	}
	if have == nil {
		err := c.do(ctx, http.MethodPost, c.endpoint("/v1/schema"), toWire(cl), nil)
		if err == nil {
			c.noteReplicas(cl.Name, cl.Replicas)
			return nil
		}
		// Another process may have created it meanwhile: compare instead.
		if have, _ = c.Class(ctx, cl.Name); have == nil {
			return fmt.Errorf("weaviate create class %s: %w", cl.Name, err)
		}
	}
	if have.MultiTenancy == cl.MultiTenancy {
		added := false
		for _, p := range toWire(cl).Properties {
			if slices.ContainsFunc(have.Properties, func(h Property) bool { return h.Name == p.Name }) {
				continue
			}
			// Another process may add it meanwhile: its failure is
			// judged by the comparison below.
			_ = c.do(ctx, http.MethodPost, c.endpoint("/v1/schema/"+url.PathEscape(cl.Name)+"/properties"), p, nil)
			added = true
		}
		if added {
			if have, err = c.Class(ctx, cl.Name); err != nil {
				return fmt.Errorf("weaviate ensure class %s: %w", cl.Name, err)
			}
			if have == nil {
				return fmt.Errorf("weaviate ensure class %s: deleted while its properties were added", cl.Name)
			}
		}
	}
	if err := compareClass(cl, *have); err != nil {
		return fmt.Errorf("weaviate ensure class %s: %w", cl.Name, err)
	}
	return nil
}

// compareClass reports how have cannot serve want, wrapping
// [ErrSchemaMismatch], or nil.
func compareClass(want, have Class) error {
	if want.MultiTenancy != have.MultiTenancy {
		return fmt.Errorf("%w: multi-tenancy is %t, want %t", ErrSchemaMismatch, have.MultiTenancy, want.MultiTenancy)
	}
	for _, p := range want.Properties {
		i := slices.IndexFunc(have.Properties, func(h Property) bool { return h.Name == p.Name })
		if i < 0 {
			return fmt.Errorf("%w: property %s is missing", ErrSchemaMismatch, p.Name)
		}
		h := have.Properties[i]
		if h.DataType != p.DataType {
			return fmt.Errorf("%w: property %s has data type %s, want %s", ErrSchemaMismatch, p.Name, h.DataType, p.DataType)
		}
		if p.Tokenization != "" && h.Tokenization != p.Tokenization {
			return fmt.Errorf("%w: property %s has tokenization %q, want %q", ErrSchemaMismatch, p.Name, h.Tokenization, p.Tokenization)
		}
	}
	return nil
}

// DeleteClass deletes the class and all its objects; a class that does
// not exist is not an error.
func (c *Client) DeleteClass(ctx context.Context, name string) error {
	if err := checkName("class", name); err != nil {
		return fmt.Errorf("weaviate delete class: %v", err)
	}
	err := c.do(ctx, http.MethodDelete, c.endpoint("/v1/schema/"+url.PathEscape(name)), nil, nil)
	if err != nil && !isStatus(err, http.StatusNotFound) {
		return fmt.Errorf("weaviate delete class %s: %w", name, err)
	}
	c.mu.Lock()
	delete(c.replicated, name)
	c.mu.Unlock()
	return nil
}

type wireTenant struct {
	Name           string `json:"name"`
	ActivityStatus string `json:"activityStatus,omitempty"`
}

// AddTenants adds tenants to a multi-tenant class; tenants that already
// exist are left as they are.
func (c *Client) AddTenants(ctx context.Context, class string, tenants ...string) error {
	if len(tenants) == 0 {
		return nil
	}
	if err := checkName("class", class); err != nil {
		return fmt.Errorf("weaviate add tenants: %v", err)
	}
	have, err := c.Tenants(ctx, class)
	if err != nil {
		return fmt.Errorf("weaviate add tenants: %w", err)
	}
	var body []wireTenant
	for _, t := range tenants {
		if !slices.Contains(have, t) && !slices.ContainsFunc(body, func(w wireTenant) bool { return w.Name == t }) {
			body = append(body, wireTenant{Name: t})
		}
	}
	if len(body) == 0 {
		return nil
	}
	if err := c.do(ctx, http.MethodPost, c.endpoint("/v1/schema/"+url.PathEscape(class)+"/tenants"), body, nil); err != nil {
		return fmt.Errorf("weaviate add tenants to %s: %w", class, err)
	}
	return nil
}

// DeleteTenants deletes tenants and their objects from a multi-tenant
// class; tenants that do not exist are ignored by the server.
func (c *Client) DeleteTenants(ctx context.Context, class string, tenants ...string) error {
	if len(tenants) == 0 {
		return nil
	}
	if err := checkName("class", class); err != nil {
		return fmt.Errorf("weaviate delete tenants: %v", err)
	}
	if err := c.do(ctx, http.MethodDelete, c.endpoint("/v1/schema/"+url.PathEscape(class)+"/tenants"), tenants, nil); err != nil {
		return fmt.Errorf("weaviate delete tenants from %s: %w", class, err)
	}
	return nil
}

// Tenants lists the tenant names of a multi-tenant class, sorted.
func (c *Client) Tenants(ctx context.Context, class string) ([]string, error) {
	if err := checkName("class", class); err != nil {
		return nil, fmt.Errorf("weaviate tenants: %v", err)
	}
	var resp []wireTenant
	if err := c.do(ctx, http.MethodGet, c.endpoint("/v1/schema/"+url.PathEscape(class)+"/tenants"), nil, &resp); err != nil {
		return nil, fmt.Errorf("weaviate tenants of %s: %w", class, err)
	}
	names := make([]string, len(resp))
	for i, t := range resp {
		names[i] = t.Name
	}
	slices.Sort(names)
	return names, nil
}
