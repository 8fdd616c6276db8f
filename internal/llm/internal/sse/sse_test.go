package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func TestReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		max     int
		want    []Event
		wantErr error // after the events; nil means io.EOF
	}{
		{
			name: "data only",
			in:   "data: {\"a\":1}\n\ndata: [DONE]\n\n",
			want: []Event{{Data: `{"a":1}`}, {Data: "[DONE]"}},
		},
		{
			name: "named events",
			in:   "event: ping\ndata: {}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
			want: []Event{{Type: "ping", Data: "{}"}, {Type: "message_stop", Data: `{"type":"message_stop"}`}},
		},
		{
			name: "multi-line data",
			in:   "data: one\ndata:two\ndata\ndata:  four\n\n",
			want: []Event{{Data: "one\ntwo\n\n four"}},
		},
		{
			name: "comments and unknown fields",
			in:   ": keep-alive\n\nid: 7\nretry: 100\nfoo: bar\ndata: x\n: note\n\n",
			want: []Event{{Data: "x"}},
		},
		{
			name: "CRLF",
			in:   "event: a\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n",
			want: []Event{{Type: "a", Data: "1"}, {Data: "2"}},
		},
		{
			name: "lone CR",
			in:   "data: 1\r\rdata: 2\r\r",
			want: []Event{{Data: "1"}, {Data: "2"}},
		},
		{
			name: "event without data is not dispatched and its type is reset",
			in:   "event: a\n\ndata: 1\n\n",
			want: []Event{{Data: "1"}},
		},
		{
			name: "unfinished event at the end is dropped",
			in:   "data: 1\n\ndata: 2",
			want: []Event{{Data: "1"}},
		},
		{
			name:    "long line",
			in:      "data: " + strings.Repeat("x", 100) + "\n\n",
			max:     50,
			wantErr: ErrTooLong,
		},
		{
			name:    "long event",
			in:      strings.Repeat("data: "+strings.Repeat("x", 30)+"\n", 3) + "\n",
			max:     50,
			wantErr: ErrTooLong,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// One byte per read, so that no line arrives whole.
			r := NewReader(iotest.OneByteReader(strings.NewReader(tc.in)), tc.max)
			var got []Event
			var err error
			for {
				var ev Event
				ev, err = r.Next()
				if err != nil {
					break
				}
				got = append(got, ev)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
			wantErr := tc.wantErr
			if wantErr == nil {
				wantErr = io.EOF
			}
			if !errors.Is(err, wantErr) {
				t.Errorf("final error = %v, want %v", err, wantErr)
			}
		})
	}
}

func TestReaderPassesReadErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("data: 1\n\ndata: 2\n"), iotest.ErrReader(boom)), 0)
	if ev, err := r.Next(); err != nil || ev.Data != "1" {
		t.Fatalf("Next = %+v, %v; want data 1", ev, err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Errorf("Next = %v, want %v", err, boom)
	}
}
