package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport is an [mcp.Transport] for newline-delimited JSON-RPC on
// a reader and a writer (stdin and stdout under `ctx mcp`) that keeps
// serving whatever a client sends. The SDK's own stdio transport ends the
// session on the first line it cannot decode, and with it the reply of
// any call in flight; this one answers each bad line instead and goes on:
//
//   - a line that is not one JSON value (or not UTF-8) gets a parse error
//     (-32700, id null);
//   - well-formed JSON that is not a JSON-RPC 2.0 message gets an invalid
//     request error (-32600) that echoes the id when it is a string or a
//     number (see checkMessage for the rules);
//   - a line longer than MaxLineBytes gets an invalid request error
//     (id null) and is skipped without being held in memory;
//   - a call whose id is already in flight gets an invalid request error
//     (id null, so the reply cannot be taken for the first call's);
//   - blank lines are ignored.
//
// Valid requests, notifications and responses go to the SDK unchanged.
// Error replies are written under the same lock as the server's own
// messages, so lines never interleave. When the reader ends (stdin
// closed), the connection waits until every call already read has been
// answered before it reports the end, so no reply in flight is lost.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxLineBytes bounds one line, its newline excluded; 0 means
	// [DefaultMaxMessageBytes].
	MaxLineBytes int
	// Logger receives a debug record for each refused line; nil discards
	// them.
	Logger *slog.Logger
}

var _ mcp.Transport = (*StdioTransport)(nil)

// Connect implements [mcp.Transport]. It starts the goroutine that reads
// lines; it ends when the reader does or the connection is closed (a
// reader that is an [io.Closer] is closed with the connection, which
// unblocks it).
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxLineBytes
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	log := t.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &stdioConn{
		r:        t.Reader,
		w:        t.Writer,
		limit:    limit,
		log:      log,
		incoming: make(chan jsonrpc.Message),
		closed:   make(chan struct{}),
		pending:  map[jsonrpc.ID]struct{}{},
		ended:    make(chan struct{}),
	}
	go c.readLoop()
	return c, nil
}

type stdioConn struct {
	r     io.Reader
	w     io.Writer
	limit int
	log   *slog.Logger

	// incoming carries valid messages from readLoop to Read; it is
	// never closed: readLoop closes ended instead.
	incoming chan jsonrpc.Message

	writeMu sync.Mutex // guards writes to w, so lines never interleave

	mu      sync.Mutex              // guards pending, drained and readErr
	pending map[jsonrpc.ID]struct{} // calls read and not yet answered
	drained chan struct{}           // closed when pending empties, if Read waits for that
	readErr error                   // why readLoop ended: io.EOF, or the reader's or a write's error

	ended chan struct{} // closed when readLoop has ended and set readErr

	closeOnce sync.Once
	closed    chan struct{}
}

// readLoop reads lines until the reader ends or the connection closes,
// answers the bad ones and passes the good ones to Read.
func (c *stdioConn) readLoop() {
	err := c.scan()
	c.mu.Lock()
	c.readErr = err
	c.mu.Unlock()
	close(c.ended)
}

func (c *stdioConn) scan() error {
	br := bufio.NewReaderSize(c.r, 64<<10)
	for {
		// Each line gets its own buffer: the message decoded from it
		// travels on to the SDK's goroutines.
		line, tooLong, err := readBoundedLine(br, c.limit)
		if len(line) > 0 || tooLong {
			if werr := c.handleLine(line, tooLong); werr != nil {
				return werr
			}
		}
		if err != nil {
			return err
		}
		select {
		case <-c.closed:
			return io.EOF
		default:
		}
	}
}

// readBoundedLine reads the next line of br, without its "\n" or
// "\r\n", into a new buffer. A line longer than limit is read to its end
// and dropped: the result is then nil and tooLong. err is the reader's
// error, io.EOF at the end (a last line without a newline is still
// returned).
func readBoundedLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > limit+2 { // room for "\r\n"
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		if len(buf) > limit {
			return nil, true, err
		}
		return buf, false, err
	}
}

// handleLine checks one line: a bad one is answered here, a good one is
// handed to Read. It returns an error only when the connection must end.
func (c *stdioConn) handleLine(line []byte, tooLong bool) error {
	if !tooLong && len(bytes.Trim(line, " \t\r")) == 0 {
		return nil
	}
	var msg jsonrpc.Message
	var rej *rejection
	if tooLong {
		rej = invalidRequest(nil, "the line is longer than %d bytes", c.limit)
	} else {
		msg, rej = checkMessage(line)
	}
	if rej == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.mu.Lock()
			_, busy := c.pending[req.ID]
			if !busy {
				c.pending[req.ID] = struct{}{}
			}
			c.mu.Unlock()
			if busy {
				rej = invalidRequest(nil, "request id %v is already in use by a call in flight", req.ID.Raw())
			}
		}
	}
	if rej != nil {
		c.log.Debug("refused a message", "code", rej.code, "error", rej.msg)
		return c.writeLine(rej.reply())
	}
	select {
	case c.incoming <- msg:
		return nil
	case <-c.closed:
		return io.EOF
	}
}

// Read implements [mcp.Connection]. After the reader's end it returns
// io.EOF (or the reader's error) once every call it passed on has been
// answered.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		return msg, nil
	case <-c.ended:
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for {
		c.mu.Lock()
		if len(c.pending) == 0 {
			err := c.readErr
			c.mu.Unlock()
			return nil, err
		}
		if c.drained == nil {
			c.drained = make(chan struct{})
		}
		drained := c.drained
		c.mu.Unlock()
		select {
		case <-drained:
		case <-c.closed:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Write implements [mcp.Connection].
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %v", err)
	}
	err = c.writeLine(data)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, resp.ID)
		if len(c.pending) == 0 && c.drained != nil {
			close(c.drained)
			c.drained = nil
		}
		c.mu.Unlock()
	}
	return err
}

// writeLine writes data and a newline as one write.
func (c *stdioConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(append(data, '\n'))
	return err
}

// Close implements [mcp.Connection].
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		if rc, ok := c.r.(io.Closer); ok {
			rc.Close()
		}
	})
	return nil
}

// SessionID implements [mcp.Connection]: a stdio connection has no
// session id.
func (c *stdioConn) SessionID() string { return "" }

// RunStdio serves one MCP session over newline-delimited JSON-RPC on in
// and out (stdin and stdout under `ctx mcp`; see [StdioTransport]) until
// in ends, with every call read answered, or ctx is done. Neither end is
// an error.
func (s *Server) RunStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	err := s.mcp.Run(ctx, &StdioTransport{Reader: in, Writer: out, Logger: s.log})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
