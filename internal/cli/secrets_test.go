package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/secrets/secretstest"
)

// ctxRun runs ctx in-process on root (see run) and returns stdout,
// stderr and the exit code.
func ctxRun(t *testing.T, root, cache string, args ...string) (string, string, int) {
	t.Helper()
	return run(t, "", append([]string{"--repo", root, "--cache-dir", cache}, args...)...)
}

// TestSecretsNeverShown indexes the planted-secrets corpus and runs every
// command that prints code, names or status with queries aimed at the
// secrets: no output holds one, while the code beside them is found.
func TestSecretsNeverShown(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	cache := t.TempDir()
	planted, err := secretstest.Write(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := ctxRun(t, root, cache, "index"); code != 0 {
		t.Fatalf("ctx index: exit %d: %s", code, stderr)
	}

	var calls [][]string
	queries := []string{"github token", "GITHUB_TOKEN", "stripe secret key", "sk_live", "password",
		"database password", "private key", "BEGIN RSA PRIVATE KEY", "slack token xoxb", "aws secret access key",
		"AKIA access key id", "api key", "openai api key", "anthropic", "bearer jwt authorization",
		"deploy key", "DATABASE_URL postgres", "HEROKU_API_KEY", "NPM_TOKEN", "TWINE_PASSWORD pypi",
		"sendgrid", "twilio", "gitlab token", "webhook url", "connection string", "service account private_key",
		"SECRET_KEY", "wp DB_PASSWORD define", "api_token", "GH_PAT"}
	for _, p := range planted {
		// The secret itself, and its first 24 bytes, as queries.
		queries = append(queries, p.Value[:min(len(p.Value), 24)])
		if !strings.Contains(p.Value, "\n") && len(p.Value) < 200 {
			queries = append(queries, p.Value)
		}
	}
	for _, q := range queries {
		calls = append(calls,
			[]string{"find", "--full", "--json", "--limit", "50", q},
			[]string{"find", "--full", "--limit", "20", q})
	}
	for _, sym := range []string{"GITHUB_TOKEN", "DATABASE_URL", "slackToken", "webhookURL", "DefaultDSN",
		"githubOAuth", "SECRET_KEY", "serviceToken", "API_KEY", "testKey", "STRIPE_KEY", "restricted",
		"stripe", "client", "Keys", "Config", "NotifyChannel", "authHeaders"} {
		calls = append(calls,
			[]string{"def", "--full", "--json", sym}, []string{"def", "--full", sym},
			[]string{"refs", "--json", sym}, []string{"refs", sym},
			[]string{"callees", "--json", sym}, []string{"hierarchy", "--json", sym})
	}
	files, _ := secretstest.Files()
	for name, data := range files {
		calls = append(calls, []string{"deps", "--json", name}, []string{"symbols", "--json", name})
		for i := range bytes.Count(data, []byte("\n")) + 1 {
			calls = append(calls, []string{"chunk", "--json", name + ":" + strconv.Itoa(i+1)})
		}
	}
	calls = append(calls, []string{"symbols", "--json"}, []string{"symbols"}, []string{"status", "--json"}, []string{"status"})

	var all bytes.Buffer
	for _, args := range calls {
		stdout, stderr, _ := ctxRun(t, root, cache, args...)
		if args[0] == "find" && args[2] == "--json" {
			stdout = withoutQuery(t, stdout)
		}
		all.WriteString(stdout + stderr)
		if leaks := secretstest.Leaks([]byte(stdout+stderr), planted); len(leaks) > 0 {
			t.Errorf("ctx %s shows %d planted secrets, first the %s of %s:\n%s", strings.Join(args, " "), len(leaks), leaks[0].Kind, leaks[0].Path, stdout)
		}
	}
	t.Logf("%d commands, %d bytes of output, no planted secret in it", len(calls), all.Len())

	// The code beside the secrets is still found and shown.
	for q, want := range map[string]string{
		"chargeCustomer":     "async function chargeCustomer(customerId, invoice) {",
		"load_settings":      "def load_settings(env=os.environ):",
		"NotifyChannel":      "func NotifyChannel(c *http.Client, msg string) error {",
		"post_daily_summary": "client.chat_postMessage(channel=channel, text=summary)",
		"ReplicaDSN":         `return fmt.Sprintf("postgres://reporting@%s:5432/billing", host)`,
	} {
		stdout, _, _ := ctxRun(t, root, cache, "find", "--full", "--json", "--limit", "5", q)
		if !strings.Contains(stdout, strings.ReplaceAll(want, `"`, `\"`)) {
			t.Errorf("ctx find --full %s does not show %q:\n%s", q, want, stdout)
		}
	}

	// status reports what was masked.
	stdout, _, _ := ctxRun(t, root, cache, "status", "--json")
	var st struct {
		Redacted struct {
			Secrets int `json:"secrets"`
			Files   int `json:"files"`
			List    []struct {
				Path  string   `json:"path"`
				Count int      `json:"count"`
				Rules []string `json:"rules"`
			} `json:"list"`
		} `json:"redacted"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, p := range planted {
		paths[p.Path] = true
	}
	if st.Redacted.Files != len(paths) || st.Redacted.Secrets < len(planted)-2 || len(st.Redacted.List) != min(20, len(paths)) {
		t.Errorf("status redacted = %d secrets in %d files, %d listed; want about %d in %d", st.Redacted.Secrets, st.Redacted.Files, len(st.Redacted.List), len(planted), len(paths))
	}
	stdout, _, _ = ctxRun(t, root, cache, "status")
	if want := fmt.Sprintf("secrets:       %d masked in %d files", st.Redacted.Secrets, st.Redacted.Files); !strings.Contains(stdout, want) {
		t.Errorf("ctx status does not say %q:\n%s", want, stdout)
	}
}

// withoutQuery drops the "query" field, which echoes the caller's own
// query (a secret, for some of the queries above), from find's JSON.
func withoutQuery(t *testing.T, out string) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		return out // an error, on stderr
	}
	delete(v, "query")
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
