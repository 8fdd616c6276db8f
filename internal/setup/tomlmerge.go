package setup

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// otherTransportTOML are the keys of a Codex server reached over HTTP.
// Codex refuses an entry that mixes them with command.
var otherTransportTOML = []string{"url", "bearer_token", "bearer_token_env_var", "http_headers", "env_http_headers"}

// mergeTOMLServer returns doc with the table [mcp_servers.<name>] holding
// command and args. A TOML library round trip would drop the user's
// comments and reorder their keys, so the edit is textual: inside an
// existing table only the command and args values are replaced (their keys'
// comments stay) and other transports' keys are removed; a missing table is
// appended at the end. The result must parse and differ from doc in those
// keys alone, or it is an error and doc is left as it was.
func mergeTOMLServer(doc []byte, name, command string, args []string) ([]byte, error) {
	before := map[string]any{}
	if err := toml.Unmarshal(doc, &before); err != nil {
		return nil, fmt.Errorf("not valid TOML: %v", err)
	}
	cur, defined := tomlTable(before, "mcp_servers", name)
	if defined && tomlSays(cur, command, args) {
		return doc, nil
	}
	stmts, err := scanTOML(doc)
	if err != nil {
		return nil, fmt.Errorf("cannot follow its TOML (%v); add [mcp_servers.%s] by hand", err, name)
	}
	path := []string{"mcp_servers", name}
	hdr := slices.IndexFunc(stmts, func(s tomlStmt) bool { return s.header && !s.array && slices.Equal(s.key, path) })
	nl := eol(doc)
	cmdLine := "command = " + tomlString(command) + nl
	argsLine := "args = " + tomlArray(args) + nl
	var out []byte
	switch {
	case hdr >= 0:
		out = editTOMLTable(doc, stmts, hdr, cmdLine, argsLine, tomlString(command), tomlArray(args))
	case defined:
		return nil, fmt.Errorf("defines mcp_servers.%s without a [mcp_servers.%s] header (as an inline table or dotted keys); make it a table or edit it by hand", name, name)
	default:
		if inlineTOMLTable(stmts, "mcp_servers") {
			// TOML cannot add a [header] table to an inline table, though
			// the library here lets it pass.
			return nil, fmt.Errorf("defines mcp_servers as an inline table, which a [mcp_servers.%s] table cannot extend; make it a table or add ctx by hand", name)
		}
		out = appendBlock(doc, "["+tomlKey("mcp_servers")+"."+tomlKey(name)+"]\n"+cmdLine+argsLine)
	}
	if err := checkTOMLEdit(before, out, name, command, args); err != nil {
		return nil, err
	}
	return out, nil
}

// editTOMLTable sets command and args in the table whose header is
// stmts[hdr].
func editTOMLTable(doc []byte, stmts []tomlStmt, hdr int, cmdLine, argsLine, cmdVal, argsVal string) []byte {
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	cmdAt, argsAt := -1, -1
	for _, s := range stmts[hdr+1:] {
		if s.header {
			break
		}
		if len(s.key) != 1 {
			continue
		}
		switch k := s.key[0]; {
		case k == "command" && cmdAt < 0:
			edits = append(edits, edit{s.valStart, s.valEnd, cmdVal})
			cmdAt = s.end
		case k == "args" && argsAt < 0:
			edits = append(edits, edit{s.valStart, s.valEnd, argsVal})
			argsAt = s.end
		case slices.Contains(otherTransportTOML, k):
			edits = append(edits, edit{s.start, s.end, ""})
		}
	}
	// A header on the file's last line has no line ending to insert after.
	after := stmts[hdr].end
	lead := ""
	if after == len(doc) && !bytes.HasSuffix(doc, []byte("\n")) {
		lead = eol(doc)
	}
	switch {
	case cmdAt < 0 && argsAt < 0:
		edits = append(edits, edit{after, after, lead + cmdLine + argsLine})
	case cmdAt < 0:
		edits = append(edits, edit{after, after, lead + cmdLine})
	case argsAt < 0:
		if cmdAt == len(doc) && !bytes.HasSuffix(doc, []byte("\n")) {
			argsLine = eol(doc) + argsLine
		}
		edits = append(edits, edit{cmdAt, cmdAt, argsLine})
	}
	// By offset; an insertion goes before a removal that starts where it
	// does (args after command, then the url line after it goes).
	slices.SortStableFunc(edits, func(a, b edit) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return (a.end - a.start) - (b.end - b.start)
	})
	out := make([]byte, 0, len(doc)+len(cmdLine)+len(argsLine))
	at := 0
	for _, e := range edits {
		out = append(out, doc[at:e.start]...)
		out = append(out, e.text...)
		at = e.end
	}
	return append(out, doc[at:]...)
}

// checkTOMLEdit parses the edited document and verifies that it sets the
// server's command and args and changes nothing else.
func checkTOMLEdit(before map[string]any, out []byte, name, command string, args []string) error {
	after := map[string]any{}
	if err := toml.Unmarshal(out, &after); err != nil {
		return fmt.Errorf("adding [mcp_servers.%s] would make it invalid TOML (%v); add it by hand", name, err)
	}
	cur, _ := tomlTable(after, "mcp_servers", name)
	if !tomlSays(cur, command, args) {
		return fmt.Errorf("could not set [mcp_servers.%s] command and args in it; add them by hand", name)
	}
	if !reflect.DeepEqual(withoutOwned(before, name), withoutOwned(after, name)) {
		return fmt.Errorf("setting [mcp_servers.%s] would change other settings in it; add it by hand", name)
	}
	return nil
}

// inlineTOMLTable reports whether a key/value statement defines the
// top-level key name (as an inline table, or anything but a table).
func inlineTOMLTable(stmts []tomlStmt, name string) bool {
	var table []string
	for _, s := range stmts {
		if s.header {
			table = s.key
			continue
		}
		if len(table)+len(s.key) == 1 && append(slices.Clone(table), s.key...)[0] == name {
			return true
		}
	}
	return false
}

// tomlTable returns doc[a][b] as a table (nil if it is something else)
// and whether doc defines it at all.
func tomlTable(doc map[string]any, a, b string) (map[string]any, bool) {
	outer, ok := doc[a].(map[string]any)
	if !ok {
		return nil, false
	}
	inner, ok := outer[b]
	if !ok {
		return nil, false
	}
	t, _ := inner.(map[string]any)
	return t, true
}

// tomlSays reports whether a server table already has command and args and
// no keys of another transport.
func tomlSays(t map[string]any, command string, args []string) bool {
	if t == nil || t["command"] != command {
		return false
	}
	have, ok := t["args"].([]any)
	if !ok || len(have) != len(args) {
		return false
	}
	for i, a := range args {
		if have[i] != a {
			return false
		}
	}
	for _, k := range otherTransportTOML {
		if _, ok := t[k]; ok {
			return false
		}
	}
	return true
}

// withoutOwned returns a copy of doc without the keys that setup may set
// or remove in [mcp_servers.<name>], dropping tables that are left empty.
func withoutOwned(doc map[string]any, name string) map[string]any {
	out := maps.Clone(doc)
	servers, ok := out["mcp_servers"].(map[string]any)
	if !ok {
		return out
	}
	servers = maps.Clone(servers)
	if t, ok := servers[name].(map[string]any); ok {
		t = maps.Clone(t)
		for _, k := range append([]string{"command", "args"}, otherTransportTOML...) {
			delete(t, k)
		}
		servers[name] = t
		if len(t) == 0 {
			delete(servers, name)
		}
	}
	out["mcp_servers"] = servers
	if len(servers) == 0 {
		delete(out, "mcp_servers")
	}
	return out
}

// tomlString encodes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlArray(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = tomlString(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// tomlKey writes k bare when TOML allows it, else quoted.
func tomlKey(k string) string {
	if k != "" && strings.Trim(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == "" {
		return k
	}
	return tomlString(k)
}

// tomlStmt is one header or key/value line of a TOML document.
type tomlStmt struct {
	header bool // [table] or [[array]]
	array  bool // [[array]]
	key    []string
	// start is the offset of the statement's line; end is just after its
	// line ending (or the end of the document).
	start, end int
	// valStart and valEnd hold a key/value statement's value.
	valStart, valEnd int
}

// scanTOML splits doc into headers and key/value statements, far enough to
// know which table each key belongs to and where values start and end:
// strings of all four kinds, multi-line arrays and inline tables, comments.
// It checks little else; the library does that before and after the edit.
func scanTOML(doc []byte) ([]tomlStmt, error) {
	var out []tomlStmt
	i := 0
	for i < len(doc) {
		start := i
		i = skipTOMLBlank(doc, i)
		if i >= len(doc) {
			break
		}
		switch doc[i] {
		case '\n':
			i++
			continue
		case '\r', '#':
			j, err := endTOMLLine(doc, i)
			if err != nil {
				return nil, err
			}
			i = j
			continue
		}
		s := tomlStmt{start: start}
		var err error
		if doc[i] == '[' {
			s.header = true
			i++
			if i < len(doc) && doc[i] == '[' {
				s.array = true
				i++
			}
			if s.key, i, err = scanTOMLKey(doc, i); err != nil {
				return nil, err
			}
			close := "]"
			if s.array {
				close = "]]"
			}
			if !bytes.HasPrefix(doc[i:], []byte(close)) {
				return nil, tomlErr(doc, i, "header without "+close)
			}
			i += len(close)
		} else {
			if s.key, i, err = scanTOMLKey(doc, i); err != nil {
				return nil, err
			}
			if i >= len(doc) || doc[i] != '=' {
				return nil, tomlErr(doc, i, "key without '='")
			}
			s.valStart = skipTOMLBlank(doc, i+1)
			if s.valEnd, err = skipTOMLValue(doc, s.valStart); err != nil {
				return nil, err
			}
			i = s.valEnd
		}
		if s.end, err = endTOMLLine(doc, i); err != nil {
			return nil, err
		}
		i = s.end
		out = append(out, s)
	}
	return out, nil
}

func tomlErr(doc []byte, off int, msg string) error {
	line, _ := lineCol(doc, off)
	return fmt.Errorf("line %d: %s", line, msg)
}

func skipTOMLBlank(doc []byte, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t') {
		i++
	}
	return i
}

// endTOMLLine skips blanks and a comment and returns the offset after the
// line ending.
func endTOMLLine(doc []byte, i int) (int, error) {
	i = skipTOMLBlank(doc, i)
	if i < len(doc) && doc[i] == '#' {
		for i < len(doc) && doc[i] != '\n' && doc[i] != '\r' {
			i++
		}
	}
	switch {
	case i >= len(doc):
		return i, nil
	case doc[i] == '\n':
		return i + 1, nil
	case doc[i] == '\r' && i+1 < len(doc) && doc[i+1] == '\n':
		return i + 2, nil
	}
	return 0, tomlErr(doc, i, fmt.Sprintf("unexpected %q", doc[i]))
}

// scanTOMLKey reads a dotted key of bare and quoted parts and the blanks
// after it.
func scanTOMLKey(doc []byte, i int) ([]string, int, error) {
	var key []string
	for {
		i = skipTOMLBlank(doc, i)
		if i >= len(doc) {
			return nil, i, tomlErr(doc, i, "key expected")
		}
		switch doc[i] {
		case '"', '\'':
			j, err := skipTOMLString(doc, i)
			if err != nil {
				return nil, i, err
			}
			part := string(doc[i+1 : j-1])
			if doc[i] == '"' {
				if part, err = strconv.Unquote(string(doc[i:j])); err != nil {
					return nil, i, tomlErr(doc, i, "quoted key: "+err.Error())
				}
			}
			key = append(key, part)
			i = j
		default:
			j := i
			for j < len(doc) && (doc[j] == '_' || doc[j] == '-' || '0' <= doc[j] && doc[j] <= '9' || 'a' <= doc[j]|0x20 && doc[j]|0x20 <= 'z') {
				j++
			}
			if j == i {
				return nil, i, tomlErr(doc, i, fmt.Sprintf("unexpected %q in a key", doc[i]))
			}
			key = append(key, string(doc[i:j]))
			i = j
		}
		i = skipTOMLBlank(doc, i)
		if i >= len(doc) || doc[i] != '.' {
			return key, i, nil
		}
		i++
	}
}

// skipTOMLString returns the offset after the string that opens at doc[i]:
// basic or literal, single- or multi-line.
func skipTOMLString(doc []byte, i int) (int, error) {
	q := doc[i]
	triple := bytes.Repeat([]byte{q}, 3)
	if bytes.HasPrefix(doc[i:], triple) {
		for j := i + 3; j < len(doc); j++ {
			if q == '"' && doc[j] == '\\' {
				j++
				continue
			}
			if bytes.HasPrefix(doc[j:], triple) {
				j += 3
				// Up to two quotes may end the content right before the
				// closing delimiter.
				for k := 0; k < 2 && j < len(doc) && doc[j] == q; k++ {
					j++
				}
				return j, nil
			}
		}
		return 0, tomlErr(doc, i, "unterminated multi-line string")
	}
	for j := i + 1; j < len(doc); j++ {
		switch {
		case q == '"' && doc[j] == '\\':
			j++
		case doc[j] == q:
			return j + 1, nil
		case doc[j] == '\n':
			return 0, tomlErr(doc, i, "unterminated string")
		}
	}
	return 0, tomlErr(doc, i, "unterminated string")
}

// skipTOMLValue returns the offset after the value that starts at doc[i]
// on a key/value line.
func skipTOMLValue(doc []byte, i int) (int, error) {
	if i >= len(doc) {
		return 0, tomlErr(doc, i, "value expected")
	}
	switch doc[i] {
	case '"', '\'':
		return skipTOMLString(doc, i)
	case '[', '{':
		depth := 0
		for j := i; j < len(doc); j++ {
			switch doc[j] {
			case '"', '\'':
				k, err := skipTOMLString(doc, j)
				if err != nil {
					return 0, err
				}
				j = k - 1
			case '#':
				for j < len(doc) && doc[j] != '\n' {
					j++
				}
			case '[', '{':
				depth++
			case ']', '}':
				if depth--; depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, tomlErr(doc, i, "unterminated array or inline table")
	}
	// A number, boolean or date-time, which may hold a space
	// (1979-05-27 07:32:00): the rest of the line up to a comment.
	j := i
	for j < len(doc) && doc[j] != '#' && doc[j] != '\n' && doc[j] != '\r' {
		j++
	}
	for j > i && (doc[j-1] == ' ' || doc[j-1] == '\t') {
		j--
	}
	if j == i {
		return 0, errors.New("value expected")
	}
	return j, nil
}
