package setup

import (
	"bytes"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ctx-dev/ctx/internal/tomltext"
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
	stmts, err := tomltext.Scan(doc)
	if err != nil {
		return nil, fmt.Errorf("cannot follow its TOML (%v); add [mcp_servers.%s] by hand", err, name)
	}
	path := []string{"mcp_servers", name}
	hdr := slices.IndexFunc(stmts, func(s tomltext.Stmt) bool { return s.Header && !s.Array && slices.Equal(s.Key, path) })
	nl := eol(doc)
	cmdLine := "command = " + tomltext.String(command) + nl
	argsLine := "args = " + tomlArray(args) + nl
	var out []byte
	switch {
	case hdr >= 0:
		out = editTOMLTable(doc, stmts, hdr, cmdLine, argsLine, tomltext.String(command), tomlArray(args))
	case defined:
		return nil, fmt.Errorf("defines mcp_servers.%s without a [mcp_servers.%s] header (as an inline table or dotted keys); make it a table or edit it by hand", name, name)
	default:
		if inlineTOMLTable(stmts, "mcp_servers") {
			// TOML cannot add a [header] table to an inline table, though
			// the library here lets it pass.
			return nil, fmt.Errorf("defines mcp_servers as an inline table, which a [mcp_servers.%s] table cannot extend; make it a table or add ctx by hand", name)
		}
		out = appendBlock(doc, "["+tomltext.Key("mcp_servers")+"."+tomltext.Key(name)+"]\n"+cmdLine+argsLine)
	}
	if err := checkTOMLEdit(before, out, name, command, args); err != nil {
		return nil, err
	}
	return out, nil
}

// editTOMLTable sets command and args in the table whose header is
// stmts[hdr].
func editTOMLTable(doc []byte, stmts []tomltext.Stmt, hdr int, cmdLine, argsLine, cmdVal, argsVal string) []byte {
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	cmdAt, argsAt := -1, -1
	for _, s := range stmts[hdr+1:] {
		if s.Header {
			break
		}
		if len(s.Key) != 1 {
			continue
		}
		switch k := s.Key[0]; {
		case k == "command" && cmdAt < 0:
			edits = append(edits, edit{s.ValStart, s.ValEnd, cmdVal})
			cmdAt = s.End
		case k == "args" && argsAt < 0:
			edits = append(edits, edit{s.ValStart, s.ValEnd, argsVal})
			argsAt = s.End
		case slices.Contains(otherTransportTOML, k):
			edits = append(edits, edit{s.Start, s.End, ""})
		}
	}
	// A header on the file's last line has no line ending to insert after.
	after := stmts[hdr].End
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
func inlineTOMLTable(stmts []tomltext.Stmt, name string) bool {
	var table []string
	for _, s := range stmts {
		if s.Header {
			table = s.Key
			continue
		}
		if len(table)+len(s.Key) == 1 && append(slices.Clone(table), s.Key...)[0] == name {
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

func tomlArray(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = tomltext.String(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
