package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DefaultMaxMessageBytes bounds one JSON-RPC message: a line of `ctx mcp`
// (stdio) or a POST body of `ctx serve`. Tool calls are a few hundred
// bytes; 4 MiB leaves room for any argument a client sends while keeping
// a runaway client from growing the server without bound.
const DefaultMaxMessageBytes = 4 << 20

// maxNesting is the deepest nesting of objects and arrays a message may
// have. MCP messages nest a handful of levels; a deeper one is refused
// before any decoder recurses into it.
const maxNesting = 100

// codeServerBusy is the JSON-RPC error code of a request refused because
// the server is at a limit (the implementation-defined server error
// range of JSON-RPC 2.0).
const codeServerBusy = -32000

// rejection is why a message was refused, as the JSON-RPC error reply
// that says so.
type rejection struct {
	code int64
	msg  string
	// id is the request's id as it was sent (a string or a number), or
	// nil when the message had none that could be echoed.
	id json.RawMessage
}

func (r *rejection) Error() string { return r.msg }

// reply encodes the error response for r, without a trailing newline.
func (r *rejection) reply() []byte {
	id := r.id
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: r.code, Message: r.msg}})
	if err != nil {
		// Unreachable: id is a validated JSON string or number.
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%q}}`, r.code, r.msg)
	}
	return b
}

func parseError(format string, args ...any) *rejection {
	return &rejection{code: jsonrpc.CodeParseError, msg: "parse error: " + fmt.Sprintf(format, args...)}
}

func invalidRequest(id json.RawMessage, format string, args ...any) *rejection {
	return &rejection{code: jsonrpc.CodeInvalidRequest, msg: "invalid request: " + fmt.Sprintf(format, args...), id: id}
}

// checkMessage decodes one JSON-RPC 2.0 message (a request, a
// notification or a response), or says why it is not one:
//
//   - parse error (-32700, id null): not UTF-8, not one JSON value;
//   - invalid request (-32600): a batch (an array: MCP dropped batches in
//     2025-06-18), not an object, a member named twice, "jsonrpc" other
//     than "2.0", an id that is not a string or an integer of at most
//     2^53 in magnitude (MCP forbids null ids), a method that is not a
//     string, params that are not an object or array, a response without
//     an id or without exactly one of result and error, nesting deeper
//     than [maxNesting]. The reply echoes the id when it is a string or a
//     number, else it is null.
//
// What it accepts, the SDK's own decoder accepts too, and the message
// returned is what that decoder makes of data (see buildMessage), so a
// connection that passes it on can never be closed by a decoding error.
func checkMessage(data []byte) (jsonrpc.Message, *rejection) {
	if !utf8.Valid(data) {
		return nil, parseError("the message is not valid UTF-8")
	}
	if !json.Valid(data) {
		return nil, parseError("the message is not one JSON value")
	}
	data = bytes.TrimLeft(data, " \t\r\n")
	switch data[0] {
	case '{':
	case '[':
		if bytes.Equal(bytes.TrimRight(data[1:], " \t\r\n"), []byte("]")) {
			return nil, invalidRequest(nil, "an empty batch")
		}
		return nil, invalidRequest(nil, "JSON-RPC batches are not supported; send one message at a time")
	default:
		return nil, invalidRequest(nil, "the message is not a JSON-RPC object")
	}
	members, rej := objectMembers(data)
	if rej != nil {
		return nil, rej
	}
	var id json.RawMessage
	if raw, ok := members["id"]; ok {
		switch raw[0] {
		case '"':
			id = raw
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			id = raw
			if !exactInteger(raw) {
				return nil, invalidRequest(id, "id %s is not an integer of at most 2^53 in magnitude", raw)
			}
		default:
			return nil, invalidRequest(nil, "id must be a string or a number, not %s", kind(raw))
		}
	}
	if d := nesting(data); d > maxNesting {
		return nil, invalidRequest(id, "the message nests %d levels deep, more than %d", d, maxNesting)
	}
	var version string
	if raw, ok := members["jsonrpc"]; !ok || json.Unmarshal(raw, &version) != nil || version != "2.0" {
		return nil, invalidRequest(id, `"jsonrpc" must be "2.0"`)
	}
	method, isRequest := members["method"]
	if isRequest {
		if method[0] != '"' {
			return nil, invalidRequest(id, "method must be a string, not %s", kind(method))
		}
		if p, ok := members["params"]; ok && p[0] != '{' && p[0] != '[' && p[0] != 'n' {
			return nil, invalidRequest(id, "params must be an object or an array, not %s", kind(p))
		}
	} else {
		_, hasResult := members["result"]
		_, hasError := members["error"]
		switch {
		case id == nil:
			return nil, invalidRequest(nil, "no method and no id: neither a request nor a response")
		case hasResult == hasError:
			return nil, invalidRequest(id, "a response needs exactly one of result and error")
		case hasError && members["error"][0] != '{':
			return nil, invalidRequest(id, "error must be an object, not %s", kind(members["error"]))
		}
	}
	return buildMessage(members, id, method, isRequest)
}

// buildMessage makes the message from the members checkMessage has
// vetted, as [jsonrpc.DecodeMessage] would from the whole message, but
// without decoding it a second time: only the id, the method and the
// error of a response are decoded; params and result stay raw.
func buildMessage(members map[string]json.RawMessage, id, method json.RawMessage, isRequest bool) (jsonrpc.Message, *rejection) {
	var v any // nil, a string, or a float64 that holds an integer exactly
	if id != nil {
		if err := json.Unmarshal(id, &v); err != nil {
			return nil, invalidRequest(id, "id: %v", err)
		}
	}
	jid, err := jsonrpc.MakeID(v)
	if err != nil {
		return nil, invalidRequest(id, "%v", err)
	}
	if isRequest {
		var name string
		if err := json.Unmarshal(method, &name); err != nil {
			return nil, invalidRequest(id, "method: %v", err)
		}
		return &jsonrpc.Request{ID: jid, Method: name, Params: members["params"]}, nil
	}
	resp := &jsonrpc.Response{ID: jid, Result: members["result"]}
	if raw, ok := members["error"]; ok {
		e := new(jsonrpc.Error)
		if err := json.Unmarshal(raw, e); err != nil {
			return nil, invalidRequest(id, "error: %v", err)
		}
		resp.Error = e
	}
	return resp, nil
}

// objectMembers splits a JSON object (data is valid JSON starting with
// '{') into its members, by exact name, refusing a name given twice.
func objectMembers(data []byte) (map[string]json.RawMessage, *rejection) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return nil, parseError("%v", err)
	}
	members := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, parseError("%v", err)
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, parseError("%v", err)
		}
		if _, dup := members[name]; dup {
			// Echo the id unless it is the member named twice: then
			// there is no telling which one the client meant.
			var id json.RawMessage
			if raw := members["id"]; name != "id" && len(raw) > 0 && (raw[0] == '"' || raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
				id = raw
			}
			return nil, invalidRequest(id, "member %q appears twice", name)
		}
		members[name] = v
	}
	if _, err := dec.Token(); err != nil && err != io.EOF { // }
		return nil, parseError("%v", err)
	}
	return members, nil
}

// exactInteger reports whether a JSON number is an integer that a
// float64 holds exactly, so the id of the reply equals the request's.
func exactInteger(raw []byte) bool {
	f, err := strconv.ParseFloat(string(raw), 64)
	return err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53
}

// nesting is how deep objects and arrays nest in valid JSON.
func nesting(data []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			depth++
			deepest = max(deepest, depth)
		case b == '}' || b == ']':
			depth--
		}
	}
	return deepest
}

// kind names the JSON type of a valid value, for messages.
func kind(raw json.RawMessage) string {
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
