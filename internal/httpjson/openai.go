package httpjson

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
)

// APIError is the "error" object of OpenAI's error bodies and stream
// error chunks, {"message", "type", "code"}, which most OpenAI-compatible
// servers copy.
type APIError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"` // a string, a number or null
}

// Describe returns the message followed by its type and code, e.g.
// "Rate limit reached (type requests, code rate_limit_exceeded)".
func (e *APIError) Describe() string {
	var details []string
	if e.Type != "" {
		details = append(details, "type "+e.Type)
	}
	if code := strings.Trim(string(e.Code), `"`); code != "" && code != "null" {
		details = append(details, "code "+code)
	}
	msg := cmp.Or(e.Message, "no message")
	if len(details) == 0 {
		return msg
	}
	return fmt.Sprintf("%s (%s)", msg, strings.Join(details, ", "))
}

// OpenAIErrorMessage extracts the message of an OpenAI-style error body
// for [Client].ErrorMessage: {"error": {"message", "type", "code"}}, or
// what compatible servers send instead ({"error": "..."} from TEI,
// a top-level "message" from vLLM and others); "" when it finds none.
func OpenAIErrorMessage(body []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil && s != "" {
		return s
	}
	var obj APIError
	if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
		return obj.Describe()
	}
	return e.Message
}
