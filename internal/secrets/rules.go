package secrets

import (
	"bytes"
	"regexp"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// rule is one detector. A keyword that holds an upper-case letter is
// searched for as written; any other is searched for in the lower-cased
// content. A regular-expression rule runs once on each line that holds a
// keyword, and its first capture group (or its whole match) is the secret;
// a rule with a match func is called at each keyword occurrence instead.
type rule struct {
	id       string
	keywords []string
	// re is compiled on first use (see package lazyre).
	re func() *regexp.Regexp
	// entropy is the least Shannon entropy of the secret, bits per byte.
	entropy float64
	// check, when set, must accept the secret.
	check func(v []byte) bool
	// need, when set, is a byte the line must hold for re to be tried.
	need byte
	// match replaces re: it looks at the keyword occurrence at [at,
	// at+n) and adds what it finds with s.add.
	match func(s *scan, r *rule, order, at, n int)
}

// derivedIDs are the rule ids that the assignment matcher gives to what
// it finds from the name assigned to (see assignID), besides its own and
// heroku-api-key, which the table has.
var derivedIDs = []string{"password", "aws-secret-key", "twilio-credential"}

// rules is the table, most specific first: when spans overlap, the first
// rule names the merged span. Token formats follow the providers'
// documentation; a format with a fixed prefix needs no entropy floor
// beyond ruling out "xxxx" bodies.
var rules = []rule{
	{
		id:       "private-key",
		keywords: []string{"private key"},
		match:    matchPrivateKey,
	},
	{
		id:       "github-token",
		keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
		re:       lazyre.New(`\bgh[pousr]_[A-Za-z0-9]{36,251}\b`),
		entropy:  3.5,
	},
	{
		id:       "github-fine-grained-token",
		keywords: []string{"github_pat_"},
		re:       lazyre.New(`\bgithub_pat_[A-Za-z0-9_]{50,240}\b`),
		entropy:  3.5,
	},
	{
		id:       "gitlab-token",
		keywords: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-", "glcbt-", "glimt-", "gloas-", "glagent-", "gr1348941"},
		re:       lazyre.New(`\b(?:gl(?:pat|dt|rt|ptt|ft|soat|cbt|imt|oas|agent)-|GR1348941)[A-Za-z0-9_.\-]{20,}`),
		entropy:  3.3,
	},
	{
		id:       "slack-token",
		keywords: []string{"xoxa-", "xoxb-", "xoxe-", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xapp-"},
		re:       lazyre.New(`\b(?:xox[abeoprs](?:\.xox[abeoprs])?-[A-Za-z0-9-]{10,250}|xapp-\d-[A-Za-z0-9-]{20,250})`),
		entropy:  3.0,
		check:    hasDigit,
	},
	{
		id:       "slack-webhook",
		keywords: []string{"hooks.slack.com/"},
		re:       lazyre.New(`hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/+\-]{20,})`),
		entropy:  3.0,
	},
	{
		id:       "stripe-key",
		keywords: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_"},
		re:       lazyre.New(`\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{20,247}|whsec_[A-Za-z0-9+/=]{24,})\b`),
		entropy:  3.5,
	},
	{
		id:       "aws-access-key-id",
		keywords: []string{"AKIA", "ASIA", "ABIA", "ACCA"},
		re:       lazyre.New(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`),
		entropy:  3.0,
	},
	{
		id:       "google-api-key",
		keywords: []string{"AIza"},
		re:       lazyre.New(`\bAIza[A-Za-z0-9_\-]{35}`),
		entropy:  3.5,
	},
	{
		id:       "google-oauth-secret",
		keywords: []string{"gocspx-"},
		re:       lazyre.New(`\bGOCSPX-[A-Za-z0-9_\-]{28}`),
		entropy:  3.5,
	},
	{
		id:       "anthropic-api-key",
		keywords: []string{"sk-ant-"},
		re:       lazyre.New(`\bsk-ant-[a-z]+\d*-[A-Za-z0-9_\-]{32,}`),
		entropy:  3.5,
	},
	{
		id:       "openai-api-key",
		keywords: []string{"sk-"},
		re:       lazyre.New(`\bsk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{40,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{32,64}\b)`),
		entropy:  3.7,
		check:    hasDigit,
	},
	{
		id:       "twilio-api-key",
		keywords: twilioKeywords(),
		re:       lazyre.New(`\bSK[0-9a-f]{32}\b`),
		entropy:  3.2,
	},
	{
		id:       "sendgrid-api-key",
		keywords: []string{"SG."},
		re:       lazyre.New(`\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b`),
		entropy:  3.5,
	},
	{
		id:       "npm-token",
		keywords: []string{"npm_"},
		re:       lazyre.New(`\bnpm_[A-Za-z0-9]{36}\b`),
		entropy:  3.5,
	},
	{
		id:       "pypi-token",
		keywords: []string{"pypi-age"},
		re:       lazyre.New(`\bpypi-AgE[A-Za-z0-9_\-]{50,}`),
		entropy:  3.5,
	},
	{
		id:       "heroku-api-key",
		keywords: []string{"hrku-"},
		re:       lazyre.New(`\bHRKU-[A-Za-z0-9_\-]{40,}`),
		entropy:  3.5,
	},
	{
		id:       "digitalocean-token",
		keywords: []string{"dop_v1_", "doo_v1_", "dor_v1_"},
		re:       lazyre.New(`\bdo[opr]_v1_[a-f0-9]{64}\b`),
		entropy:  3.2,
	},
	{
		id:       "shopify-token",
		keywords: []string{"shpat_", "shpca_", "shppa_", "shpss_"},
		re:       lazyre.New(`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`),
		entropy:  3.2,
	},
	{
		id:       "vault-token",
		keywords: []string{"hvs.", "hvb.", "hvr."},
		re:       lazyre.New(`\bhv[sbr]\.[A-Za-z0-9_\-]{24,}`),
		entropy:  3.5,
	},
	{
		id:       "terraform-cloud-token",
		keywords: []string{".atlasv1."},
		re:       lazyre.New(`\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,}`),
		entropy:  3.5,
	},
	{
		id:       "huggingface-token",
		keywords: []string{"hf_"},
		re:       lazyre.New(`\bhf_[A-Za-z]{34}\b`),
		entropy:  3.8,
	},
	{
		id:       "databricks-token",
		keywords: []string{"dapi"},
		re:       lazyre.New(`\bdapi[a-f0-9]{32}(?:-\d)?\b`),
		entropy:  3.2,
	},
	{
		id:       "linear-api-key",
		keywords: []string{"lin_api_"},
		re:       lazyre.New(`\blin_api_[A-Za-z0-9]{40}\b`),
		entropy:  3.5,
	},
	{
		id:       "doppler-token",
		keywords: []string{"dp.pt.", "dp.st.", "dp.ct.", "dp.scim.", "dp.audit."},
		re:       lazyre.New(`\bdp\.(?:pt|st|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b`),
		entropy:  3.5,
	},
	{
		id:       "square-token",
		keywords: []string{"sq0atp-", "sq0csp-"},
		re:       lazyre.New(`\bsq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}`),
		entropy:  3.5,
	},
	{
		id:       "age-secret-key",
		keywords: []string{"age-secret-key-1"},
		re:       lazyre.New(`\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b`),
	},
	{
		id:       "azure-storage-key",
		keywords: []string{"accountkey="},
		re:       lazyre.New(`(?i:AccountKey)=([A-Za-z0-9+/]{86}==)`),
		entropy:  4.0,
	},
	{
		id:       "telegram-bot-token",
		keywords: []string{":AA"},
		re:       lazyre.New(`(?:^|[^0-9])(\d{8,10}:AA[A-Za-z0-9_\-]{33})\b`),
		entropy:  3.5,
	},
	{
		id:       "discord-webhook",
		keywords: []string{"/api/webhooks/"},
		re:       lazyre.New(`discord(?:app)?\.com/api/webhooks/\d+/([A-Za-z0-9_\-]{60,})`),
		entropy:  3.5,
	},
	{
		id:       "mailgun-api-key",
		keywords: []string{"key-"},
		re:       lazyre.New(`\bkey-[0-9a-f]{32}\b`),
		entropy:  3.2,
	},
	{
		id:       "jwt",
		keywords: []string{"eyJ"},
		re:       lazyre.New(`\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{16,}`),
		entropy:  4.0,
	},
	{
		// A password in a URL's user information:
		// scheme://user:password@host. The password alone is masked.
		id:       "url-password",
		keywords: []string{"://"},
		re:       lazyre.New(`\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/@'"<>]{1,64}:([^\s/@'"<>]{6,128})@[A-Za-z0-9.\-\[]`),
		entropy:  2.5,
		check:    urlPassword,
		need:     '@',
	},
	{
		id:       "bearer-token",
		keywords: []string{"bearer "},
		re:       lazyre.New(`\b(?i:bearer) +([A-Za-z0-9_.~+/\-]{20,}=*)`),
		entropy:  3.7,
		check:    hasDigit,
	},
	{
		id: "generic-secret",
		keywords: []string{
			"password", "passwd", "passphrase", "pwd", "secret", "token", "apikey", "api_key",
			"api-key", "api.key", "accesskey", "access_key", "access-key", "authkey", "auth_key",
			"_auth", "privatekey", "private_key", "credential",
		},
		match: matchAssignment,
	},
}

// twilioKeywords are "SK" followed by each hex digit: keywords are at
// least three bytes long.
func twilioKeywords() []string {
	var kws []string
	for _, c := range "0123456789abcdef" {
		kws = append(kws, "SK"+string(c))
	}
	return kws
}

func hasDigit(v []byte) bool {
	for _, c := range v {
		if '0' <= c && c <= '9' {
			return true
		}
	}
	return false
}

// urlPassword rejects URL passwords that are template parameters or the
// words "password" and "pass" used as examples.
func urlPassword(v []byte) bool {
	l := bytes.ToLower(v)
	for _, w := range []string{"pass", "sword", "pwd", "secret"} {
		if bytes.Contains(l, []byte(w)) {
			return false
		}
	}
	return v[0] != '$' && v[0] != '%' && v[0] != ':' && !wordLike().Match(v)
}
