package secrets_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/secrets"
	"github.com/ctx-dev/ctx/internal/secrets/secretstest"
)

// v is a generated secret (see secretstest.Value).
func v(kind string, n int) string { return secretstest.Value(kind, n) }

// TestCorpusRecall redacts every file of the planted corpus and checks
// that no planted secret survives; it logs the recall.
func TestCorpusRecall(t *testing.T) {
	t.Parallel()
	files, planted := secretstest.Files()
	masked := map[string][]byte{}
	for name, data := range files {
		b := bytes.Clone(data)
		fs := secrets.Redact(name, b)
		if len(b) != len(data) || bytes.Count(b, []byte("\n")) != bytes.Count(data, []byte("\n")) {
			t.Errorf("%s: masking changed the length or the line count", name)
		}
		for _, f := range fs {
			t.Logf("%s:%d %s", name, f.Line, f.Rule)
		}
		masked[name] = b
	}
	found := 0
	for _, p := range planted {
		if leaks := secretstest.Leaks(masked[p.Path], []secretstest.Planted{p}); len(leaks) > 0 {
			t.Errorf("%s: %s not redacted", p.Path, p.Kind)
			continue
		}
		found++
	}
	t.Logf("recall: %d of %d planted secrets redacted", found, len(planted))
	if len(planted) < 30 {
		t.Errorf("the corpus plants %d secrets, want at least 30", len(planted))
	}
	// The code beside the secrets stays readable.
	for name, want := range map[string]string{
		"config.py":                 "def load_settings(env=os.environ):",
		"payments/charge.js":        "async function chargeCustomer(customerId, invoice) {",
		"notify/slack.go":           "func NotifyChannel(c *http.Client, msg string) error {",
		"deploy/values.yaml":        "passwordSecretName: billing-db",
		"scripts/release.sh":        `git log --oneline "$1..HEAD"`,
		"internal/db/dsn.go":        `return fmt.Sprintf("postgres://reporting@%s:5432/billing", host)`,
		"docs/setup.md":             "./scripts/mirror.sh",
		"deploy_key":                "PRIVATE KEY-----",
		"web/settings.json":         `"model": "gpt-4o"`,
		"ops/worker.conf":           "LOG_LEVEL=info",
		"wordpress/site-config.php": "define('DB_NAME', 'billing');",
	} {
		if !bytes.Contains(masked[name], []byte(want)) {
			t.Errorf("%s: %q was masked too:\n%s", name, want, masked[name])
		}
	}
}

// TestRules checks each rule on a line that holds its secret, and lines
// that must stay as they are.
func TestRules(t *testing.T) {
	t.Parallel()
	pem := v("rsa-key", 7)
	tests := []struct {
		name, path, text string
		rule             string // "" when nothing must be found
		secret           string // the span found; the whole value when empty
	}{
		{"github", "a.py", `TOKEN = "` + v("github-token", 7) + `"`, "github-token", ""},
		{"github oauth", "a.go", `x := "` + v("github-oauth", 7) + `"`, "github-token", ""},
		{"github fine-grained", "a.yml", "pat: " + v("github-fine-grained", 7), "github-fine-grained-token", ""},
		{"gitlab", "a.sh", "glab auth login --token " + v("gitlab", 7), "gitlab-token", ""},
		{"slack bot", "a.js", `new WebClient("` + v("slack-bot", 7) + `")`, "slack-token", ""},
		{"slack user", "a.py", `t = '` + v("slack-user", 7) + `'`, "slack-token", ""},
		{"slack webhook", "a.go", `u := "https://hooks.slack.com/services/` + v("slack-webhook", 7) + `"`, "slack-webhook", v("slack-webhook", 7)},
		{"stripe live", "a.rb", `Stripe.api_key = "` + v("stripe-live", 7) + `"`, "stripe-key", ""},
		{"stripe restricted", "a.js", v("stripe-restricted", 7), "stripe-key", ""},
		{"stripe test in a test", "a_test.go", `k := "` + v("stripe-test", 7) + `"`, "stripe-key", ""},
		{"aws key id", "a.txt", "key " + v("aws-key-id", 7) + " in prose", "aws-access-key-id", ""},
		{"aws session key id", "a.sh", "AWS_ACCESS_KEY_ID=" + v("aws-session-key-id", 7), "aws-access-key-id", ""},
		{"aws secret", "credentials.ini", "aws_secret_access_key = " + v("aws-secret", 7), "aws-secret-key", v("aws-secret", 7)},
		{"google", "a.kt", `val k = "` + v("google-api", 7) + `"`, "google-api-key", ""},
		{"openai project", "a.py", `client = OpenAI(api_key="` + v("openai", 7) + `")`, "openai-api-key", ""},
		{"openai legacy", "a.py", "sk-" + strings.Repeat("aB3", 7)[:20] + "T3Blbk" + "FJ" + "Zq8pR2mN7xL4vK9sW1yD", "openai-api-key", ""},
		{"anthropic", "a.env.local", "ANTHROPIC_API_KEY=" + v("anthropic", 7), "anthropic-api-key", v("anthropic", 7)},
		{"twilio", "a.cs", `var key = "` + v("twilio", 7) + `";`, "twilio-api-key", ""},
		{"sendgrid", "a.php", `$sg = new \SendGrid('` + v("sendgrid", 7) + `');`, "sendgrid-api-key", ""},
		{"npm", ".npmrc-ci", "//registry.npmjs.org/:_authToken=" + v("npm", 7), "npm-token", ""},
		{"pypi", "a.cfg", "password = " + v("pypi", 7), "pypi-token", ""},
		{"heroku", "a.sh", "HEROKU_API_KEY=" + v("heroku", 7), "heroku-api-key", v("heroku", 7)},
		{"jwt", "a.http", "Authorization: Bearer " + v("jwt", 7), "jwt", v("jwt", 7)},
		{"private key", "deploy_key", pem, "private-key", secretstest.Secret("rsa-key", pem)},
		{"private key in json", "sa.json", `{"private_key": "` + v("pkcs8-key-json", 7) + `"}`, "private-key", ""},
		{"url password", "a.go", `dsn := "mysql://app:` + v("password", 7) + `@tcp(db:3306)/app"`, "url-password", v("password", 7)},
		{"password yaml", "a.yaml", "  password: " + v("password", 8), "password", v("password", 8)},
		{"password json", "a.json", `{"db_password": "` + v("password", 9) + `"}`, "password", v("password", 9)},
		{"password xml", "a.xml", "<password>" + v("password", 10) + "</password>", "password", v("password", 10)},
		{"password properties", "a.properties", "db.password=" + v("password", 11), "password", v("password", 11)},
		{"password go struct", "a.go", `cfg := Config{Password: "` + v("password", 12) + `"}`, "password", v("password", 12)},
		{"password python annotated", "a.py", `password: str = "` + v("password", 13) + `"`, "password", v("password", 13)},
		{"password go typed const", "a.go", `const adminPassword string = "` + v("password", 14) + `"`, "password", v("password", 14)},
		{"password connection string", "a.cs", `var cs = "Server=db;User Id=sa;Password=` + v("password", 15) + `;";`, "password", v("password", 15)},
		{"password dockerfile env", "Dockerfile", "ENV DB_PASSWORD " + v("password", 16), "password", v("password", 16)},
		{"password php define", "a.php", "define('DB_PASSWORD', '" + v("password", 17) + "');", "password", v("password", 17)},
		{"secret notebook", "a.ipynb", `"api_secret = \"` + v("generic-hex", 7) + `\"\n",`, "generic-secret", v("generic-hex", 7)},
		{"token markdown", "README.md", "export SERVICE_TOKEN=" + v("generic-hex", 8), "generic-secret", v("generic-hex", 8)},
		{"api key js", "a.js", `const apiKey = '` + v("generic-hex", 9) + `';`, "generic-secret", v("generic-hex", 9)},

		// Placeholders, references and code stay.
		{"changeme", "a.yaml", "password: changeme", "", ""},
		{"translated message", "messages.json", `  "Unexpected_token_1012": "未預期的語彙基元。",`, "", ""},
		{"translated message with ascii", "messages.json", `  "Expected_token_1007": "分析器预期在此处找到与“{0}”标记匹配的“{1}”。",`, "", ""},
		{"env reference", "a.yaml", "password: ${DB_PASSWORD}", "", ""},
		{"template", "a.yaml", `password: "{{ .Values.db.password }}"`, "", ""},
		{"angle placeholder", "a.env.example", "API_TOKEN=<your-token>", "", ""},
		{"xxxx", "a.py", `API_KEY = "xxxxxxxxxxxxxxxxxxxxxxxx"`, "", ""},
		{"github xxxx", "a.md", "GITHUB_TOKEN=gh" + "p_" + strings.Repeat("x", 36), "", ""},
		{"aws example", "a.md", "AK" + "IAIOSFODNN7EXAMPLE", "", ""},
		{"getenv", "a.py", `password = os.getenv("DB_PASSWORD")`, "", ""},
		{"go call", "a.go", `token, err := tok.Next()`, "", ""},
		{"go field", "a.go", `p.token = p.scanner.Scan()`, "", ""},
		{"go const expr", "a.go", `	SIOCGLIFTOKEN = -0x3f879678`, "", ""},
		{"go string constant", "a.go", `const fakeConnectionToken = "X-Fake-Connection-Token"`, "", ""},
		{"tokenizer", "a.json", `{"tokenizer": "cl100k_base2"}`, "", ""},
		{"i18n message", "en.json", `{"password": "Password must have 8 characters"}`, "", ""},
		{"secret name", "a.yaml", "secretName: billing-db-credentials-v2", "", ""},
		{"token url", "a.go", `TokenURL: "https://oauth2.example.com/token"`, "", ""},
		{"key file", "a.yaml", "private_key: /etc/ssl/private/server-2024.pem", "", ""},
		{"key file name", "a.yaml", "private_key: server-2024.pem", "", ""},
		{"hex in a test", "crypto/x_test.go", `secret: "7d7dc5f71eb29ddaf80d6214632eeae03d9058af"`, "", ""},
		{"url without password", "a.go", `u := "https://user@example.com/path"`, "", ""},
		{"url example password", "a.go", `u := "https://user:password@example.com/"`, "", ""},
		{"go git env", "script.txt", "env GIT_AUTHOR_EMAIL='gopher@golang.org'", "", ""},
		{"vault encrypted", "a.yml", "password: !vault |", "", ""},
		{"sops", "a.yaml", "password: ENC[AES256_GCM,data:abc,iv:def]", "", ""},
		{"pem public", "a.pem.txt", "-----BEGIN " + "PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END " + "PUBLIC KEY-----", "", ""},
		{"shell reference", "a.sh", `curl -u "$API_TOKEN" https://x`, "", ""},
		{"comparison", "a.go", `if token == "abc123XYZ789" {`, "", ""},
		{"disk and task", "a.go", "task := disk.SK" + "eleton()", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := secrets.Find(tt.path, []byte(tt.text))
			if tt.rule == "" {
				if len(fs) > 0 {
					t.Errorf("Find(%q) = %+v, want nothing", tt.text, fs)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("Find(%q) = %+v, want one finding", tt.text, fs)
			}
			want := tt.secret
			if want == "" {
				want = strings.Trim(tt.text[fs[0].Start:fs[0].End], `"'`)
				if !strings.Contains(tt.text, want) {
					t.Fatal("bad case")
				}
			}
			got := tt.text[fs[0].Start:fs[0].End]
			if fs[0].Rule != tt.rule || strings.Trim(got, "\n") != want {
				t.Errorf("Find(%q) = %s %q, want %s %q", tt.text, fs[0].Rule, got, tt.rule, want)
			}
		})
	}
}

// TestEveryRuleTested keeps TestRules complete.
func TestEveryRuleTested(t *testing.T) {
	t.Parallel()
	tested := []string{"github-token", "github-fine-grained-token", "gitlab-token", "slack-token",
		"slack-webhook", "stripe-key", "aws-access-key-id", "aws-secret-key", "google-api-key",
		"openai-api-key", "anthropic-api-key", "twilio-api-key", "sendgrid-api-key", "npm-token",
		"pypi-token", "heroku-api-key", "jwt", "private-key", "url-password", "password",
		"generic-secret", "google-oauth-secret", "digitalocean-token", "shopify-token", "vault-token",
		"terraform-cloud-token", "huggingface-token", "databricks-token", "linear-api-key",
		"doppler-token", "square-token", "age-secret-key", "azure-storage-key", "telegram-bot-token",
		"discord-webhook", "mailgun-api-key", "bearer-token", "twilio-credential"}
	ids := secrets.Rules()
	for _, id := range ids {
		if !slices.Contains(tested, id) {
			t.Errorf("rule %s has no test", id)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != len(ids) {
		t.Errorf("Rules() = %v has duplicates", ids)
	}
}

// TestMoreRules covers the formats the corpus does not plant.
func TestMoreRules(t *testing.T) {
	t.Parallel()
	r := func(n int, alphabet string) string {
		var b strings.Builder
		x := uint32(n*2654435761 + 12345)
		for range n {
			x = x*1664525 + 1013904223
			b.WriteByte(alphabet[(x>>16)%uint32(len(alphabet))])
		}
		return b.String()
	}
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	const hex = "0123456789abcdef"
	tests := []struct{ text, rule string }{
		{`"GOCSPX-` + r(28, alnum) + `"`, "google-oauth-secret"},
		{"do" + "p_v1_" + r(64, hex), "digitalocean-token"},
		{"shp" + "at_" + r(32, hex), "shopify-token"},
		{"hv" + "s." + r(90, alnum), "vault-token"},
		{r(14, alnum) + ".atlas" + "v1." + r(67, alnum), "terraform-cloud-token"},
		{"h" + "f_" + r(34, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"), "huggingface-token"},
		{"da" + "pi" + r(32, hex), "databricks-token"},
		{"lin" + "_api_" + r(40, alnum), "linear-api-key"},
		{"dp" + ".pt." + r(43, alnum), "doppler-token"},
		{"sq0" + "atp-" + r(22, alnum), "square-token"},
		{"AGE-SECRET" + "-KEY-1" + r(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"), "age-secret-key"},
		{"DefaultEndpointsProtocol=https;AccountName=x;AccountKey=" + r(86, alnum+"+/") + "==;", "azure-storage-key"},
		{"bot" + "5830217496:AA" + r(33, alnum), "telegram-bot-token"},
		{"https://discord.com/api/webhooks/123456789012345678/" + r(68, alnum), "discord-webhook"},
		{"ke" + "y-" + r(32, hex), "mailgun-api-key"},
		{`-H "Authorization: Bearer ` + r(40, alnum) + `"`, "bearer-token"},
		{"TWILIO_AUTH_TOKEN=" + r(32, hex), "twilio-credential"},
	}
	for _, tt := range tests {
		fs := secrets.Find("x.txt", []byte(tt.text))
		if len(fs) != 1 || fs[0].Rule != tt.rule {
			t.Errorf("Find(%q) = %+v, want one %s", tt.text, fs, tt.rule)
		}
	}
}

// TestMask checks the masking invariants: same length, line breaks kept,
// the marker in the first stretch that fits it.
func TestMask(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, rule, want string }{
		{"abcdefghijklmnopqrstuvwxyz0123", "jwt", "[REDACTED:jwt]****************"},
		{"abcdefghijkl", "github-token", "[REDACTED]**"},
		{"abcdef", "jwt", "******"},
		{"\nabc\ndefghijklmnopqrstuvwxyz\r\nxy", "private-key", "\n***\n[REDACTED:private-key]*\r\n**"},
	}
	for _, tt := range tests {
		b := []byte(tt.in)
		secrets.Mask(b, []secrets.Finding{{Rule: tt.rule, Start: 0, End: len(b)}})
		if diff := cmp.Diff(tt.want, string(b)); diff != "" {
			t.Errorf("Mask(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestWindow checks that masking a window of a file masks the same bytes
// inside it as masking the whole file, which the engine relies on when it
// reads a chunk's range.
func TestWindow(t *testing.T) {
	t.Parallel()
	files, _ := secretstest.Files()
	for name, data := range files {
		whole := bytes.Clone(data)
		secrets.Redact(name, whole)
		lines := bytes.SplitAfter(data, []byte("\n"))
		offs := []int{0}
		for _, l := range lines {
			offs = append(offs, offs[len(offs)-1]+len(l))
		}
		// Windows of whole lines around each line.
		for i := range lines {
			for _, w := range []int{0, 3} {
				a, b := offs[max(0, i-w)], offs[min(len(lines), i+w+1)]
				win := bytes.Clone(data[a:b])
				secrets.Redact(name, win)
				if !bytes.Equal(win, whole[a:b]) && w > 0 {
					// Only a private-key block cut by the window may differ,
					// and then the window masks at least as much.
					if !bytes.Contains(data[a:b], []byte("KEY-----")) && !bytes.Contains(data, []byte("PRIVATE")) {
						t.Errorf("%s lines %d-%d: window masks\n%s\nwhole file masks\n%s", name, max(0, i-w)+1, min(len(lines), i+w+1), win, whole[a:b])
					}
				}
				for j := range win {
					if whole[a+j] != data[a+j] && win[j] == data[a+j] && !bytes.Contains(data, []byte("PRIVATE")) {
						t.Errorf("%s: byte %d masked in the whole file but not in the window", name, a+j)
						break
					}
				}
			}
		}
	}
}
