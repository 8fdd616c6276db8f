// Package sse reads server-sent events (the text/event-stream format of
// the HTML Living Standard, section 9.2), as LLM providers stream their
// answers.
//
// A stream is lines ended by LF, CRLF or a lone CR. A line "event: x"
// names the event, "data: y" appends y (and a newline between lines) to
// its data, a line starting with ":" is a comment (a keep-alive), and an
// empty line ends the event. One space after the colon is dropped; "id"
// and "retry" fields and unknown fields are ignored. An event with no
// data line is not reported, and neither is an unfinished event at the
// end of the stream (the standard's rules). Lines and events longer than
// [Reader]'s limits fail with [ErrTooLong] instead of growing without
// bound.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrTooLong is returned (wrapped) for a line or an event's data longer
// than the reader's limit.
var ErrTooLong = errors.New("server-sent event too long")

// DefaultMaxBytes bounds a line and an event's data: a streamed delta is a
// few hundred bytes, so 1 MiB only stops a broken server.
const DefaultMaxBytes = 1 << 20

// Event is one dispatched event.
type Event struct {
	// Type is the "event" field; "" when the event had none (the
	// standard's "message").
	Type string
	// Data is the data lines joined with "\n".
	Data string
}

// Reader reads events from a stream. It is not safe for concurrent use.
type Reader struct {
	r   *bufio.Reader
	max int
	// line is reused between lines.
	line []byte
	// afterCR is set when the last line ended with CR, so that an LF
	// right after it ends nothing.
	afterCR bool
}

// NewReader returns a Reader of r whose lines and events are at most max
// bytes; max <= 0 means [DefaultMaxBytes].
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	return &Reader{r: bufio.NewReader(r), max: max}
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// a read error from the underlying reader is returned as it is, and an
// oversized line or event wraps [ErrTooLong].
func (r *Reader) Next() (Event, error) {
	var (
		typ     string
		data    bytes.Buffer
		hasData bool
	)
	for {
		line, err := r.readLine()
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			if hasData {
				return Event{Type: typ, Data: data.String()}, nil
			}
			typ = ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, found := bytes.Cut(line, []byte{':'})
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(field) {
		case "event":
			typ = string(value)
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			hasData = true
			if data.Len()+len(value) > r.max {
				return Event{}, fmt.Errorf("%w: event data over %d bytes", ErrTooLong, r.max)
			}
			data.Write(value)
		}
	}
}

// readLine returns the next line without its end, or io.EOF when the
// stream ends (a last line without an end is returned first).
func (r *Reader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	for {
		b, err := r.r.ReadByte()
		if err != nil {
			if err == io.EOF && len(r.line) > 0 {
				return r.line, nil
			}
			return nil, err
		}
		afterCR := r.afterCR
		r.afterCR = false
		switch b {
		case '\n':
			if afterCR {
				continue // the LF of a CRLF
			}
			return r.line, nil
		case '\r':
			// Whether an LF follows is learnt from the next byte, not
			// by waiting for it here: the event may be complete now.
			r.afterCR = true
			return r.line, nil
		}
		if len(r.line) >= r.max {
			return nil, fmt.Errorf("%w: line over %d bytes", ErrTooLong, r.max)
		}
		r.line = append(r.line, b)
	}
}
