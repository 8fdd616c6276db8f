package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSON-RPC 2.0 error codes (https://www.jsonrpc.org/specification#error_object).
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// DefaultMaxLineBytes bounds one message of [LineTransport]: 4 MiB, far
// above any MCP request a client sends (the query itself is capped much
// lower), so a runaway client cannot make the server buffer without end.
const DefaultMaxLineBytes = 4 << 20

// LineTransport serves MCP over newline-delimited JSON-RPC 2.0 on a reader
// and a writer (the stdio transport of the MCP specification) and answers
// a line that is not a valid message itself, then goes on reading: a parse
// error (-32700, id null) for bytes that are not JSON or not UTF-8, an
// invalid request (-32600, the line's id when it is a string or number,
// else null) for JSON that is not a JSON-RPC 2.0 request, notification or
// response (a batch array, a bare value, "jsonrpc" other than "2.0", an
// object or array as id, no method), and for a line longer than MaxLine
// bytes. The SDK's own stdio transport ends the session on such a line.
type LineTransport struct {
	In  io.Reader
	Out io.Writer
	// MaxLine is the longest line in bytes; 0 means DefaultMaxLineBytes.
	MaxLine int
}

var _ mcp.Transport = (*LineTransport)(nil)

// Connect starts reading In; the connection's Read returns the next valid
// message, or io.EOF when In ends.
func (t *LineTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	max := t.MaxLine
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	c := &lineConn{w: t.Out, msgs: make(chan lineRead), done: make(chan struct{})}
	go c.readLoop(bufio.NewReaderSize(t.In, 64<<10), max)
	return c, nil
}

type lineRead struct {
	msg jsonrpc.Message
	err error
}

type lineConn struct {
	wmu sync.Mutex // guards w: replies and error answers never interleave
	w   io.Writer

	msgs      chan lineRead
	done      chan struct{}
	closeOnce sync.Once
}

func (c *lineConn) SessionID() string { return "" }

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case r := <-c.msgs:
		return r.msg, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.done:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a reply: %w", err)
	}
	return c.writeLine(data)
}

func (c *lineConn) writeLine(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("writing a reply: %w", err)
	}
	return nil
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.done) })
	return nil
}

// readLoop reads lines until In ends, handing valid messages to Read and
// answering the others.
func (c *lineConn) readLoop(r *bufio.Reader, max int) {
	deliver := func(m lineRead) bool {
		select {
		case c.msgs <- m:
			return true
		case <-c.done:
			return false
		}
	}
	for {
		line, tooLong, err := readLine(r, max)
		if tooLong {
			c.answer(nil, codeInvalidRequest, fmt.Sprintf("message longer than %d bytes", max))
		} else if len(bytes.TrimSpace(line)) > 0 {
			if msg, id, code, why := checkLine(line); code != 0 {
				c.answer(id, code, why)
			} else if !deliver(lineRead{msg: msg}) {
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			deliver(lineRead{err: err})
			return
		}
	}
}

// readLine returns the next line without its newline; a line over max
// bytes is read to its end and dropped (tooLong).
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		part, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(part) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, part...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// checkLine decodes one line, or says why it is not a JSON-RPC 2.0
// message: the error code, and the id to answer with when the line has a
// usable one.
func checkLine(line []byte) (msg jsonrpc.Message, id json.RawMessage, code int, why string) {
	if !utf8.Valid(line) {
		return nil, nil, codeParseError, "parse error: the message is not UTF-8"
	}
	if !json.Valid(line) {
		return nil, nil, codeParseError, "parse error: the message is not JSON"
	}
	switch bytes.TrimSpace(line)[0] {
	case '{':
	case '[':
		return nil, nil, codeInvalidRequest, "invalid request: batches are not supported; send one message per line"
	default:
		return nil, nil, codeInvalidRequest, "invalid request: a message is a JSON object"
	}
	var head struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return nil, nil, codeInvalidRequest, "invalid request: " + err.Error()
	}
	if len(head.ID) > 0 {
		switch bytes.TrimSpace(head.ID)[0] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			id = head.ID
		case 'n': // null
		default:
			return nil, nil, codeInvalidRequest, "invalid request: id must be a string or a number"
		}
	}
	if head.JSONRPC == nil || *head.JSONRPC != "2.0" {
		return nil, id, codeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`
	}
	if head.Method == nil && head.Result == nil && head.Error == nil {
		return nil, id, codeInvalidRequest, "invalid request: no method"
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, id, codeInvalidRequest, "invalid request: " + err.Error()
	}
	return msg, nil, 0, ""
}

// answer writes a JSON-RPC error response for a line that was not a
// valid message.
func (c *lineConn) answer(id json.RawMessage, code int, why string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, why}})
	if err == nil {
		_ = c.writeLine(b)
	}
}
