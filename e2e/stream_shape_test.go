package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/golden"
)

// transcripts are the streaming requests whose raw answers testdata/ keeps (see
// testdata/README.md): what Ollama 0.6.5 sends on its OpenAI routes.
var transcripts = []struct {
	file, path, body string
}{
	{"ollama-0.6.5-chat-include-usage.sse", "/v1/chat/completions",
		`{"model":"llmbench-tiny","messages":[{"role":"user","content":"the world of the model"}],"stream":true,"max_tokens":6,"stream_options":{"include_usage":true}}`},
	{"ollama-0.6.5-chat-no-usage.sse", "/v1/chat/completions",
		`{"model":"llmbench-tiny","messages":[{"role":"user","content":"the world of the model"}],"stream":true,"max_tokens":6}`},
	{"ollama-0.6.5-completions-include-usage.sse", "/v1/completions",
		`{"model":"llmbench-tiny","prompt":"the world of the model","stream":true,"max_tokens":6,"stream_options":{"include_usage":true}}`},
}

// checkStreamShapes sends each recorded request to the live server and checks that
// the stream has the recorded shape (which chunks, in which order, with which fields),
// so that the transcripts stay true for the Ollama version CI runs. With -update it
// records them again.
func checkStreamShapes(t *testing.T, ctx context.Context, s *ollamaServer) {
	for _, tr := range transcripts {
		t.Run(strings.TrimSuffix(tr.file, ".sse"), func(t *testing.T) {
			live := postRaw(t, ctx, s.base+tr.path, tr.body)
			path := filepath.Join("testdata", tr.file)
			if golden.Updating() { // re-record the transcripts from the live Ollama
				if err := os.WriteFile(path, live, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			recorded, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (record it with: go test ./e2e -run TestOllama -update)", err)
			}
			if diff := cmp.Diff(streamShape(t, recorded), streamShape(t, live)); diff != "" {
				t.Errorf("%s %s: the live stream's shape differs from %s (-recorded +live):\n%s", tr.path, tr.body, path, diff)
			}
		})
	}
}

func postRaw(t *testing.T, ctx context.Context, url, body string) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s %v: %s", url, resp.Status, err, b)
	}
	return b
}

// streamShape describes each SSE event of a stream by what a client keys on: the
// choices it carries, whether the delta has a role and non-empty content, the finish
// reason, and whether usage is absent, zeroed or counted. Ids, times and the text
// itself are left out.
func streamShape(t *testing.T, body []byte) []string {
	t.Helper()
	var shape []string
	r := bufio.NewReader(bytes.NewReader(body))
	for {
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			ev := eventShape(t, data)
			// The model's multi-byte text makes Ollama send a varying number of
			// chunks for the same number of tokens (it holds byte tokens back until
			// they form a character): a run of text chunks of one shape is one entry.
			if n := len(shape); n > 0 && shape[n-1] == ev && strings.Contains(ev, " text") && !strings.Contains(ev, "finish=") {
				continue
			}
			shape = append(shape, ev)
		} else if line != "" {
			shape = append(shape, "unexpected line: "+line)
		}
		if err != nil {
			return shape
		}
	}
}

func eventShape(t *testing.T, data string) string {
	if data == "[DONE]" {
		return "[DONE]"
	}
	var ev struct {
		Object  string `json:"object"`
		Choices []struct {
			Delta *struct {
				Role    *string `json:"role"`
				Content *string `json:"content"`
			} `json:"delta"`
			Text         *string `json:"text"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		t.Fatalf("event %q is not JSON: %v", data, err)
	}
	parts := []string{ev.Object, fmt.Sprintf("choices=%d", len(ev.Choices))}
	for _, c := range ev.Choices {
		text := c.Text
		if c.Delta != nil {
			if c.Delta.Role != nil {
				parts = append(parts, "role="+*c.Delta.Role)
			}
			text = c.Delta.Content
		}
		switch {
		case text == nil:
			parts = append(parts, "no-text")
		case *text == "":
			parts = append(parts, "empty-text")
		default:
			parts = append(parts, "text")
		}
		if c.FinishReason != nil {
			parts = append(parts, "finish="+*c.FinishReason)
		}
	}
	switch {
	case ev.Usage == nil:
	case ev.Usage.PromptTokens == 0 && ev.Usage.CompletionTokens == 0:
		parts = append(parts, "usage=zero")
	default:
		parts = append(parts, fmt.Sprintf("usage=counted(completion=%d)", ev.Usage.CompletionTokens))
	}
	return strings.Join(parts, " ")
}
