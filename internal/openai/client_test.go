package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// serve answers every request with status, content type and body, written in one
// piece or as a list of writes with a pause between them.
func serve(t *testing.T, status int, header map[string]string, writes ...string) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		w.WriteHeader(status)
		for i, b := range writes {
			if i > 0 {
				time.Sleep(5 * time.Millisecond)
			}
			w.Write([]byte(b))
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return NewClient(srv.URL+"/v1", "", 4)
}

func chunk(content, finish string) string {
	f := "null"
	if finish != "" {
		f = fmt.Sprintf("%q", finish)
	}
	return fmt.Sprintf(`data: {"choices":[{"index":0,"delta":{"content":%q},"finish_reason":%s}]}`+"\n\n", content, f)
}

// TestStreamOutcomes: every way a server ends a request has one outcome, and the
// server's message where it sent one.
func TestStreamOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		header  map[string]string
		writes  []string
		outcome Outcome
		msg     string // in Err
		tokens  int
	}{
		{"finished", 200, nil, []string{chunk("a", ""), chunk("b", "length"), "data: [DONE]\n\n"}, OutcomeFinished, "", 2},
		{"finished without [DONE]", 200, nil, []string{chunk("a", ""), chunk("b", "stop")}, OutcomeFinished, "", 2},
		{"[DONE] without finish_reason", 200, nil, []string{chunk("a", ""), "data: [DONE]\n\n"}, OutcomeIncomplete, "without a finish_reason", 1},
		{"cut without anything", 200, nil, []string{chunk("a", "")}, OutcomeIncomplete, "without a finish_reason", 1},
		{"object error then [DONE]", 200, nil, []string{chunk("a", ""), `data: {"object":"error","message":"The model is overloaded","type":"ServiceUnavailableError","code":503}` + "\n\ndata: [DONE]\n\n"}, OutcomeFailed, "The model is overloaded", 1},
		{"TGI error text in stream", 200, nil, []string{`data: {"error":"Request failed during generation: CUDA out of memory","error_type":"generation"}` + "\n\n"}, OutcomeFailed, "CUDA out of memory", 0},
		{"OpenAI error object in stream", 200, nil, []string{`data: {"error":{"message":"upstream died","http_status_code":422}}` + "\n\n"}, OutcomeFailed, "upstream died", 0},
		{"error event", 200, nil, []string{"event: error\ndata: {\"error\":{\"message\":\"boom\"}}\n\n"}, OutcomeFailed, "boom", 0},
		{"llama.cpp error field", 200, nil, []string{chunk("a", ""), `error: {"code":500,"message":"slot failed","type":"server_error"}` + "\n\n"}, OutcomeFailed, "slot failed", 1},
		{"bare JSON error line mid-stream (Ollama writeError)", 200, nil, []string{chunk("a", ""), `{"error":{"message":"model runner crashed","type":"api_error"}}` + "\n"}, OutcomeIncomplete, "model runner crashed", 1},
		{"HTTP 503 with Retry-After", 503, map[string]string{"Retry-After": "7", "Content-Type": "application/json"}, []string{`{"error":{"message":"overloaded"}}`}, OutcomeRetryable, "overloaded", 0},
		{"HTTP 429", 429, map[string]string{"Content-Type": "application/json"}, []string{`{"error":"Model is overloaded","error_type":"overloaded"}`}, OutcomeRetryable, "Model is overloaded", 0},
		{"HTTP 400 vLLM object error", 400, map[string]string{"Content-Type": "application/json"}, []string{`{"object":"error","message":"maximum context length is 512 tokens","type":"BadRequestError","code":400}`}, OutcomeFailed, "maximum context length", 0},
		{"HTTP 200 JSON error body", 200, map[string]string{"Content-Type": "application/json"}, []string{`{"error":{"message":"upstream provider error","code":502}}`}, OutcomeFailed, "upstream provider error", 0},
		{"HTTP 200 whole completion", 200, map[string]string{"Content-Type": "application/json"}, []string{`{"choices":[{"index":0,"message":{"role":"assistant","content":"a b c"},"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}`}, OutcomeFailed, "does not stream", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := serve(t, tc.status, tc.header, tc.writes...)
			res := c.StreamChat(context.Background(), &ChatRequest{Model: "m"}, nil)
			if res.Outcome != tc.outcome {
				t.Errorf("outcome %s (err %v), want %s", res.Outcome, res.Err, tc.outcome)
			}
			if tc.msg != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), tc.msg)) {
				t.Errorf("err %v, want the server's message %q", res.Err, tc.msg)
			}
			if tc.msg == "" && res.Err != nil {
				t.Errorf("err %v on a success", res.Err)
			}
			if res.Tokens != tc.tokens {
				t.Errorf("%d tokens, want %d", res.Tokens, tc.tokens)
			}
			if tc.status == 503 && res.RetryAfter != 7*time.Second {
				t.Errorf("retry after %v, want 7s", res.RetryAfter)
			}
			if strings.Contains(tc.name, "whole completion") && (!res.NotStreamed || !res.FirstToken.IsZero()) {
				t.Errorf("a whole body: not-streamed %v, first token %v; want detected and no token timed", res.NotStreamed, res.FirstToken)
			}
		})
	}
}

// TestStreamSkipsKeepAlives: keep-alives, other event types and non-JSON data are
// skipped and counted, never fatal, and never tokens.
func TestStreamSkipsKeepAlives(t *testing.T) {
	c := serve(t, 200, nil,
		": OPENROUTER PROCESSING\n\nevent: ping\n\n"+chunk("a", ""),
		"event: ping\ndata: {\"type\":\"ping\"}\n\ndata: keep-alive\n\ndata:\n\n"+chunk("b", ""),
		chunk("c", "length")+"data: [DONE]\n\n")
	res := c.StreamChat(context.Background(), &ChatRequest{Model: "m"}, nil)
	if res.Outcome != OutcomeFinished || res.Tokens != 3 {
		t.Fatalf("outcome %s (%v), %d tokens; want finished with 3", res.Outcome, res.Err, res.Tokens)
	}
	// event: ping without data, data: (empty), a typed ping, a non-JSON line; the
	// comment is not an event.
	if res.Skipped != 4 {
		t.Errorf("skipped %d events (sample %q), want 4", res.Skipped, res.SkipSample)
	}
}

// TestFirstTokenRules: a role-only chunk is no token; the finish chunk of a request
// whose token rendered as no text is its arrival; a rise in the per-chunk count is a
// token even without text.
func TestFirstTokenRules(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		events []string
		tokens int
		first  int // index of the event that is the first token
	}{
		{"role only then content", []string{
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
			`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`}, 1, 1},
		{"one empty token with finish (Ollama byte fallback)", []string{
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"length"}]}`}, 1, 0},
		{"llama.cpp empty delta finish after role", []string{
			`{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}]}`,
			`{"choices":[{"finish_reason":"length","index":0,"delta":{}}]}`,
			`{"choices":[],"usage":{"completion_tokens":1,"prompt_tokens":5,"total_tokens":6}}`}, 1, 1},
		{"usage rise without text", []string{
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":5,"completion_tokens":0,"total_tokens":5}}`,
			`{"choices":[{"index":0,"delta":{"content":""}}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`,
			`{"choices":[{"index":0,"delta":{"content":"ab"}}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`}, 2, 1},
		{"logprobs count tokens", []string{
			`{"choices":[{"index":0,"delta":{"content":"abc"},"logprobs":{"content":[{"token":"a"},{"token":"bc"}]}}]}`}, 2, 0},
		{"llama.cpp timings per token", []string{
			`{"choices":[{"index":0,"delta":{"content":" a b"}}],"timings":{"predicted_n":2,"draft_n":3,"draft_n_accepted":1}}`,
			`{"choices":[{"index":0,"delta":{"content":" c"}}],"timings":{"predicted_n":3}}`}, 3, 0},
		{"timings of an unexpected shape cost nothing", []string{
			`{"choices":[{"index":0,"delta":{"content":"x"}}],"timings":{"predicted_n":[1,2]}}`}, 1, 0},
		{"reasoning text is a token", []string{
			`{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}`}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &StreamResult{}
			for i, e := range tc.events {
				if err := res.apply(Event{Data: []byte(e), At: t0.Add(time.Duration(i) * time.Second)}, nil, false); err != nil {
					t.Fatal(err)
				}
			}
			if res.Tokens != tc.tokens {
				t.Errorf("%d tokens, want %d", res.Tokens, tc.tokens)
			}
			if want := t0.Add(time.Duration(tc.first) * time.Second); !res.FirstToken.Equal(want) {
				t.Errorf("first token at %v, want event %d", res.FirstToken.Sub(t0), tc.first)
			}
		})
	}
}

// TestSameArrival: events closer than SameArrival are one chunk of their tokens; the
// count of such merges is kept, so a cell can tell when gaps were not resolved.
func TestSameArrival(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	res := &StreamResult{}
	for _, at := range []time.Duration{0, 50 * time.Microsecond, 20 * time.Millisecond, 20*time.Millisecond + 10*time.Microsecond, 40 * time.Millisecond} {
		res.apply(Event{Data: []byte(`{"choices":[{"index":0,"delta":{"content":"x"}}]}`), At: t0.Add(at)}, nil, false)
	}
	if len(res.Chunks) != 3 || res.Chunks[0].N != 2 || res.Chunks[1].N != 2 || res.Chunks[2].N != 1 {
		t.Errorf("chunks %+v, want 2+2+1 tokens", res.Chunks)
	}
	if res.Events != 5 || res.Merged != 2 {
		t.Errorf("events %d merged %d, want 5 and 2", res.Events, res.Merged)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"": 0, "3": 3 * time.Second, "0.5": 500 * time.Millisecond, "-1": 0, "soon": 0,
		"Thu, 01 Jan 2026 00:00:10 GMT": 10 * time.Second,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("Retry-After %q = %v, want %v", in, got, want)
		}
	}
}

func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	res := NewClient(url+"/v1", "", 1).StreamChat(context.Background(), &ChatRequest{Model: "m"}, nil)
	if res.Outcome != OutcomeRetryable || res.Err == nil {
		t.Errorf("a refused connection: %s %v, want retryable", res.Outcome, res.Err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res = NewClient(url+"/v1", "", 1).StreamChat(ctx, &ChatRequest{Model: "m"}, nil)
	if res.Outcome != OutcomeCancelled {
		t.Errorf("a cancelled request: %s, want cancelled", res.Outcome)
	}
	if !errors.Is(context.Canceled, context.Canceled) {
		t.Fatal()
	}
}
