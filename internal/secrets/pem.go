package secrets

import (
	"bytes"
)

// maxKeyBlock bounds how far a private-key block's END line is looked for;
// the largest keys in use (RSA 8192, PKCS#1) take about 6.5 KB.
const maxKeyBlock = 32 << 10

// matchPrivateKey masks the body of a PEM private-key block ("-----BEGIN
// RSA PRIVATE KEY-----" ... "-----END RSA PRIVATE KEY-----", and the
// OpenSSH, EC, DSA, PKCS#8, encrypted and PGP variants). The BEGIN and END
// lines stay, so a reader still sees that a key was there. The block may
// sit in its own file, in a string literal, or in JSON with escaped line
// breaks ("\n"). at is an occurrence of "private key" in the lower-cased
// content.
func matchPrivateKey(s *scan, r *rule, order, at, n int) {
	low := s.lower
	ls := bytes.LastIndexByte(low[:at], '\n') + 1
	// The marker is "-----BEGIN <words> PRIVATE KEY[ BLOCK]-----".
	tail := low[at+n:]
	tail = bytes.TrimPrefix(tail, []byte(" block"))
	if !bytes.HasPrefix(tail, []byte("-----")) {
		return
	}
	bodyStart := len(low) - len(tail) + len("-----")
	dash := bytes.LastIndex(low[ls:at], []byte("-----"))
	if dash < 0 {
		return
	}
	dash += ls
	switch word := low[dash+5 : at]; {
	case bytes.HasPrefix(word, []byte("begin ")):
		if !markerWords(word[len("begin "):]) {
			return
		}
	case bytes.HasPrefix(word, []byte("end ")):
		if markerWords(word[len("end "):]) {
			endWithoutBegin(s, r, order, dash)
		}
		return
	default:
		return
	}
	limit := min(len(low), bodyStart+maxKeyBlock)
	if end := bytes.Index(low[bodyStart:limit], []byte("-----end ")); end >= 0 {
		s.add(r.id, order, bodyStart, bodyStart+end)
		return
	}
	// No END line (a block cut short): mask the base64 lines that follow,
	// and the rest of the BEGIN line when it is base64 too.
	start, end := -1, -1
	for i := bodyStart; i < limit; {
		j := bytes.IndexByte(low[i:limit], '\n')
		if j < 0 {
			j = limit - i
		}
		if base64Line(low[i : i+j]) {
			if start < 0 {
				start = i
			}
			end = i + j
		} else if i > bodyStart {
			break
		}
		i += j + 1
	}
	if start >= 0 {
		s.add(r.id, order, start, end)
	}
}

// endWithoutBegin masks the base64 lines before an END marker whose BEGIN
// line is not in the text (a window cut inside a block), unless a block
// already ends there.
func endWithoutBegin(s *scan, r *rule, order, dash int) {
	for _, c := range s.out {
		if c.rule == r.id && c.end == dash {
			return
		}
	}
	start := dash
	for start > 0 {
		ls := bytes.LastIndexByte(s.lower[:start-1], '\n') + 1
		if !base64Line(s.lower[ls : start-1]) {
			break
		}
		start = ls
	}
	if start < dash {
		s.add(r.id, order, start, dash)
	}
}

// markerWords reports whether the words between BEGIN and PRIVATE KEY name
// a key type: none, or upper-case letters, digits and spaces ("RSA",
// "OPENSSH", "EC", "ENCRYPTED", "PGP", "SSH2 ENCRYPTED").
func markerWords(w []byte) bool {
	if len(w) > 24 {
		return false
	}
	for _, c := range w {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == ' ') {
			return false
		}
	}
	return true
}

func hasPrefixFold(b []byte, p string) bool {
	return len(b) >= len(p) && bytes.EqualFold(b[:len(p)], []byte(p))
}

// base64Line reports whether a line, with quotes, string concatenation and
// escaped line breaks around it trimmed, is base64 text or a PEM header
// such as "Proc-Type: 4,ENCRYPTED".
func base64Line(line []byte) bool {
	t := bytes.TrimSpace(line)
	t = bytes.TrimLeft(t, `"'+`+"`")
	t = bytes.TrimRight(t, `"',+;`+"`")
	t = bytes.TrimSuffix(t, []byte(`\n`))
	if len(t) < 16 {
		return false
	}
	if hasPrefixFold(t, "proc-type:") || hasPrefixFold(t, "dek-info:") {
		return true
	}
	for _, c := range t {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// KeyMaterial reports whether b holds a private-key marker or a line of
// base64 text: part of a key block that may reach beyond b, so that a
// window around b must take in the whole block (up to a few KB) to mask
// it as the whole file would be.
func KeyMaterial(b []byte) bool {
	if bytes.Contains(b, []byte("PRIVATE KEY")) {
		return true
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			i = len(b)
		}
		if line := b[:i]; len(line) >= 40 && base64Line(line) {
			return true
		}
		b = b[min(i+1, len(b)):]
	}
	return false
}
