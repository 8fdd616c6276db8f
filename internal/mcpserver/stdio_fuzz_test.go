package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fuzzMaxLine is the line limit of the fuzzed server, small so that the
// fuzzer reaches it.
const fuzzMaxLine = 4096

// FuzzStdio feeds lines of arbitrary bytes to an initialized server on a
// StdioTransport, then a ping, then the end of input. The server must
// never panic or stop early: it answers the ping, ends cleanly once every
// call is answered, writes only JSON-RPC 2.0 messages, echoes only ids
// the client sent, and answers every line except blank ones, and except
// the ones that may be a notification or a response (a JSON object with a
// method and no id, or with an id and no method), which get at most one
// reply.
//
//	go test -run='^$' -fuzz=FuzzStdio ./internal/mcpserver
func FuzzStdio(f *testing.F) {
	for _, tc := range malformedLines {
		if len(tc.line) < 64<<10 {
			f.Add([]byte(tc.line))
		}
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e2,"method":"ping"}` + "\r\n\r\n \t\n",
		`{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping","id":5}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":` + strings.Repeat(`{"a":`, 120) + `1` + strings.Repeat(`}`, 120) + `}}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"` + strings.Repeat("y", fuzzMaxLine) + `"}}`,
		"\x00\n\xef\xbb\xbf{}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const sentinel = "fuzz-sentinel"
		if bytes.Contains(data, []byte(sentinel)) {
			t.Skip()
		}
		r := newStdioRig(t, fuzzMaxLine)
		r.release()
		r.initialize(t)
		lines := bytes.Split(data, []byte("\n"))
		r.send(t, string(data), `{"jsonrpc":"2.0","id":"`+sentinel+`","method":"ping"}`)
		r.in.Close()

		exact, loose := 0, 0
		sent := map[any]bool{}
		for _, l := range lines {
			switch replies(l, sent) {
			case 1:
				exact++
			case -1:
				loose++
			}
		}
		got, sentinelOK := 0, false
		deadline := time.After(10 * time.Second)
		for done := false; !done; {
			select {
			case l, ok := <-r.out:
				if !ok {
					done = true
					break
				}
				if strings.Contains(l, `"method"`) && !strings.Contains(l, `"result"`) && !strings.Contains(l, `"error"`) {
					continue // a message the server sends of its own accord
				}
				w := decodeReply(t, l)
				var id any
				if err := json.Unmarshal(w.ID, &id); err != nil {
					t.Fatalf("reply id %s: %v", w.ID, err)
				}
				if id == sentinel {
					sentinelOK = w.Error == nil
					continue
				}
				if id != nil && !sent[id] {
					t.Errorf("reply %s: id %v was never sent", l, id)
				}
				got++
			case <-deadline:
				t.Fatalf("the server did not end within 10s of the end of its input (%d replies so far)", got)
			}
		}
		if !sentinelOK {
			t.Errorf("the ping after the input was not answered")
		}
		if got < exact || got > exact+loose {
			t.Errorf("%d replies to %d lines, want %d to %d", got, len(lines), exact, exact+loose)
		}
		select {
		case err := <-r.done:
			if err != nil && err != io.EOF {
				t.Errorf("Run = %v", err)
			}
			r.done <- err
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after the output ended")
		}
	})
}

// replies is how many replies a line must get: 0 for a blank line, -1
// for a line that may be a notification or a response (0 or 1), else 1.
// It records the ids of the line in sent.
func replies(line []byte, sent map[any]bool) int {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > fuzzMaxLine {
		return 1
	}
	if len(bytes.Trim(line, " \t\r")) == 0 {
		return 0
	}
	var m map[string]json.RawMessage
	if !utf8.Valid(line) || json.Unmarshal(line, &m) != nil || m == nil {
		return 1
	}
	raw, hasID := m["id"]
	if hasID {
		var id any
		if json.Unmarshal(raw, &id) == nil && id != nil && reflect.TypeOf(id).Comparable() {
			sent[id] = true
		}
	}
	if _, hasMethod := m["method"]; hasMethod != hasID {
		return -1
	}
	return 1
}
