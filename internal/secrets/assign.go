package secrets

import (
	"bytes"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// This file reads assignments to secret-sounding names, in the shapes code
// and configuration write them:
//
//	password = "..."        TOKEN=...            "api_key": "..."
//	db.password: ...        <password>...</password>   ENV API_TOKEN ...
//	apiKey: string = "..."  var Secret string = "..."   user=x;Password=...;
//
// The value must look random: long enough, no spaces, not a placeholder or
// a reference ("${VAR}", "$(cmd)", "{{ tpl }}", "<your-token>", "changeme"),
// not made of words ("db-password-v2", "passwordResetToken"), not a path
// or URL, and with enough entropy. In code an unquoted value is an
// expression, so it counts only where a configuration line would put it.

// minEntropy is the least entropy of an assigned value, bits per byte: a
// random eight-character password has about 3; "changeme" 2.75.
const minEntropy = 3.0

// nameByte reports whether c (lower-cased) can be part of a name.
func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

// ignoredSuffixes end names that hold something about a secret rather
// than the secret itself (compared with separators removed).
var ignoredSuffixes = []string{
	"url", "uri", "file", "files", "path", "dir", "name", "names", "type", "length", "len", "size",
	"count", "field", "header", "prefix", "suffix", "regex", "pattern", "format", "mode", "ttl",
	"timeout", "expiry", "expires", "expiration", "endpoint", "label", "hint", "help", "description",
	"desc", "placeholder", "env", "var", "policy", "version", "kind", "style", "icon", "class",
	"hash", "hashed", "digest", "salt", "rounds", "lifetime", "age", "position", "pos", "index",
	"idx", "ref", "source", "provider", "store", "strategy", "algorithm", "alg", "encoding",
	"required", "enabled", "command", "cmd", "prompt", "message", "msg", "error", "err", "text",
	"title", "input", "visible",
}

// assignID names a finding by the name assigned to.
func assignID(name []byte) string {
	switch {
	case bytes.Contains(name, []byte("aws")) && bytes.Contains(name, []byte("secret")):
		return "aws-secret-key"
	case bytes.Contains(name, []byte("heroku")):
		return "heroku-api-key"
	case bytes.Contains(name, []byte("twilio")):
		return "twilio-credential"
	case bytes.Contains(name, []byte("pass")), bytes.Contains(name, []byte("pwd")):
		return "password"
	}
	return "generic-secret"
}

// matchAssignment reads the assignment around a keyword occurrence at
// [at, at+n) of the lower-cased content.
func matchAssignment(s *scan, r *rule, order, at, n int) {
	src, low := s.src, s.lower
	ks, ke := at, at+n
	for ks > 0 && nameByte(low[ks-1]) {
		ks--
	}
	// The keyword must end a word of the name: "tokenizer", "secretary"
	// and "passwordless" are other words.
	if ke < len(low) && nameByte(low[ke]) {
		c := src[ke]
		switch {
		case c == '_' || c == '-' || c == '.':
		case 'A' <= c && c <= 'Z' && 'a' <= src[ke-1] && src[ke-1] <= 'z':
			// camelCase: apiKeyValue
		case low[ke] == 's' && (ke+1 == len(low) || !nameByte(low[ke+1]) || src[ke+1] == '_' || src[ke+1] == '-' || src[ke+1] == '.'):
		default:
			return
		}
	}
	for ke < len(low) && nameByte(low[ke]) {
		ke++
	}
	if ke-ks > 64 || ignoredName(low[ks:ke]) {
		return
	}
	if ks > 0 && (src[ks-1] == '{' && ks > 1 && src[ks-2] == '$' || src[ks-1] == '%') {
		return // a reference to the variable, not its definition
	}
	ls := bytes.LastIndexByte(src[:ks], '\n') + 1
	le := lineEnd(src, ke)
	name := low[ks:ke]
	p := ke
	define := false
	if ks > ls && (src[ks-1] == '"' || src[ks-1] == '\'') && p < le && src[p] == src[ks-1] {
		p++ // a quoted key
		if q := skipSpace(src, p, le); q < le && src[q] == ',' && defineCall(src[ls:ks-1]) {
			p, define = q, true // define('DB_PASSWORD', '...') in PHP
		}
	}

	// <password>value</password>
	if ks > ls && src[ks-1] == '<' && p < le && src[p] == '>' {
		vs := p + 1
		ve := bytes.IndexByte(src[vs:le], '<')
		if ve < 0 {
			return
		}
		vs, ve = trimSpace(src, vs, vs+ve)
		if plausible(src[vs:ve]) {
			s.add(assignID(name), order, vs, ve)
		}
		return
	}

	sp := skipSpace(src, p, le)
	colon := false
	switch {
	case sp >= le:
		return
	case hasPrefixAt(src, sp, ":=") || hasPrefixAt(src, sp, "=>"):
		p = sp + 2
	case src[sp] == '=':
		if hasPrefixAt(src, sp, "==") {
			return
		}
		p = sp + 1
	case define:
		p = sp + 1 // the comma of define(
	case src[sp] == ':':
		if hasPrefixAt(src, sp, "::") {
			return
		}
		p, colon = sp+1, true
	case sp > p && dockerEnv(src[ls:ks]):
		// ENV NAME value
		p = sp
	case isLetter(src[sp]):
		// NAME type = value (Go, Kotlin, Swift declarations).
		q := skipWord(src, sp, le)
		q = skipSpace(src, q, le)
		if q >= le || src[q] != '=' || hasPrefixAt(src, q, "==") {
			return
		}
		p = q + 1
	default:
		return
	}
	p = skipSpace(src, p, le)
	if colon && s.kind == kindCode && p < le && isLetter(src[p]) {
		// name: type = value (Python, TypeScript annotations).
		q := skipSpace(src, skipWord(src, p, le), le)
		if q < le && src[q] == '=' && !hasPrefixAt(src, q, "==") {
			p = skipSpace(src, q+1, le)
		}
	}
	if p >= le {
		return
	}
	c := src[p]
	if p+1 < le && (src[p+1] == '"' || src[p+1] == '\'') && bytes.IndexByte([]byte("bBrRuUfF"), c) >= 0 {
		p++ // b"...", r'...' and the like
		c = src[p]
	}
	var vs, ve int
	switch {
	case c == '"' || c == '\'' || c == '`':
		vs = p + 1
		ve = closeQuote(src, vs, le, c)
		if ve < 0 {
			return
		}
	case c == '\\' && p+1 < le && (src[p+1] == '"' || src[p+1] == '\''):
		// A quote escaped inside an enclosing string, as notebooks and
		// JSON-embedded code write it.
		vs = p + 2
		i := bytes.Index(src[vs:le], src[p:p+2])
		if i < 0 {
			return
		}
		ve = vs + i
	default:
		switch {
		case s.kind == kindConfig:
		case ks > ls && bytes.IndexByte([]byte(";&?"), src[ks-1]) >= 0:
		case s.kind == kindDoc && lineStart(src[ls:ks]):
		default:
			return // an expression
		}
		vs, ve = p, p
		for ve < le && !unquotedEnd(src[ve]) {
			ve++
		}
		if ve < le && (src[ve] == '(' || src[ve] == '[') {
			return // a call or an index expression
		}
		if s.kind == kindCode && identPath().Match(src[vs:ve]) {
			return // a variable or a field
		}
	}
	if s.test && hexDigits(src[vs:ve]) {
		return // a test vector
	}
	if plausible(src[vs:ve]) {
		s.add(assignID(name), order, vs, ve)
	}
}

func hexDigits(v []byte) bool {
	for _, c := range v {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// identPath matches a dotted identifier such as settings.API_KEY.
var identPath = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// wordLike matches values made of words, numbers and separators:
// "db-password-v2", "passwordResetToken", "SECRET_NAME", "Summer2024".
var wordLike = lazyre.New(`^(?:[A-Z]?[a-z]{2,}|[A-Z]{2,}|[A-Z][_.:/\-]|[0-9]{1,4}|[_.:/\-])+$`)

// fileExts end values that name a file rather than hold a secret.
var fileExts = []string{".pem", ".key", ".crt", ".cer", ".json", ".yaml", ".yml", ".txt", ".p12",
	".pfx", ".jks", ".cfg", ".conf", ".ini", ".env", ".gpg", ".asc", ".pub", ".der", ".keystore"}

// plausible reports whether an assigned value looks like a secret.
func plausible(v []byte) bool {
	if len(v) < 8 || len(v) > 1024 {
		return false
	}
	if bytes.ContainsAny(v, " \t") || bytes.Contains(v, []byte("://")) {
		return false
	}
	for _, c := range v {
		if c >= 0x80 {
			return false // text in another script (a translated message), not a key
		}
	}
	switch v[0] {
	case '$', '%', '@', '{', '[', '<', '!', '&', '*', '~', '/', '.', ':', '#', '=', '"', '\'':
		return false // references, templates, YAML tags and anchors, paths
	}
	if placeholder(v) || wordLike().Match(v) {
		return false
	}
	lv := bytes.ToLower(v)
	if bytes.HasPrefix(lv, []byte("urn:")) {
		return false
	}
	for _, e := range fileExts {
		if bytes.HasSuffix(lv, []byte(e)) {
			return false
		}
	}
	switch string(lv) {
	case "password", "passwd", "undefined", "required", "optional", "disabled", "inherit":
		return false
	}
	h := entropy(v)
	if !hasDigit(v) && !bytes.ContainsAny(v, symbols) {
		// Letters only ("MyAccessToken", "CLIENT_SECRET"): random only
		// when long and varied.
		return len(v) >= 20 && h >= 3.8
	}
	return h >= minEntropy
}

// symbols are the punctuation that generated passwords use and names and
// sentences do not.
const symbols = `!@#$%^&*+=~/\\|;,<>{}[]()`

func ignoredName(name []byte) bool {
	var buf [64]byte
	norm := buf[:0]
	for _, c := range name {
		if c != '_' && c != '-' && c != '.' {
			norm = append(norm, c)
		}
	}
	for _, s := range ignoredSuffixes {
		if bytes.HasSuffix(norm, []byte(s)) {
			return true
		}
	}
	return false
}

// lineStart reports whether what precedes a name on its line leaves it at
// the start of a statement: indentation, a comment marker, a YAML list
// dash, or a shell or Dockerfile word such as export, set or ENV.
func lineStart(prefix []byte) bool {
	p := bytes.TrimSpace(prefix)
	p = bytes.TrimRight(p, `"'`)
	for _, w := range []string{"#", "//", ";", "-", "export", "set", "setenv", "env", "arg", "local", "readonly", "declare -x", "declare"} {
		if len(p) >= len(w) && bytes.EqualFold(p[:len(w)], []byte(w)) {
			p = bytes.TrimSpace(p[len(w):])
		}
	}
	return len(p) == 0
}

// defineCall reports whether a line prefix ends in a PHP define( call.
func defineCall(prefix []byte) bool {
	p := bytes.TrimRight(prefix, " \t")
	return len(p) >= 7 && bytes.EqualFold(p[len(p)-7:], []byte("define("))
}

// dockerEnv reports whether a line prefix is a Dockerfile ENV or ARG.
func dockerEnv(prefix []byte) bool {
	p := bytes.TrimSpace(prefix)
	return bytes.EqualFold(p, []byte("env")) || bytes.EqualFold(p, []byte("arg"))
}

func unquotedEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '"', '\'', '`', ',', ';', '&', '<', '>', '(', ')', '[', ']', '{', '}':
		return true
	}
	return false
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }

func skipSpace(b []byte, i, end int) int {
	for i < end && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

func skipWord(b []byte, i, end int) int {
	for i < end && (isLetter(b[i]) || '0' <= b[i] && b[i] <= '9' || b[i] == '.' || b[i] == '*' || b[i] == '[' || b[i] == ']' || b[i] == '?' || b[i] == '|') {
		i++
	}
	return i
}

func trimSpace(b []byte, i, j int) (int, int) {
	for i < j && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t' || b[j-1] == '\r') {
		j--
	}
	return i, j
}

func hasPrefixAt(b []byte, i int, p string) bool {
	return len(b)-i >= len(p) && string(b[i:i+len(p)]) == p
}

// closeQuote returns the index of the quote q closing a string that
// starts at i, skipping backslash escapes (but not in backquotes), or -1
// when the line ends first.
func closeQuote(b []byte, i, end int, q byte) int {
	for ; i < end; i++ {
		switch b[i] {
		case '\\':
			if q != '`' {
				i++
			}
		case q:
			return i
		}
	}
	return -1
}
