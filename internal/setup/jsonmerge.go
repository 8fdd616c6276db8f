package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// jsonField is one key of a server entry that ctx owns, with its value
// already encoded.
type jsonField struct {
	key string
	val json.RawMessage
}

// otherTransportKeys describe a server reached over HTTP or SSE. A stdio
// entry must not keep them: clients either reject an entry with both a
// command and a url or pick the url.
var otherTransportKeys = map[string]bool{"url": true, "httpUrl": true, "serverUrl": true, "headers": true}

// mergeJSONServer returns doc with doc[key][name] holding the fields in
// want. The edit is textual: the bytes outside the one entry it replaces or
// inserts stay as they were (other servers, other keys, their order and
// formatting). In an entry that exists already, the keys ctx does not own
// (env, cwd, timeouts, ...) keep their place and value, and keys that
// describe another transport are dropped. When the entry already says what
// want says, doc is returned as it is. An empty doc is a new file.
func mergeJSONServer(doc []byte, key, name string, want []jsonField) ([]byte, error) {
	bom := []byte("\uFEFF")
	if bytes.HasPrefix(doc, bom) {
		out, err := mergeJSONServer(doc[len(bom):], key, name, want)
		if err != nil || bytes.Equal(out, doc[len(bom):]) {
			return doc, err
		}
		return append(bom[:len(bom):len(bom)], out...), nil
	}
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = []byte("{}\n")
	}
	if err := checkJSON(doc); err != nil {
		return nil, err
	}
	start := skipJSONSpace(doc, 0)
	if doc[start] != '{' {
		return nil, errors.New("not a JSON object")
	}
	top, err := parseJSONObject(doc, start)
	if err != nil {
		return nil, err
	}
	unit := indentUnit(doc, top)
	servers, ok := top.last(key)
	if !ok {
		// No servers object yet: add one holding just this entry.
		val := func(prefix string) string {
			return "{\n" + prefix + unit + jsonQuote(name) + ": " + formatJSONObject(mergeEntry(nil, want), prefix+unit, unit) + "\n" + prefix + "}"
		}
		return insertJSONMember(doc, top, key, val, unit), nil
	}
	if doc[servers.valStart] != '{' {
		return nil, fmt.Errorf("%q is not a JSON object", key)
	}
	obj, err := parseJSONObject(doc, servers.valStart)
	if err != nil {
		return nil, err
	}
	entry, ok := obj.last(name)
	if !ok {
		val := func(prefix string) string {
			return formatJSONObject(mergeEntry(nil, want), prefix, unit)
		}
		return insertJSONMember(doc, obj, name, val, unit), nil
	}
	old := doc[entry.valStart:entry.valEnd]
	var have []jsonField
	if old[0] == '{' {
		o, err := parseJSONObject(doc, entry.valStart)
		if err != nil {
			return nil, err
		}
		for _, m := range o.members {
			have = append(have, jsonField{m.name, json.RawMessage(doc[m.valStart:m.valEnd])})
		}
	}
	merged := mergeEntry(have, want)
	if sameJSON(old, []byte(formatJSONObject(merged, "", ""))) {
		return doc, nil
	}
	prefix := lineIndent(doc, obj.open) + unit
	if ownLine(doc, entry.keyStart) {
		prefix = lineIndent(doc, entry.keyStart)
	}
	text := formatJSONObject(merged, prefix, unit)
	return splice(doc, entry.valStart, entry.valEnd, withEOL(text, eol(doc))), nil
}

// mergeEntry returns the entry's fields after setting want: existing keys
// keep their order, ctx's keys take want's values, other transports' keys
// go, and keys of want that were missing follow in want's order.
func mergeEntry(have, want []jsonField) []jsonField {
	wanted := map[string]json.RawMessage{}
	for _, f := range want {
		wanted[f.key] = f.val
	}
	var out []jsonField
	seen := map[string]bool{}
	for _, f := range have {
		switch {
		case seen[f.key]:
			// A duplicate key: keep the first place, drop the repeat.
		case wanted[f.key] != nil:
			out = append(out, jsonField{f.key, wanted[f.key]})
		case f.key == "type":
			// A type other than ours names another transport.
			out = append(out, jsonField{f.key, json.RawMessage(`"stdio"`)})
		case otherTransportKeys[f.key]:
		default:
			out = append(out, f)
		}
		seen[f.key] = true
	}
	for _, f := range want {
		if !seen[f.key] {
			out = append(out, f)
		}
	}
	return out
}

// checkJSON reports whether doc is one valid JSON value, with the line and
// column of the first error.
func checkJSON(doc []byte) error {
	if json.Valid(doc) {
		return nil
	}
	var v any
	err := json.Unmarshal(doc, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(doc, int(se.Offset))
		return fmt.Errorf("not valid JSON at line %d, column %d: %v (ctx setup edits strict JSON: no comments or trailing commas)", line, col, se)
	}
	return fmt.Errorf("not valid JSON: %v", err)
}

func lineCol(doc []byte, off int) (line, col int) {
	off = min(off, len(doc))
	line = 1 + bytes.Count(doc[:off], []byte("\n"))
	col = off - (bytes.LastIndexByte(doc[:off], '\n') + 1)
	return line, max(col, 1)
}

// sameJSON reports whether a and b decode to equal values.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// jsonObject locates an object's braces and members in a document.
type jsonObject struct {
	open, close int
	members     []jsonMember
}

// jsonMember locates one member: its key's opening quote and its value.
type jsonMember struct {
	name             string
	keyStart         int
	valStart, valEnd int
}

// last returns the member named name; with duplicates, the last, which is
// the one JSON parsers keep.
func (o jsonObject) last(name string) (jsonMember, bool) {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].name == name {
			return o.members[i], true
		}
	}
	return jsonMember{}, false
}

// parseJSONObject locates the members of the object that opens at
// doc[open]. doc has passed [checkJSON], so the scan needs no grammar.
func parseJSONObject(doc []byte, open int) (jsonObject, error) {
	o := jsonObject{open: open}
	i := open + 1
	for {
		i = skipJSONSpace(doc, i)
		if i >= len(doc) {
			return o, errors.New("unterminated JSON object")
		}
		switch doc[i] {
		case '}':
			o.close = i
			return o, nil
		case ',':
			i++
			continue
		}
		ks := i
		ke := skipJSONValue(doc, ks)
		var m jsonMember
		if err := json.Unmarshal(doc[ks:ke], &m.name); err != nil {
			return o, fmt.Errorf("JSON object key at offset %d: %v", ks, err)
		}
		i = skipJSONSpace(doc, ke)
		if i >= len(doc) || doc[i] != ':' {
			return o, fmt.Errorf("JSON object key at offset %d: no colon", ks)
		}
		m.keyStart = ks
		m.valStart = skipJSONSpace(doc, i+1)
		m.valEnd = skipJSONValue(doc, m.valStart)
		o.members = append(o.members, m)
		i = m.valEnd
	}
}

func skipJSONSpace(doc []byte, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\n' || doc[i] == '\r') {
		i++
	}
	return i
}

// skipJSONValue returns the offset just after the value at doc[i].
func skipJSONValue(doc []byte, i int) int {
	if i >= len(doc) {
		return i
	}
	switch doc[i] {
	case '"':
		for j := i + 1; j < len(doc); j++ {
			switch doc[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(doc)
	case '{', '[':
		depth := 0
		for j := i; j < len(doc); j++ {
			switch doc[j] {
			case '"':
				j = skipJSONValue(doc, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(doc)
	}
	j := i
	for j < len(doc) && !strings.ContainsRune(",}] \t\r\n", rune(doc[j])) {
		j++
	}
	return j
}

// insertJSONMember adds "name": val as the last member of obj. val gets the
// indentation of the member's line and returns the value's text.
func insertJSONMember(doc []byte, obj jsonObject, name string, val func(prefix string) string, unit string) []byte {
	nl := eol(doc)
	outer := lineIndent(doc, obj.open)
	if len(obj.members) == 0 {
		prefix := outer + unit
		text := "{\n" + prefix + jsonQuote(name) + ": " + val(prefix) + "\n" + outer + "}"
		return splice(doc, obj.open, obj.close+1, withEOL(text, nl))
	}
	lastm := obj.members[len(obj.members)-1]
	prefix := outer + unit
	if ownLine(doc, lastm.keyStart) {
		prefix = lineIndent(doc, lastm.keyStart)
	}
	text := ",\n" + prefix + jsonQuote(name) + ": " + val(prefix)
	return splice(doc, lastm.valEnd, lastm.valEnd, withEOL(text, nl))
}

// formatJSONObject writes fields as an indented object whose closing brace
// is at prefix and whose members are one unit deeper. An empty unit writes
// it compact.
func formatJSONObject(fields []jsonField, prefix, unit string) string {
	if len(fields) == 0 {
		return "{}"
	}
	var b strings.Builder
	b.WriteString("{")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(",")
		}
		if unit != "" {
			b.WriteString("\n" + prefix + unit)
		}
		b.WriteString(jsonQuote(f.key) + ":")
		if unit != "" {
			b.WriteString(" ")
		}
		var compact, indented bytes.Buffer
		if err := json.Compact(&compact, f.val); err != nil {
			// Values come from a validated document or from json.Marshal.
			panic(fmt.Sprintf("setup: invalid JSON value for %q: %v", f.key, err))
		}
		if unit == "" {
			indented = compact
		} else if err := json.Indent(&indented, compact.Bytes(), prefix+unit, unit); err != nil {
			panic(fmt.Sprintf("setup: indenting %q: %v", f.key, err))
		}
		b.Write(indented.Bytes())
	}
	if unit != "" {
		b.WriteString("\n" + prefix)
	}
	b.WriteString("}")
	return b.String()
}

// jsonQuote encodes s as a JSON string without HTML escaping.
func jsonQuote(s string) string {
	return string(jsonValue(s))
}

// jsonValue encodes v without HTML escaping (paths may hold '&').
func jsonValue(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("setup: encoding %v: %v", v, err))
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// indentUnit is one level of the document's indentation: that of the top
// object's first member when it sits on its own line, else two spaces.
func indentUnit(doc []byte, top jsonObject) string {
	if len(top.members) > 0 && ownLine(doc, top.members[0].keyStart) {
		if u := strings.TrimPrefix(lineIndent(doc, top.members[0].keyStart), lineIndent(doc, top.open)); u != "" {
			return u
		}
	}
	return "  "
}
