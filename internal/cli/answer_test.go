package cli_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// chatServer is a local server speaking the OpenAI chat-completions wire
// format that answers every request with reply, and keeps the requests.
func chatServer(t *testing.T, reply string) (*httptest.Server, func() []map[string]any) {
	t.Helper()
	var mu sync.Mutex
	var got []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, `{"error": {"message": "no such route"}}`, http.StatusNotFound)
			return
		}
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &body); err != nil {
			http.Error(w, `{"error": {"message": "bad json"}}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": reply}}},
			"usage":   map[string]any{"prompt_tokens": 321, "completion_tokens": 12, "total_tokens": 333},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

// TestAnswerEndToEnd runs ctx answer against a local chat server whose
// fixed answer cites one range it was shown and one file it invented:
// the invented citation is removed from the answer and counted, the
// valid one is kept, and the footer gives the numbers.
func TestAnswerEndToEnd(t *testing.T) {
	root := t.TempDir()
	src := "package main\n\n// Zanzibar frobnicates the widget.\nfunc Zanzibar() int {\n\treturn 42\n}\n"
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, requests := chatServer(t, "Zanzibar returns 42 (main.go:L4-L6); tokens are checked in auth/jwt.go:L10-L20.")
	t.Setenv("CTX_EMBED_PROVIDER", "none")
	t.Setenv("CTX_LLM_PROVIDER", "openai")
	t.Setenv("CTX_LLM_URL", srv.URL+"/v1")
	t.Setenv("CTX_LLM_MODEL", "local-model")
	t.Setenv("CTX_LLM_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	flags := []string{"--repo", root, "--cache-dir", t.TempDir()}

	stdout, stderr, code := run(t, "", append([]string{"answer", "--json", "what does Zanzibar frobnicate"}, flags...)...)
	if code != 0 {
		t.Fatalf("ctx answer --json: exit %d: %s", code, stderr)
	}
	var resp struct {
		Answer    string `json:"answer"`
		Citations []struct {
			Path      string `json:"path"`
			StartLine int    `json:"start_line"`
			EndLine   int    `json:"end_line"`
		} `json:"citations"`
		Dropped int `json:"dropped_citations"`
		Usage   struct {
			InputTokens  int     `json:"input_tokens"`
			OutputTokens int     `json:"output_tokens"`
			LLMMS        float64 `json:"llm_ms"`
			Requests     int     `json:"requests"`
		} `json:"usage"`
		Cost *float64 `json:"cost_usd"`
	}
	if err := json.Unmarshal([]byte(stdout), &resp); err != nil {
		t.Fatalf("answer JSON: %v\n%s", err, stdout)
	}
	want := []struct {
		Path      string `json:"path"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
	}{{"main.go", 4, 6}}
	if diff := cmp.Diff(want, resp.Citations); diff != "" {
		t.Errorf("citations (-want +got):\n%s", diff)
	}
	if resp.Dropped != 1 || strings.Contains(resp.Answer, "auth/jwt.go") || !strings.Contains(resp.Answer, "main.go:L4-L6") {
		t.Errorf("dropped %d, answer %q: want the invented citation removed and counted", resp.Dropped, resp.Answer)
	}
	if resp.Usage.InputTokens != 321 || resp.Usage.OutputTokens != 12 || resp.Usage.Requests != 1 || resp.Cost == nil || *resp.Cost != 0 {
		t.Errorf("usage %+v, cost %v: want the server's counts and $0 for a server on this machine", resp.Usage, resp.Cost)
	}
	reqs := requests()
	if len(reqs) != 1 {
		t.Fatalf("%d chat requests, want 1", len(reqs))
	}
	if prompt, _ := json.Marshal(reqs[0]["messages"]); !strings.Contains(string(prompt), "func Zanzibar() int") || reqs[0]["model"] != "local-model" {
		t.Errorf("the request did not carry the packed code and the model: %s", prompt)
	}

	stdout, stderr, code = run(t, "", append([]string{"answer", "what does Zanzibar frobnicate"}, flags...)...)
	if code != 0 {
		t.Fatalf("ctx answer: exit %d: %s", code, stderr)
	}
	for _, w := range []string{"Citations:\n  main.go:L4-L6\n", "1 citation(s) named code the model was not shown and were removed", "ms LLM · 333 tokens · $0.0000"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("plain output lacks %q:\n%s", w, stdout)
		}
	}
}

// TestAnswerWithoutLLM: ctx answer with no LLM configured fails and says
// which settings to set.
func TestAnswerWithoutLLM(t *testing.T) {
	t.Setenv("CTX_EMBED_PROVIDER", "none")
	t.Setenv("CTX_LLM_PROVIDER", "")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run(t, "", "answer", "anything", "--repo", root, "--cache-dir", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "CTX_LLM_PROVIDER") {
		t.Errorf("exit %d, stderr %q: want 1 and the settings named", code, stderr)
	}
}
