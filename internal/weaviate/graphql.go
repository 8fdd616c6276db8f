package weaviate

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// GraphQLError is the "errors" list of a GraphQL answer (which Weaviate
// sends with HTTP 200).
type GraphQLError struct {
	Messages []string
}

func (e *GraphQLError) Error() string {
	return "graphql: " + strings.Join(e.Messages, "; ")
}

// BM25 is a keyword search over text properties.
type BM25 struct {
	Query string
	// Properties restricts and weights the searched properties:
	// "name^3" counts name three times; nil searches all text
	// properties with weight 1.
	Properties []string
	// And requires every query token to match (searchOperator And)
	// instead of any of them.
	And bool
}

// NearVector is a vector search by the class's distance metric.
type NearVector struct {
	Vector []float32
}

// Query is a GraphQL Get.
type Query struct {
	Class, Tenant string
	Fields        []string // properties to return
	Where         *Filter
	BM25          *BM25
	NearVector    *NearVector
	Limit         int // 0 means the server default (QUERY_DEFAULTS_LIMIT, 10)
	WithVector    bool
}

// Hit is one object a [Query] found.
type Hit struct {
	ID    string
	Props map[string]json.RawMessage
	// Score is the BM25 score (Weaviate sends it as a string).
	Score float64
	// Distance is the vector distance for a nearVector query.
	Distance float64
	// Vector is the object's vector when [Query.WithVector] is set.
	Vector []float32
}

// graphql posts a GraphQL query and decodes its data into out (a
// pointer) in the same pass that reads the answer; a GraphQL error list
// becomes a *[GraphQLError].
func (c *Client) graphql(ctx context.Context, query string, out any) error {
	resp := struct {
		Data   any `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}{Data: out}
	if err := c.do(ctx, http.MethodPost, c.endpoint("/v1/graphql"), map[string]string{"query": query}, &resp); err != nil {
		return err
	}
	if len(resp.Errors) > 0 {
		e := &GraphQLError{}
		for _, m := range resp.Errors {
			e.Messages = append(e.Messages, m.Message)
		}
		return e
	}
	// A null data field sets resp.Data to nil; an absent one leaves out
	// unfilled, which the zero answer stands for.
	if resp.Data == nil {
		return fmt.Errorf("graphql answer has no data")
	}
	return nil
}

// searchKind names what a Get searches by, for a log record: "bm25",
// "nearVector", "where" (a filter alone) or "all".
func searchKind(q Query) string {
	switch {
	case q.BM25 != nil:
		return "bm25"
	case q.NearVector != nil:
		return "nearVector"
	case q.Where != nil:
		return "where"
	}
	return "all"
}

// replicatedClass reports whether class has a replication factor above
// 1, reading its schema on first use.
func (c *Client) replicatedClass(ctx context.Context, class string) (bool, error) {
	c.mu.Lock()
	r, ok := c.replicated[class]
	c.mu.Unlock()
	if ok {
		return r, nil
	}
	cl, err := c.Class(ctx, class)
	if err != nil || cl == nil {
		return false, err
	}
	return cl.Replicas > 1, nil
}

func checkConsistency(level string) error {
	switch level {
	case "", ConsistencyOne, ConsistencyQuorum, ConsistencyAll:
		return nil
	}
	return fmt.Errorf("invalid consistency level %q", level)
}

// buildGet returns the GraphQL text of q; consistency is "" or a checked
// level to pass as consistencyLevel.
func buildGet(q Query, consistency string) (string, error) {
	if err := checkName("class", q.Class); err != nil {
		return "", err
	}
	b := []byte("{Get{")
	b = append(b, q.Class...)
	var args []byte
	arg := func(name string) {
		if len(args) > 0 {
			args = append(args, ',')
		}
		args = append(args, name...)
		args = append(args, ':')
	}
	if q.Tenant != "" {
		arg("tenant")
		args = appendQuoted(args, q.Tenant)
	}
	if q.Limit > 0 {
		arg("limit")
		args = strconv.AppendInt(args, int64(q.Limit), 10)
	}
	if q.Where != nil {
		arg("where")
		var err error
		if args, err = q.Where.graphql(args); err != nil {
			return "", err
		}
	}
	if q.BM25 != nil {
		arg("bm25")
		args = append(args, "{query:"...)
		args = appendQuoted(args, q.BM25.Query)
		if q.BM25.Properties != nil {
			args = append(args, ",properties:"...)
			args = appendStrings(args, q.BM25.Properties)
		}
		if q.BM25.And {
			args = append(args, ",searchOperator:{operator:And}"...)
		}
		args = append(args, '}')
	}
	if q.NearVector != nil {
		arg("nearVector")
		args = append(args, "{vector:"...)
		var err error
		if args, err = appendVector(args, q.NearVector.Vector); err != nil {
			return "", err
		}
		args = append(args, '}')
	}
	if consistency != "" {
		arg("consistencyLevel")
		args = append(args, consistency...)
	}
	if len(args) > 0 {
		b = append(b, '(')
		b = append(b, args...)
		b = append(b, ')')
	}
	b = append(b, '{')
	for _, f := range q.Fields {
		if err := checkName("property", f); err != nil {
			return "", err
		}
		b = append(b, f...)
		b = append(b, ' ')
	}
	b = append(b, "_additional{id"...)
	if q.BM25 != nil {
		b = append(b, " score"...)
	}
	if q.NearVector != nil {
		b = append(b, " distance"...)
	}
	if q.WithVector {
		b = append(b, " vector"...)
	}
	b = append(b, "}}}}"...)
	return string(b), nil
}

// Get runs a GraphQL Get and returns its hits in the server's order (best
// first for BM25 and nearVector). When [Client.ConsistencyLevel] is set
// and the class is replicated, it is passed as consistencyLevel.
func (c *Client) Get(ctx context.Context, q Query) ([]Hit, error) {
	rows, err := GetAs[map[string]json.RawMessage](ctx, c, q)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, len(rows))
	for i, row := range rows {
		var add Additional
		if raw, ok := row["_additional"]; ok {
			if err := json.Unmarshal(raw, &add); err != nil {
				return nil, fmt.Errorf("weaviate get %s: decoding _additional: %v", q.Class, err)
			}
			delete(row, "_additional")
		}
		hits[i] = Hit{ID: add.ID, Props: row, Score: float64(add.Score), Distance: add.Distance, Vector: add.Vector}
	}
	return hits, nil
}

// Additional is a hit's _additional field, for a row type of [GetAs]:
// the object's UUID, its BM25 score (with [Query].BM25), its vector
// distance (with [Query].NearVector) and its vector (with
// [Query].WithVector).
type Additional struct {
	ID       string    `json:"id"`
	Score    Score     `json:"score"`
	Distance float64   `json:"distance"`
	Vector   []float32 `json:"vector"`
}

// Score is a BM25 score, which Weaviate sends as a string ("1.2345"); a
// number is accepted too, and absent, null or "" is 0.
type Score float64

// UnmarshalJSON reads a score sent as a string or a number.
func (s *Score) UnmarshalJSON(b []byte) error {
	v, err := parseScore(b)
	*s = Score(v)
	return err
}

// GetAs runs q as [Client.Get] does and decodes each hit straight into a
// T: a struct whose json tags name q's Fields, with a field of type
// [Additional] tagged "_additional" (or a map). Rows that only a few
// properties describe decode without a map per hit.
func GetAs[T any](ctx context.Context, c *Client, q Query) ([]T, error) {
	if err := checkConsistency(c.ConsistencyLevel); err != nil {
		return nil, fmt.Errorf("weaviate get %s: %v", q.Class, err)
	}
	consistency := ""
	if c.ConsistencyLevel != "" && nameRE().MatchString(q.Class) {
		replicated, err := c.replicatedClass(ctx, q.Class)
		if err != nil {
			return nil, fmt.Errorf("weaviate get %s: %w", q.Class, err)
		}
		if replicated {
			consistency = c.ConsistencyLevel
		}
	}
	text, err := buildGet(q, consistency)
	if err != nil {
		return nil, fmt.Errorf("weaviate get %s: %v", q.Class, err)
	}
	var data struct {
		Get map[string][]T `json:"Get"`
	}
	if c.Logger != nil && c.Logger.Enabled(ctx, slog.LevelDebug) {
		start := time.Now()
		defer func() {
			c.Logger.LogAttrs(ctx, slog.LevelDebug, "weaviate get", slog.String("class", q.Class), slog.String("search", searchKind(q)),
				slog.Int("limit", q.Limit), slog.Int("hits", len(data.Get[q.Class])), slog.Duration("dur", time.Since(start)))
		}()
	}
	if err := c.graphql(ctx, text, &data); err != nil {
		return nil, fmt.Errorf("weaviate get %s: %w", q.Class, err)
	}
	return data.Get[q.Class], nil
}

// parseScore reads _additional.score, which Weaviate sends as a string
// ("1.2345"), accepting a number too; absent or empty is 0.
func parseScore(raw json.RawMessage) (float64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, fmt.Errorf("decoding score: %v", err)
	}
	switch v := v.(type) {
	case float64:
		return v, nil
	case string:
		if v == "" {
			return 0, nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("decoding score %q: %v", v, err)
		}
		return f, nil
	}
	return 0, fmt.Errorf("decoding score: unexpected %s", raw)
}

// buildAggregate appends one aliased Aggregate count of class to b:
// alias:Class(tenant:"t",where:{...}){meta{count}}.
func buildAggregate(b []byte, alias, class, tenant string, where *Filter) ([]byte, error) {
	if alias != "" {
		b = append(b, alias...)
		b = append(b, ':')
	}
	b = append(b, class...)
	var args []byte
	if tenant != "" {
		args = append(args, "tenant:"...)
		args = appendQuoted(args, tenant)
	}
	if where != nil {
		if len(args) > 0 {
			args = append(args, ',')
		}
		args = append(args, "where:"...)
		var err error
		if args, err = where.graphql(args); err != nil {
			return nil, err
		}
	}
	if len(args) > 0 {
		b = append(b, '(')
		b = append(b, args...)
		b = append(b, ')')
	}
	return append(b, "{meta{count}}"...), nil
}

type aggregateRows []struct {
	Meta struct {
		Count int `json:"count"`
	} `json:"meta"`
}

func (r aggregateRows) count() int {
	if len(r) == 0 {
		return 0
	}
	return r[0].Meta.Count
}

// Count returns how many objects of class (and tenant) match where (nil
// for all), with a GraphQL Aggregate meta count.
func (c *Client) Count(ctx context.Context, class, tenant string, where *Filter) (int, error) {
	counts, err := c.countAliased(ctx, class, tenant, where, nil)
	if err != nil {
		return 0, fmt.Errorf("weaviate count %s: %w", class, err)
	}
	return counts[0], nil
}

// CountEach returns, for each filter of wheres, how many objects of class
// (and tenant) match it, in one GraphQL request whose Aggregate fields are
// aliased c0, c1, ... (Weaviate 1.35 answers each alias separately).
func (c *Client) CountEach(ctx context.Context, class, tenant string, wheres []Filter) ([]int, error) {
	if len(wheres) == 0 {
		return []int{}, nil
	}
	counts, err := c.countAliased(ctx, class, tenant, nil, wheres)
	if err != nil {
		return nil, fmt.Errorf("weaviate count each %s: %w", class, err)
	}
	return counts, nil
}

// countAliased runs one Aggregate request: unaliased with where when
// wheres is nil, else one alias per filter of wheres.
func (c *Client) countAliased(ctx context.Context, class, tenant string, where *Filter, wheres []Filter) ([]int, error) {
	if err := checkName("class", class); err != nil {
		return nil, err
	}
	b := []byte("{Aggregate{")
	var err error
	if wheres == nil {
		if b, err = buildAggregate(b, "", class, tenant, where); err != nil {
			return nil, err
		}
	}
	for i := range wheres {
		if i > 0 {
			b = append(b, ' ')
		}
		if b, err = buildAggregate(b, "c"+strconv.Itoa(i), class, tenant, &wheres[i]); err != nil {
			return nil, err
		}
	}
	b = append(b, "}}"...)
	var data struct {
		Aggregate map[string]aggregateRows `json:"Aggregate"`
	}
	if err := c.graphql(ctx, string(b), &data); err != nil {
		return nil, err
	}
	if wheres == nil {
		return []int{data.Aggregate[class].count()}, nil
	}
	counts := make([]int, len(wheres))
	for i := range wheres {
		rows, ok := data.Aggregate["c"+strconv.Itoa(i)]
		if !ok {
			return nil, fmt.Errorf("graphql answer lacks alias c%d", i)
		}
		counts[i] = rows.count()
	}
	return counts, nil
}
