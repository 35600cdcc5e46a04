package openai

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestReasoningThenAnswer: a server streams 20 reasoning tokens, then answer tokens,
// one every gap, under either field name servers use (vLLM's reasoning_content, and
// reasoning as newer vLLM and Ollama send it). Every token is a first token for TTFT,
// and the time from the first token to the first answer token is the server's own
// (the times it wrote them) within one gap; the tokens are counted by kind.
func TestReasoningThenAnswer(t *testing.T) {
	const reasoning, answer = 20, 5
	const gap = 30 * time.Millisecond
	for _, field := range []string{"reasoning_content", "reasoning"} {
		t.Run(field, func(t *testing.T) {
			// The handler hands over the times it wrote the first token and the first answer
			// token (a channel: the race detector does not see the socket as ordering).
			written := make(chan [2]time.Time, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fl := w.(http.Flusher)
				var firstWrite, answerWrite time.Time
				for i := 0; i < reasoning+answer; i++ {
					if i > 0 {
						time.Sleep(gap) // the server's pace between tokens: what is measured
					}
					key, finish := field, "null"
					if i >= reasoning {
						key = "content"
					}
					if i == reasoning+answer-1 {
						finish = `"stop"`
					}
					fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{%q:\" t%d\"},\"finish_reason\":%s}]}\n\n", key, i, finish)
					fl.Flush()
					switch i {
					case 0:
						firstWrite = time.Now()
					case reasoning:
						answerWrite = time.Now()
					}
				}
				written <- [2]time.Time{firstWrite, answerWrite}
				fmt.Fprint(w, "data: [DONE]\n\n")
			}))
			defer srv.Close()
			res := NewClient(srv.URL+"/v1", "", 1).StreamWith(context.Background(), "/chat/completions",
				&ChatRequest{Model: "m", RequestOptions: RequestOptions{Stream: true}}, nil, StreamConfig{KeepText: true, KeepAnswer: true})
			if res.Err != nil || !res.Finished() {
				t.Fatalf("outcome %s: %v", res.Outcome, res.Err)
			}
			if got, want := string(res.Answer), " t20 t21 t22 t23 t24"; got != want {
				t.Errorf("answer text %q, want %q (no reasoning)", got, want)
			}
			if !strings.HasPrefix(string(res.Text), " t0 t1") || !strings.HasSuffix(string(res.Text), " t24") {
				t.Errorf("kept text %q: want reasoning and answer", res.Text)
			}
			if res.ReasoningTokens != reasoning || res.AnswerTokens() != answer {
				t.Errorf("reasoning %d, answer %d tokens: want %d, %d", res.ReasoningTokens, res.AnswerTokens(), reasoning, answer)
			}
			if res.FirstToken.IsZero() || res.FirstAnswer.IsZero() || !res.FirstAnswer.After(res.FirstToken) {
				t.Fatalf("first token %v, first answer %v", res.FirstToken, res.FirstAnswer)
			}
			at := <-written
			server := at[1].Sub(at[0])
			client := res.FirstAnswer.Sub(res.FirstToken)
			if d := (client - server).Abs(); d >= gap {
				t.Errorf("first token to first answer: client saw %v, server wrote %v apart (off by %v, more than one gap of %v)", client, server, d, gap)
			}
			if client < reasoning*gap*9/10 {
				t.Errorf("first answer %v after the first token, want about %d gaps (%v)", client, reasoning, reasoning*gap)
			}
		})
	}
}
