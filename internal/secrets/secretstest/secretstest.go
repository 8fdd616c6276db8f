// Package secretstest holds a corpus of files with planted secrets for the
// tests of the secret detector, the index and the front ends.
//
// The secrets look real (right prefixes, lengths and alphabets) but are
// generated when a test runs from a fixed seed, and the repository holds
// only the placeholders "{{secret:KIND:N}}" in testdata/corpus.txtar, so
// nothing in it looks like a live credential to a scanner.
package secretstest

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

//go:embed testdata/corpus.txtar
var corpus []byte

// Planted is one secret written into the corpus.
type Planted struct {
	Path  string // slash path of the file
	Kind  string // generator kind, such as "github-token"
	Value string // the secret as written into the file
}

const (
	alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	hexLow  = "0123456789abcdef"
	b32     = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b64url  = alnum + "-_"
	b64     = alnum + "+/"
	upper   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	digits  = "0123456789"
	pwChars = alnum + "!#%^*+=~"
)

// gen produces random-looking strings, the same for the same seed.
type gen struct{ r *rand.Rand }

func newGen(seed string) *gen {
	h := fnv.New64a()
	h.Write([]byte(seed))
	s := h.Sum64()
	return &gen{rand.New(rand.NewPCG(s, s^0x5eed))}
}

func (g *gen) pick(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

// pemBody is n lines of 64 base64 characters and a shorter last line.
func (g *gen) pemBody(n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(g.pick(b64, 64) + "\n")
	}
	b.WriteString(g.pick(b64, 24) + "==\n")
	return b.String()
}

// pemMarker builds "-----BEGIN <label> KEY-----" from parts.
func pemMarker(word, label string) string {
	return "-----" + word + " " + label + " " + "KEY-----"
}

// Value returns the secret of a kind; n tells several of one kind apart.
// Prefixes are assembled from halves so the source holds none whole.
func Value(kind string, n int) string {
	g := newGen(kind + "/" + strconv.Itoa(n))
	switch kind {
	case "github-token":
		return "gh" + "p_" + g.pick(alnum, 36)
	case "github-oauth":
		return "gh" + "o_" + g.pick(alnum, 36)
	case "github-fine-grained":
		return "github" + "_pat_" + g.pick(alnum, 22) + "_" + g.pick(alnum, 59)
	case "gitlab":
		return "gl" + "pat-" + g.pick(b64url, 20)
	case "slack-bot":
		return "xo" + "xb-" + g.pick(digits, 12) + "-" + g.pick(digits, 13) + "-" + g.pick(alnum, 24)
	case "slack-user":
		return "xo" + "xp-" + g.pick(digits, 12) + "-" + g.pick(digits, 12) + "-" + g.pick(digits, 13) + "-" + g.pick(hexLow, 32)
	case "slack-webhook":
		// The part after hooks.slack.com/services/.
		return "T" + g.pick(upper, 8) + "/B" + g.pick(upper, 10) + "/" + g.pick(alnum, 24)
	case "stripe-live":
		return "sk" + "_live_" + g.pick(alnum, 24)
	case "stripe-restricted":
		return "rk" + "_live_" + g.pick(alnum, 24)
	case "stripe-test":
		return "sk" + "_test_" + g.pick(alnum, 24)
	case "aws-key-id":
		return "AK" + "IA" + g.pick(b32, 16)
	case "aws-session-key-id":
		return "AS" + "IA" + g.pick(b32, 16)
	case "aws-secret":
		return g.pick(b64, 40)
	case "google-api":
		return "AI" + "za" + g.pick(b64url, 35)
	case "openai":
		return "sk-" + "proj-" + g.pick(b64url, 48) + "T3Blbk" + "FJ" + g.pick(b64url, 40)
	case "anthropic":
		return "sk-" + "ant-" + "api03-" + g.pick(b64url, 93) + "AA"
	case "twilio":
		return "S" + "K" + g.pick(hexLow, 32)
	case "sendgrid":
		return "S" + "G." + g.pick(b64url, 22) + "." + g.pick(b64url, 43)
	case "npm":
		return "np" + "m_" + g.pick(alnum, 36)
	case "pypi":
		return "py" + "pi-" + "AgEIcHlwaS5vcmc" + g.pick(b64url, 70)
	case "heroku":
		return "HR" + "KU-" + g.pick(b64url, 60)
	case "jwt":
		header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
		payload := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"sub":"%s","name":"svc-%s","iat":17%s}`,
			g.pick(digits, 10), g.pick(hexLow, 6), g.pick(digits, 8))))
		return header + "." + payload + "." + g.pick(b64url, 43)
	case "password":
		// Unquoted in YAML and .properties, so no sigil in front.
		return g.pick(alnum, 1) + g.pick(pwChars, 17)
	case "generic-hex":
		return g.pick(hexLow, 40)
	case "rsa-key":
		return pemMarker("BEGIN", "RSA PRIVATE") + "\n" + g.pemBody(24) + pemMarker("END", "RSA PRIVATE")
	case "openssh-key":
		return pemMarker("BEGIN", "OPENSSH PRIVATE") + "\n" + g.pemBody(6) + pemMarker("END", "OPENSSH PRIVATE")
	case "pkcs8-key-json":
		// A key inside a JSON string, line breaks escaped.
		body := strings.ReplaceAll(g.pemBody(25), "\n", `\n`)
		return pemMarker("BEGIN", "PRIVATE") + `\n` + body + pemMarker("END", "PRIVATE") + `\n`
	}
	panic("secretstest: unknown kind " + kind)
}

// Secret returns the part of a value that must never be shown: a key
// block's body (its BEGIN and END lines may stay), else the whole value.
func Secret(kind, value string) string {
	if strings.HasSuffix(kind, "-key") || kind == "pkcs8-key-json" {
		v := value
		v = v[strings.Index(v, "KEY-----")+len("KEY-----"):]
		v = v[:strings.LastIndex(v, "-----END")]
		return strings.Trim(strings.ReplaceAll(v, `\n`, "\n"), "\n")
	}
	return value
}

var placeholder = regexp.MustCompile(`\{\{secret:([a-z0-9-]+):(\d+)\}\}`)

// Files returns the corpus with its placeholders expanded, and the
// secrets planted in it, in file order.
func Files() (map[string][]byte, []Planted) {
	a := txtar.Parse(corpus)
	files := map[string][]byte{}
	var planted []Planted
	for _, f := range a.Files {
		data := placeholder.ReplaceAllFunc(f.Data, func(m []byte) []byte {
			sm := placeholder.FindSubmatch(m)
			n, _ := strconv.Atoi(string(sm[2]))
			v := Value(string(sm[1]), n)
			planted = append(planted, Planted{Path: f.Name, Kind: string(sm[1]), Value: v})
			return []byte(v)
		})
		files[f.Name] = data
	}
	return files, planted
}

// Write writes the corpus under dir and returns the planted secrets.
func Write(dir string) ([]Planted, error) {
	files, planted := Files()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
	}
	return planted, nil
}

// Leaks returns the planted secrets (see [Secret]) that occur in out,
// whole or in part: their middle or last 16 bytes, or a line of a key
// block's body.
func Leaks(out []byte, planted []Planted) []Planted {
	var leaks []Planted
	for _, p := range planted {
		if leaked(out, Secret(p.Kind, p.Value)) {
			leaks = append(leaks, p)
		}
	}
	return leaks
}

func leaked(out []byte, s string) bool {
	if strings.Contains(s, "\n") {
		for _, line := range strings.Split(s, "\n") {
			if len(line) >= 16 && leaked(out, line) {
				return true
			}
		}
		return false
	}
	parts := []string{s}
	if n := len(s); n > 16 {
		parts = append(parts, s[n/2-8:n/2+8], s[n-16:])
	}
	for _, part := range parts {
		if bytes.Contains(out, []byte(part)) {
			return true
		}
	}
	return false
}
