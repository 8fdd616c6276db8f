package mcpserver_test

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/internal/mcpserver"
	"github.com/ctx-dev/ctx/internal/secrets/secretstest"
)

// TestSecretsNeverReturned indexes the planted-secrets corpus and calls
// every tool of the full set with arguments aimed at the secrets (queries
// about tokens and passwords, the symbols that hold them, the files that
// hold them): no result, text or structured, holds a planted secret.
func TestSecretsNeverReturned(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	planted, err := secretstest.Write(root)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	index(t, cfg, root)
	srv, err := mcpserver.New(mcpserver.Options{Root: root, Config: cfg, Tools: mcpserver.ToolsAll})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cs := connect(t, srv)

	queries := []string{"github token", "GITHUB_TOKEN ghp_", "stripe secret key sk_live_", "database password",
		"private key BEGIN RSA PRIVATE KEY", "slack bot token xoxb", "aws secret_access_key AKIA", "openai api key sk-proj",
		"anthropic api key", "Authorization Bearer jwt eyJ", "deploy key", "postgres connection string password",
		"HEROKU_API_KEY", "NPM_TOKEN", "TWINE_PASSWORD pypi", "sendgrid SG.", "twilio api key", "gitlab token glpat",
		"slack webhook hooks.slack.com", "service account private_key", "SECRET_KEY", "define DB_PASSWORD", "api_token",
		"GH_PAT github_pat_"}
	symbols := []string{"GITHUB_TOKEN", "DATABASE_URL", "slackToken", "webhookURL", "DefaultDSN", "githubOAuth",
		"SECRET_KEY", "serviceToken", "API_KEY", "testKey", "STRIPE_KEY", "restricted", "stripe", "client", "Keys",
		"NotifyChannel", "authHeaders", "chargeCustomer"}
	files, _ := secretstest.Files()
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, tool := range tools.Tools {
		if tool.Name == "clear_index" || tool.Name == "index_codebase" {
			continue // they change the index, not what it shows
		}
		for _, args := range toolArgs(t, tool, queries, symbols, paths) {
			// The text and the decoded strings of the structured output,
			// so that the check sees them without JSON escapes.
			var structured any
			text, _ := call(t, cs, tool.Name, args, &structured)
			calls++
			out := text + flatten(structured)
			if leaks := secretstest.Leaks([]byte(out), planted); len(leaks) > 0 {
				t.Errorf("%s(%v) returns %d planted secrets, first the %s of %s", tool.Name, args, len(leaks), leaks[0].Kind, leaks[0].Path)
			}
		}
	}
	t.Logf("%d tools, %d calls, no planted secret returned", len(tools.Tools), calls)

	// index_status reports the masked secrets.
	var st mcpserver.IndexStatusOutput
	text := mustCall(t, cs, "index_status", map[string]any{}, &st)
	if st.Status == nil || st.Status.Redacted.Secrets == 0 || st.Status.Redacted.Files == 0 {
		t.Errorf("index_status redacted = %+v, want the masked secrets", st.Status)
	}
	if !strings.Contains(text, "secrets masked in file contents:") {
		t.Errorf("index_status text does not report the masked secrets:\n%s", text)
	}
	// And the code beside the secrets is still retrieved.
	text = mustCall(t, cs, "codebase_retrieval", map[string]any{"information_request": "charge a customer's card for an invoice"}, nil)
	if !strings.Contains(text, "async function chargeCustomer(customerId, invoice) {") {
		t.Errorf("codebase_retrieval does not show chargeCustomer:\n%s", text)
	}
}

// toolArgs builds the calls to make to a tool from its input schema: each
// query, symbol or path for the property that takes one, each value of an
// enum, and generous limits.
func toolArgs(t *testing.T, tool *mcp.Tool, queries, symbols, paths []string) []map[string]any {
	t.Helper()
	props, _ := schemaProps(t, tool) // limits_test.go
	base := map[string]any{}
	var vary string
	values := []string{""}
	var enumProp string
	enum := []any{nil}
	for name, p := range props {
		switch {
		case len(p.Enum) > 0:
			enumProp, enum = name, p.Enum
		case name == "query" || name == "information_request":
			vary, values = name, queries
		case name == "symbol":
			vary, values = name, symbols
		case name == "path":
			vary, values = name, paths
		case name == "technical_terms":
			base[name] = []string{"token", "password", "secret", "api_key"}
		case name == "include_code":
			base[name] = true
		case name == "glob":
			base[name] = "**"
		case name == "max_results" || name == "limit" || name == "top_k" || name == "max_files":
			base[name] = 50
		case name == "max_tokens":
			base[name] = 20000
		}
	}
	var out []map[string]any
	for _, v := range values {
		for _, ev := range enum {
			args := maps.Clone(base)
			if vary != "" {
				args[vary] = v
			}
			if enumProp != "" {
				args[enumProp] = ev
			}
			out = append(out, args)
		}
	}
	return out
}

// flatten joins every string of a decoded JSON value.
func flatten(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x + "\n")
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}
