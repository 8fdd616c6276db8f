package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/engine"
)

// prop adjusts one property of an inferred input schema.
type prop struct {
	enum     []any
	def      any
	min, max float64
}

// Limits on every tool's arguments ([checkArgs]): a client cannot make a
// tool buffer, analyze or echo unbounded input.
const (
	// MaxArgBytes caps each string argument, and each string in an array
	// argument, except the query arguments ([queryArgs]), whose length the
	// engine bounds (CTX_MAX_QUERY_BYTES: a longer query is searched by its
	// first 32 KiB, with a warning).
	MaxArgBytes = 4 << 10
	// MaxArgEntries caps each array argument.
	MaxArgEntries = 64
)

// queryArgs are the arguments that carry a query: issue-sized text is
// welcome there, and the engine cuts what is too long.
var queryArgs = map[string]bool{"information_request": true, "query": true}

// checkArgs returns an error naming the first argument of in (a tool's
// input struct) over its limit, and the limit.
func checkArgs(in any) error {
	v := reflect.ValueOf(in)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	for i := range v.NumField() {
		f, fv := v.Type().Field(i), v.Field(i)
		if f.Anonymous && fv.Kind() == reflect.Struct {
			if err := checkArgs(fv.Interface()); err != nil {
				return err
			}
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		switch fv.Kind() {
		case reflect.String:
			if n := fv.Len(); n > MaxArgBytes && !queryArgs[name] {
				return badArg("argument %s is %d bytes; the limit is %d bytes (4 KiB)", name, n, MaxArgBytes)
			}
		case reflect.Slice:
			if n := fv.Len(); n > MaxArgEntries {
				return badArg("argument %s has %d entries; the limit is %d entries", name, n, MaxArgEntries)
			}
			if fv.Type().Elem().Kind() != reflect.String {
				continue
			}
			for j := range fv.Len() {
				if n := fv.Index(j).Len(); n > MaxArgBytes {
					return badArg("argument %s[%d] is %d bytes; the limit is %d bytes (4 KiB) per entry", name, j, n, MaxArgBytes)
				}
			}
		}
	}
	return nil
}

// inputSchema infers the JSON schema of T (descriptions come from the
// jsonschema struct tags; fields with omitempty are optional) and adds
// enums, defaults and bounds the tags cannot carry, and the argument
// limits of [checkArgs] where a client may meet them (arrays and the
// query).
func inputSchema[T any](props map[string]prop) *jsonschema.Schema {
	sch, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err))
	}
	for name, ps := range sch.Properties {
		switch {
		case queryArgs[name]:
			ps.Description += "; at most 32 KiB is searched (a longer text is cut, with a warning)"
		case ps.Type == "array" || slices.Contains(ps.Types, "array"):
			ps.Description += fmt.Sprintf("; at most %d entries", MaxArgEntries)
		}
	}
	for name, p := range props {
		ps, ok := sch.Properties[name]
		if !ok {
			panic(fmt.Sprintf("mcpserver: schema of %T has no property %q", *new(T), name))
		}
		ps.Enum = p.enum
		if p.def != nil {
			b, _ := json.Marshal(p.def)
			ps.Default = b
		}
		if p.min != 0 || p.max != 0 {
			lo, hi := p.min, p.max
			ps.Minimum, ps.Maximum = &lo, &hi
		}
	}
	return sch
}

func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: new(false)}
}

// addTool registers a typed tool and remembers it for GET /tools, with
// its output schema inferred here (as the SDK would) so the listing shows
// it too. The output schema also admits the structured content of an
// isError result, {"error": {"code", "message", "fix"}} ([allowFailure]).
//
// Every call's arguments are held to the limits of [checkArgs] before h
// runs; one over its limit is an isError result naming it and the limit.
// Each call runs under the request deadline (limits.request_timeout),
// but for the tools of [untimedTools]; past it, a call that has nothing
// to answer fails with the timeout error. An error h returns becomes the
// isError result [errorResult] makes of it.
func addTool[In, Out any](s *Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	if t.OutputSchema == nil {
		sch, err := jsonschema.For[Out](nil)
		if err != nil {
			panic(fmt.Sprintf("mcpserver: output schema of %s: %v", t.Name, err))
		}
		t.OutputSchema = sch
	}
	sch, ok := t.OutputSchema.(*jsonschema.Schema)
	if !ok {
		panic(fmt.Sprintf("mcpserver: output schema of %s is a %T, want a *jsonschema.Schema", t.Name, t.OutputSchema))
	}
	t.OutputSchema = allowFailure(sch)
	timeout := s.opts.Config.RequestTimeout
	if untimedTools[t.Name] {
		timeout = 0
	}
	mcp.AddTool(s.mcp, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		if err := checkArgs(in); err != nil {
			var zero Out
			return nil, zero, &toolError{fmt.Errorf("%s: %w", t.Name, err)}
		}
		call := ctx
		if timeout > 0 {
			var cancel context.CancelFunc
			call, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		res, out, err := h(call, req, in)
		if err == nil {
			return res, out, nil
		}
		if _, wire := err.(*jsonrpc.Error); wire {
			return res, out, err // a protocol fault, as the SDK passes it on
		}
		if errors.Is(call.Err(), context.DeadlineExceeded) && ctx.Err() == nil && !errors.Is(err, engine.ErrTimeout) {
			err = fmt.Errorf("%w: %s did not finish within the request deadline (%s, limits.request_timeout): %v", engine.ErrTimeout, t.Name, timeout, err)
		}
		return res, out, &toolError{err}
	})
	s.tools = append(s.tools, t)
}

// untimedTools are the tools the request deadline does not bound, with
// the reason: context_answer waits for an LLM's answer, which its own
// timeout (CTX_LLM_TIMEOUT) bounds; its retrieval is bounded by the
// deadline in the engine.
var untimedTools = map[string]bool{"context_answer": true}

// toolError marks an error a tool's handler returned, as against one the
// SDK made of arguments it could not decode or validate.
type toolError struct{ err error }

func (e *toolError) Error() string { return e.err.Error() }
func (e *toolError) Unwrap() error { return e.err }

// toolFailure classifies the error of a failed tool call: an error a
// handler returned by the error table ([engine.Classify]); one the SDK
// made (arguments that do not decode or fit the input schema) is
// invalid_argument.
func toolFailure(err error) engine.Failure {
	var te *toolError
	if err != nil && errors.As(err, &te) {
		return engine.Classify(te.err)
	}
	f := engine.Failure{Code: engine.CodeInvalidArgument, Message: "the arguments do not fit the tool's input schema", Fix: "correct the arguments to fit the tool's input schema (tools/list)"}
	if err != nil {
		f.Message = err.Error()
	}
	return f
}

// errorResult makes r, an isError tool result, carry its error's failure
// (the one mapping of errors to tool results): the text content is the
// message, with the fix when the message does not name it, and the
// structured content is {"error": {"code", "message", "fix", ...}}, the
// object `ctx --json` prints for the same error.
func errorResult(r *mcp.CallToolResult, err error) {
	f := toolFailure(err)
	text := f.Message
	if f.Fix != "" && !strings.Contains(text, f.Fix) {
		text += "\nfix: " + f.Fix
	}
	r.Content = []mcp.Content{&mcp.TextContent{Text: text}}
	r.StructuredContent = failureContent{Error: f}
}

// failureContent is the structured content of an isError tool result.
type failureContent struct {
	Error engine.Failure `json:"error"`
}

// failures is the receiving middleware that gives every isError tool
// result, the SDK's own included, its code ([errorResult]).
func failures(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r.IsError {
			errorResult(r, r.GetError())
		}
		return res, err
	}
}

// failureSchema is the schema of [engine.Failure].
var failureSchema = sync.OnceValue(func() *jsonschema.Schema {
	sch, err := jsonschema.For[engine.Failure](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of engine.Failure: %v", err))
	}
	return sch
})

// allowFailure returns a tool's output schema widened to admit the
// structured content of its isError results ({"error": Failure}), which
// clients (the TypeScript SDK's among them) validate against it too: an
// optional "error" property, and the required properties required only
// when there is no "error". A property already named "error" may be
// either.
func allowFailure(sch *jsonschema.Schema) *jsonschema.Schema {
	if sch.Type != "object" || len(sch.AnyOf) > 0 {
		panic(fmt.Sprintf("mcpserver: output schema of type %q with anyOf %v: want a plain object", sch.Type, sch.AnyOf))
	}
	if sch.Properties == nil {
		sch.Properties = map[string]*jsonschema.Schema{}
	}
	if p, ok := sch.Properties["error"]; ok {
		sch.Properties["error"] = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{p, failureSchema()}}
	} else {
		sch.Properties["error"] = failureSchema()
	}
	if req := sch.Required; len(req) > 0 {
		sch.Required = nil
		sch.AnyOf = []*jsonschema.Schema{{Required: req}, {Required: []string{"error"}}}
	}
	return sch
}

// validGlob reports whether a doublestar pattern parses.
func validGlob(g string) bool { return doublestar.ValidatePattern(g) }

func (s *Server) addDefaultTools() {
	s.addRetrieval()
	s.addDefinition()
	s.addReferences()
	s.addSymbolGraph()
	s.addListFiles()
	s.addIndexStatus()
}

// DefinitionInput is the get_symbol_definition request.
type DefinitionInput struct {
	Symbol     string `json:"symbol" jsonschema:"the name to look up, bare or qualified: 'Shutdown', 'http.Server', '(*Server).Shutdown', 'pkg.module.func'"`
	HintPath   string `json:"hint_path,omitempty" jsonschema:"a file or directory where you saw the symbol used; definitions near it rank first"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"most definitions returned (default 5)"`
	RepoPath   string `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

// DefinitionOutput is the get_symbol_definition result.
type DefinitionOutput struct {
	Symbol      string              `json:"symbol"`
	Definitions []engine.Definition `json:"definitions" jsonschema:"best first, each with its code"`
	Method      string              `json:"method" jsonschema:"how the definitions were found"`
	ServerMS    float64             `json:"server_ms" jsonschema:"time in the server, milliseconds"`
}

func (s *Server) addDefinition() {
	addTool(s, &mcp.Tool{
		Name:  "get_symbol_definition",
		Title: "Symbol definition",
		Description: `Find where a function, method, type, class, constant or variable is defined, and return its code with path and line range.
Use it when you know a symbol's name and need its definition, signature or doc comment, instead of grepping for "func X" or "class X". Qualifiers narrow it down ('http.Server' or '(*Server).Shutdown'); hint_path prefers definitions near a file you are reading.
Example: {"symbol": "Server.Shutdown", "hint_path": "net/http/server.go"}`,
		InputSchema: inputSchema[DefinitionInput](map[string]prop{"max_results": {def: 5, min: 1, max: 50}}),
		Annotations: readOnly("Symbol definition"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in DefinitionInput) (*mcp.CallToolResult, DefinitionOutput, error) {
		start := time.Now()
		out := DefinitionOutput{Symbol: in.Symbol, Method: engine.LookupMethod}
		e, scope, err := s.repoScope(in.RepoPath)
		if err != nil {
			return nil, out, err
		}
		n := in.MaxResults
		if n <= 0 {
			n = 5
		}
		defs, err := e.Definitions(ctx, in.Symbol, in.HintPath, 500, true)
		if err != nil {
			return nil, out, s.explain(e, err)
		}
		defs = slices.DeleteFunc(defs, func(d engine.Definition) bool { return !inScope(scope, d.Path) })
		defs = defs[:min(n, len(defs))]
		if len(defs) == 0 {
			return nil, out, engine.Errorf(engine.ErrNotFound, "no definition of %q in the index of %s (searched defined names of functions, types, classes, constants and variables); check the spelling, try the bare name, or use codebase_retrieval", in.Symbol, e.Root())
		}
		out.Definitions = defs
		out.ServerMS = since(start)
		return textResult(renderDefinitions(out)), out, nil
	})
}

func renderDefinitions(out DefinitionOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %d definitions of %s (%s)\n\n", len(out.Definitions), out.Symbol, out.Method)
	for _, d := range out.Definitions {
		fmt.Fprintf(&b, "## %s:%d-%d · %s %s · %s · confidence %.2f", d.Path, d.StartLine, d.EndLine, d.Kind, d.Symbol, d.Resolution, d.Confidence)
		if d.Parts > 0 {
			fmt.Fprintf(&b, " · whole definition (%d indexed parts)", d.Parts)
		}
		if d.Stale {
			b.WriteString(" · STALE")
		}
		b.WriteString("\n")
		writeCode(&b, d.Language, d.Code)
		b.WriteString("\n")
	}
	return b.String()
}

// ReferencesInput is the find_references request.
type ReferencesInput struct {
	Symbol            string  `json:"symbol" jsonschema:"the name whose uses you want, bare or qualified (the bare name is matched as a whole word, case-sensitively; a qualified one such as (*Server).Shutdown keeps the uses of that definition only)"`
	Hint              string  `json:"hint,omitempty" jsonschema:"a file or directory near the definition you mean, to pick among same-named ones"`
	ExcludeDefinition bool    `json:"exclude_definition,omitempty" jsonschema:"leave out the lines that define the symbol"`
	MaxResults        int     `json:"max_results,omitempty" jsonschema:"most references returned (default 50)"`
	MinConfidence     float64 `json:"min_confidence,omitempty" jsonschema:"drop references less likely than this (0..1) to mean the symbol's definition in scope: 0.9 keeps mentions in its own file, its package and files that import it"`
	RepoPath          string  `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

// ReferencesOutput is the find_references result.
type ReferencesOutput struct {
	Symbol     string             `json:"symbol"`
	References []engine.Reference `json:"references" jsonschema:"ordered by path and line"`
	Truncated  bool               `json:"truncated" jsonschema:"max_results was reached; more references may exist"`
	Method     string             `json:"method"`
	ServerMS   float64            `json:"server_ms"`
}

func (s *Server) addReferences() {
	addTool(s, &mcp.Tool{
		Name:  "find_references",
		Title: "Find references",
		Description: `List every line that uses a symbol (calls, imports, type uses, mentions), with path, line, column, the line's text, the enclosing function and a kind (call, import, definition, reference).
Use it before changing or renaming a function or type, to see who depends on it, instead of grepping for the name.
Example: {"symbol": "ReadMIMEHeader", "exclude_definition": true}`,
		InputSchema: inputSchema[ReferencesInput](map[string]prop{"max_results": {def: 50, min: 1, max: 1000}}),
		Annotations: readOnly("Find references"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ReferencesInput) (*mcp.CallToolResult, ReferencesOutput, error) {
		return s.references(ctx, in, nil)
	})
}

func (s *Server) references(ctx context.Context, in ReferencesInput, kinds []string) (*mcp.CallToolResult, ReferencesOutput, error) {
	start := time.Now()
	out := ReferencesOutput{Symbol: in.Symbol, Method: engine.LookupMethod}
	e, scope, err := s.repoScope(in.RepoPath)
	if err != nil {
		return nil, out, err
	}
	n := in.MaxResults
	if n <= 0 {
		n = 50
	}
	refs, err := e.References(ctx, engine.ReferenceQuery{Symbol: in.Symbol, ExcludeDefinition: in.ExcludeDefinition, Kinds: kinds, Max: n + 1, Scope: scope, MinConfidence: in.MinConfidence, Hint: in.Hint})
	if err != nil {
		return nil, out, s.explain(e, err)
	}
	if len(refs) > n {
		refs, out.Truncated = refs[:n], true
	}
	out.References = refs
	if out.References == nil {
		out.References = []engine.Reference{}
	}
	out.ServerMS = since(start)
	return textResult(renderReferences(out, kinds)), out, nil
}

func renderReferences(out ReferencesOutput, kinds []string) string {
	var b strings.Builder
	what := "references to"
	if len(kinds) > 0 {
		what = strings.Join(kinds, "/") + " references to"
	}
	fmt.Fprintf(&b, "# %d %s %s (%s)\n", len(out.References), what, out.Symbol, out.Method)
	if len(out.References) == 0 {
		b.WriteString("\nNo line in the index uses this name as a whole word.\n")
	}
	for _, r := range out.References {
		fmt.Fprintf(&b, "%s:%d:%d [%s", r.Path, r.Line, r.Column, r.Kind)
		if r.Enclosing != "" {
			fmt.Fprintf(&b, " in %s", r.Enclosing)
		}
		fmt.Fprintf(&b, "] %s", r.Text)
		if r.Definition != "" && r.Kind != "definition" {
			fmt.Fprintf(&b, "  (-> %s, %.2f)", r.Definition, r.Confidence)
		}
		b.WriteString("\n")
	}
	if out.Truncated {
		b.WriteString("(truncated at max_results)\n")
	}
	return b.String()
}

// SymbolGraphInput is the symbol_graph request.
type SymbolGraphInput struct {
	Symbol    string `json:"symbol" jsonschema:"the function, type or module name"`
	QueryType string `json:"query_type" jsonschema:"callers (lines that call it), callees (functions its definition calls), definition (where it is defined), importers (import statements that name it), supertypes (what the type extends, implements or embeds) or subtypes (what extends, implements or embeds it)"`
	Limit     int    `json:"limit,omitempty" jsonschema:"most results (default 20)"`
	RepoPath  string `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

// SymbolGraphOutput is the symbol_graph result: definitions for
// query_type definition, callees for callees, type links for supertypes
// and subtypes, references otherwise.
type SymbolGraphOutput struct {
	Symbol      string              `json:"symbol"`
	QueryType   string              `json:"query_type"`
	Definitions []engine.Definition `json:"definitions,omitempty"`
	References  []engine.Reference  `json:"references,omitempty"`
	Callees     []engine.Callee     `json:"callees,omitempty"`
	Types       []engine.TypeLink   `json:"types,omitempty"`
	Truncated   bool                `json:"truncated"`
	Method      string              `json:"method"`
	ServerMS    float64             `json:"server_ms"`
}

func (s *Server) addSymbolGraph() {
	addTool(s, &mcp.Tool{
		Name:  "symbol_graph",
		Title: "Symbol graph",
		Description: `Answer a structural question about one symbol: who calls it (callers), what it calls (callees), where it is defined (definition), which files import it (importers), what a type extends or implements (supertypes) or what extends or implements it (subtypes).
Use it to trace impact and dependencies ("what calls parseConfig?", "which files import the auth module?") instead of grepping.
Example: {"symbol": "parseConfig", "query_type": "callers", "limit": 20}`,
		InputSchema: inputSchema[SymbolGraphInput](map[string]prop{
			"query_type": {enum: []any{"callers", "callees", "definition", "importers", "supertypes", "subtypes"}},
			"limit":      {def: 20, min: 1, max: 500},
		}),
		Annotations: readOnly("Symbol graph"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in SymbolGraphInput) (*mcp.CallToolResult, SymbolGraphOutput, error) {
		return s.symbolGraph(ctx, in)
	})
}

func (s *Server) symbolGraph(ctx context.Context, in SymbolGraphInput) (*mcp.CallToolResult, SymbolGraphOutput, error) {
	start := time.Now()
	out := SymbolGraphOutput{Symbol: in.Symbol, QueryType: in.QueryType, Method: engine.LookupMethod}
	limit := in.Limit
	if limit <= 0 {
		limit = 20
	}
	switch in.QueryType {
	case "definition":
		res, d, err := s.definitionsFor(ctx, in.Symbol, in.RepoPath, limit)
		if err != nil {
			return nil, out, err
		}
		out.Definitions = d
		out.ServerMS = since(start)
		return res, out, nil
	case "importers":
		if res, ok, err := s.graphImporters(ctx, in, limit, &out); err != nil || ok {
			out.ServerMS = since(start)
			return res, out, err
		}
		fallthrough
	case "callers":
		kind := map[string]string{"callers": "call", "importers": "import"}[in.QueryType]
		_, ro, err := s.references(ctx, ReferencesInput{Symbol: in.Symbol, MaxResults: limit, ExcludeDefinition: true, RepoPath: in.RepoPath}, []string{kind})
		if err != nil {
			return nil, out, err
		}
		out.References, out.Truncated = ro.References, ro.Truncated
		out.ServerMS = since(start)
		return textResult(renderReferences(ro, []string{kind})), out, nil
	case "callees":
		e, err := s.repoEngine(in.RepoPath)
		if err != nil {
			return nil, out, err
		}
		def, calls, err := e.Callees(ctx, in.Symbol, "", limit)
		if err != nil {
			return nil, out, s.explain(e, err)
		}
		out.Callees, out.Definitions = calls, []engine.Definition{*def}
		out.Method = engine.CalleesMethod
		var b strings.Builder
		fmt.Fprintf(&b, "# %s (%s:%d, %s) calls %d functions (%s)\n", def.Symbol, def.Path, def.StartLine, def.Resolution, len(calls), out.Method)
		for _, c := range calls {
			var to string
			switch {
			case c.Target != nil:
				to = fmt.Sprintf("-> %s %s, confidence %.2f", c.Definition, c.Target.Symbol, c.Confidence)
			case c.Reason != "":
				to = c.Resolution + ": " + c.Reason
			default:
				to = c.Resolution
			}
			fmt.Fprintf(&b, "L%d %s (%s)\n", c.Line, c.Name, to)
		}
		out.ServerMS = since(start)
		return textResult(b.String()), out, nil
	case "supertypes", "subtypes":
		e, err := s.repoEngine(in.RepoPath)
		if err != nil {
			return nil, out, err
		}
		h, err := e.Hierarchy(ctx, in.Symbol, limit)
		if err != nil {
			return nil, out, s.explain(e, err)
		}
		out.Types, out.Method = h.Supertypes, engine.HierarchyMethod
		if in.QueryType == "subtypes" {
			out.Types = h.Subtypes
		}
		var b strings.Builder
		fmt.Fprintf(&b, "# %d %s of %s (%s)\n", len(out.Types), in.QueryType, in.Symbol, out.Method)
		if d := h.Definition; d != nil {
			out.Definitions = []engine.Definition{*d}
			fmt.Fprintf(&b, "resolved to %s %s at %s:%d (%s, confidence %.2f)\n", d.Kind, d.Symbol, d.Path, d.StartLine, d.Resolution, d.Confidence)
			for _, o := range h.Others {
				fmt.Fprintf(&b, "also fits: %s %s at %s:%d (qualify the name to choose)\n", o.Kind, o.Symbol, o.Path, o.StartLine)
			}
		}
		for _, l := range out.Types {
			fmt.Fprintf(&b, "%s:%d %s %s %s\n", l.Path, l.Line, l.Type, l.Relation, l.Base)
		}
		out.ServerMS = since(start)
		return textResult(b.String()), out, nil
	}
	return nil, out, badArg("query_type %q: want callers, callees, definition, importers, supertypes or subtypes", in.QueryType)
}

// graphImporters answers importers from the stored import graph (Go,
// Python, JavaScript, TypeScript). ok is false when the graph holds no
// import naming the symbol, so the caller falls back to text matches.
func (s *Server) graphImporters(ctx context.Context, in SymbolGraphInput, limit int, out *SymbolGraphOutput) (*mcp.CallToolResult, bool, error) {
	e, scope, err := s.repoScope(in.RepoPath)
	if err != nil {
		return nil, false, err
	}
	deps, err := e.Importers(ctx, in.Symbol, scope, limit+1)
	if err != nil {
		return nil, false, s.explain(e, err)
	}
	if len(deps) == 0 {
		return nil, false, nil
	}
	if len(deps) > limit {
		deps, out.Truncated = deps[:limit], true
	}
	out.Method = "import graph: import statements parsed at index time and resolved to repository files"
	var b strings.Builder
	fmt.Fprintf(&b, "# %d import statements naming %s (%s)\n", len(deps), in.Symbol, out.Method)
	for _, d := range deps {
		out.References = append(out.References, engine.Reference{Path: d.Path, PathBytes: d.PathBytes, Line: d.Line, Text: d.Spec, Kind: "import", Confidence: 1})
		fmt.Fprintf(&b, "%s:%d imports %s", d.Path, d.Line, d.Spec)
		if d.Target != "" {
			fmt.Fprintf(&b, " (-> %s)", d.Target)
		}
		b.WriteString("\n")
	}
	if out.Truncated {
		b.WriteString("(truncated at limit)\n")
	}
	return textResult(b.String()), true, nil
}

func (s *Server) definitionsFor(ctx context.Context, symbol, repoPath string, n int) (*mcp.CallToolResult, []engine.Definition, error) {
	e, err := s.repoEngine(repoPath)
	if err != nil {
		return nil, nil, err
	}
	defs, err := e.Definitions(ctx, symbol, "", n, true)
	if err != nil {
		return nil, nil, s.explain(e, err)
	}
	if len(defs) == 0 {
		return nil, nil, engine.Errorf(engine.ErrNotFound, "no definition of %q in the index of %s; check the spelling or use codebase_retrieval", symbol, e.Root())
	}
	return textResult(renderDefinitions(DefinitionOutput{Symbol: symbol, Definitions: defs, Method: engine.LookupMethod})), defs, nil
}

// ListFilesInput is the list_files request.
type ListFilesInput struct {
	Glob       string   `json:"glob,omitempty" jsonschema:"doublestar glob relative to the repository root, e.g. 'src/**/*.ts'; a glob without '/' matches base names anywhere ('*.go'); empty lists all"`
	Language   []string `json:"language,omitempty" jsonschema:"keep only these languages"`
	MaxResults int      `json:"max_results,omitempty" jsonschema:"most files returned (default 200)"`
	RepoPath   string   `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

// ListFilesOutput is the list_files result.
type ListFilesOutput struct {
	Files     []engine.FileEntry `json:"files" jsonschema:"sorted by path"`
	Total     int                `json:"total" jsonschema:"files matching in all"`
	Truncated bool               `json:"truncated"`
	ServerMS  float64            `json:"server_ms"`
}

func (s *Server) addListFiles() {
	addTool(s, &mcp.Tool{
		Name:  "list_files",
		Title: "List indexed files",
		Description: `List the repository's indexed files (path, language, lines, bytes) matching a glob and languages. Secrets, generated, vendored, binary and ignored files are not indexed and not listed.
Use it to see a project's layout or find files by name pattern, instead of ls/find.
Example: {"glob": "net/http/**/*_test.go", "max_results": 50}`,
		InputSchema: inputSchema[ListFilesInput](map[string]prop{"max_results": {def: 200, min: 1, max: 10000}}),
		Annotations: readOnly("List indexed files"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ListFilesInput) (*mcp.CallToolResult, ListFilesOutput, error) {
		start := time.Now()
		var out ListFilesOutput
		e, scope, err := s.repoScope(in.RepoPath)
		if err != nil {
			return nil, out, err
		}
		n := in.MaxResults
		if n <= 0 {
			n = 200
		}
		glob := in.Glob
		if scope != "" {
			var g []string
			if glob != "" {
				g = []string{glob}
			}
			glob = scopeGlobs(scope, g)[0]
		}
		files, total, err := e.Files(ctx, glob, in.Language, n)
		if err != nil {
			return nil, out, s.explain(e, err)
		}
		out.Files, out.Total, out.Truncated = files, total, total > len(files)
		if out.Files == nil {
			out.Files = []engine.FileEntry{}
		}
		out.ServerMS = since(start)
		var b strings.Builder
		fmt.Fprintf(&b, "# %d of %d files\n", len(files), total)
		for _, f := range files {
			fmt.Fprintf(&b, "%s (%s, %d lines)\n", f.Path, f.Language, f.Lines)
		}
		return textResult(b.String()), out, nil
	})
}

// IndexStatusInput is the index_status request.
type IndexStatusInput struct {
	RepoPath string `json:"repo_path,omitempty" jsonschema:"repository, absolute or relative to the server root (default: the server root)"`
}

// Health is one problem with the index and the command that fixes it.
type Health struct {
	Problem string `json:"problem"`
	Fix     string `json:"fix" jsonschema:"the command (or tool call) that fixes it"`
}

// IndexStatusOutput is the index_status result.
type IndexStatusOutput struct {
	Indexed bool           `json:"indexed"`
	Status  *engine.Status `json:"status,omitempty" jsonschema:"counts, identity, size and freshness of the index"`
	// Fresh is true when no indexed file changed on disk since the last
	// run and no file was added or deleted.
	Fresh    bool            `json:"fresh"`
	Indexing *IndexingStatus `json:"indexing,omitempty" jsonschema:"the background index run this server started, if any"`
	Health   []Health        `json:"health" jsonschema:"problems found, each with its fix; empty when healthy"`
	ServerMS float64         `json:"server_ms"`
}

func (s *Server) addIndexStatus() {
	addTool(s, &mcp.Tool{
		Name:  "index_status",
		Title: "Index status",
		Description: `Report the repository index: files, chunks and embeddings, languages, skipped files by reason, last index time and generation, the embedding model, whether files changed since, a background index run's progress, and health warnings each with the command that fixes it.
Use it when results look wrong, missing or stale, or before relying on ctx in a repository you have not used it in.
Example: {}`,
		InputSchema: inputSchema[IndexStatusInput](nil),
		Annotations: readOnly("Index status"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in IndexStatusInput) (*mcp.CallToolResult, IndexStatusOutput, error) {
		start := time.Now()
		out := IndexStatusOutput{Health: []Health{}}
		e, err := s.repoEngine(in.RepoPath)
		if err != nil {
			return nil, out, err
		}
		if j := s.job(e.Root()); j != nil {
			st := j.status()
			out.Indexing = &st
		}
		st, err := e.Status(ctx)
		switch {
		case err == nil:
			out.Indexed, out.Status = true, st
			out.Health = s.health(e.Root(), st, out.Indexing)
			out.Fresh = st.Changed+st.Added+st.Deleted == 0 && !st.Stale && !st.Incomplete
		case isNotIndexed(err):
			problem, fix := "not indexed", s.reindexFix(e.Root())
			switch {
			case s.refusal(e.Root()) != nil:
				problem, fix = "not indexed, and ctx does not index it on its own", s.refusal(e.Root()).Error()
			case out.Indexing != nil && (out.Indexing.Phase == "scanning" || out.Indexing.Phase == "indexing"):
				fix = "wait: this server is indexing it now (see indexing)"
			}
			out.Health = append(out.Health, Health{Problem: problem, Fix: fix})
		default:
			return nil, out, s.explain(e, err)
		}
		out.ServerMS = since(start)
		return textResult(renderStatus(e.Root(), out)), out, nil
	})
}

// health lists what is wrong with an index and how to fix it.
func (s *Server) health(root string, st *engine.Status, job *IndexingStatus) []Health {
	out := []Health{}
	reindex := s.reindexFix(root)
	if st.Incomplete {
		problem := "the last index run did not finish: files it had not reached answer from their earlier state"
		if st.StoredIdentity == "" {
			problem = "the first index run did not finish"
		}
		out = append(out, Health{Problem: problem, Fix: reindex})
	}
	if st.Stale {
		out = append(out, Health{Problem: fmt.Sprintf("built by another ctx build or embedding model (stored identity %s, this build %s); searches fail until it is rebuilt", st.StoredIdentity, st.Identity.Hash), Fix: reindex})
	}
	if n := st.Changed + st.Added + st.Deleted; n > 0 {
		out = append(out, Health{Problem: fmt.Sprintf("%d files changed, %d added and %d deleted since the last index run; results may be out of date", st.Changed, st.Added, st.Deleted), Fix: reindex})
	}
	if sm := st.SkippedMost; sm != nil {
		out = append(out, Health{Problem: "most files are not indexed: " + sm.Problem(), Fix: sm.Fix()})
	}
	if st.Chunks == 0 && !st.Incomplete {
		out = append(out, Health{Problem: "the index holds no code: nothing was indexable (see skips)", Fix: "check the repository path, .gitignore and CTX_EXCLUDE"})
	}
	if st.VectorsLost != "" {
		out = append(out, Health{Problem: st.VectorsLost + "; semantic search is off", Fix: reindex})
	}
	if st.Identity.Model != "none" && st.Vectors == 0 && st.Chunks > 0 {
		out = append(out, Health{Problem: "no embeddings stored: only lexical search works", Fix: fmt.Sprintf("ctx index --rebuild --repo %s", root)})
	}
	if w := st.Watch; w != nil && w.Mode == "events" && w.Overflows > 0 {
		out = append(out, Health{Problem: fmt.Sprintf("the watcher lost file events %d times (%s); each time it compared the whole tree again", w.Overflows, w.Reason),
			Fix: "nothing to do if rare; if frequent, raise fs.inotify.max_queued_events (sudo sysctl fs.inotify.max_queued_events=65536)"})
	}
	if w := st.Watch; w != nil && w.Mode != "events" {
		out = append(out, Health{Problem: "the watcher cannot use file events and compares the whole tree every few seconds instead: " + w.Reason,
			Fix: "raise the limit: sudo sysctl fs.inotify.max_user_watches=524288 (and fs.inotify.max_user_instances), then restart the server"})
	}
	if job != nil && job.Phase == "failed" {
		out = append(out, Health{Problem: "the last background index run failed: " + job.Error, Fix: reindex})
	}
	return out
}

func renderStatus(root string, out IndexStatusOutput) string {
	var b strings.Builder
	if !out.Indexed {
		fmt.Fprintf(&b, "%s is not indexed.\n", root)
	} else {
		st := out.Status
		fmt.Fprintf(&b, "root: %s\nindex: %s (%d bytes; %d bytes of indexed source)\nfiles: %d, chunks: %d, embeddings: %d\nsearch: %s\nlast indexed: %s (generation %d)\nfresh: %v\n",
			st.Root, st.IndexPath, st.IndexBytes, st.SourceBytes, st.Files, st.Chunks, st.Vectors, st.Semantic, st.LastIndexed.Format(time.RFC3339), st.Generation, out.Fresh)
		if len(st.Skips) > 0 {
			b.WriteString("skipped:")
			for _, k := range sortedKeys(st.Skips) {
				fmt.Fprintf(&b, " %s %d", k, st.Skips[k])
			}
			b.WriteString("\n")
		}
		if r := st.Redacted; r.Secrets > 0 {
			fmt.Fprintf(&b, "secrets masked in file contents: %d in %d files (see status.redacted)\n", r.Secrets, r.Files)
		}
		if c := st.QueryCache; c != nil {
			fmt.Fprintf(&b, "query cache: %d hits, %d misses, %d of %d entries\n", c.Hits, c.Misses, c.Entries, c.Size)
		}
		if w := st.Watch; w != nil {
			fmt.Fprintf(&b, "watching: %s (pid %d since %s), %d runs, %d paths pending\n", w.Mode, w.PID, w.Since.Format(time.RFC3339), w.Batches, w.Pending)
		} else {
			b.WriteString("watching: no (answers check file times; run ctx watch or serve without --no-watch to keep the index fresh)\n")
		}
	}
	if j := out.Indexing; j != nil {
		fmt.Fprintf(&b, "background index run: %s, %d/%d files (%.0f%%)", j.Phase, j.FilesDone, j.FilesTotal, j.Percent)
		if j.Error != "" {
			fmt.Fprintf(&b, ", error: %s", j.Error)
		}
		b.WriteString("\n")
	}
	if len(out.Health) == 0 {
		b.WriteString("health: ok\n")
	}
	for _, h := range out.Health {
		fmt.Fprintf(&b, "problem: %s\n  fix: %s\n", h.Problem, h.Fix)
	}
	return b.String()
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func isNotIndexed(err error) bool { return errors.Is(err, engine.ErrNotIndexed) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
