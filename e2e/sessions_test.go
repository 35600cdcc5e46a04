package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// The multi-turn run against Ollama: 2 users, each holding 3-turn conversations of
// 48-token messages and 64-token answers, for the window.
const (
	sessionUsers      = 2
	sessionTurns      = 3
	sessionUserTokens = 48
	sessionAnswer     = 64
	sessionDuration   = "8s"
	// A turn's figures against Ollama's own timings of the same requests: the client
	// adds HTTP, the relay and, on a shared 2-core machine, its own scheduling (ms
	// added for a short request).
	sessionTotalTolerance = 0.15
	sessionSlackMs        = 15
)

// ownTimings are Ollama's own timings of the requests llmbench sent, by turn (the
// user messages a request carried), as its native chat route reported them.
type ownTimings struct {
	mu    sync.Mutex
	turns map[int][]chatDone
}

// chatDone is the last object of a streamed /api/chat: Ollama's own counts and
// durations (ns), measured inside its runner.
type chatDone struct {
	Done               bool   `json:"done"`
	DoneReason         string `json:"done_reason"`
	PromptEvalCount    int64  `json:"prompt_eval_count"`
	PromptEvalDuration int64  `json:"prompt_eval_duration"`
	EvalCount          int64  `json:"eval_count"`
	EvalDuration       int64  `json:"eval_duration"`
	Message            struct {
		Content string `json:"content"`
	} `json:"message"`
}

// nativeRelay stands between llmbench and Ollama: chat completions go to Ollama's
// native /api/chat, streamed, and come back as OpenAI chunks (content, then the usage
// with Ollama's counts), so that Ollama's own timings of every request llmbench sent
// are kept by turn. Every other route (the probe's), and a request not streamed (a
// prompt counted by its usage), passes through.
func nativeRelay(t *testing.T, s *ollamaServer) (*ownTimings, string) {
	target, err := url.Parse(s.base)
	if err != nil {
		t.Fatal(err)
	}
	own := &ownTimings{turns: map[int][]chatDone{}}
	pass := httputil.NewSingleHostReverseProxy(target)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			pass.ServeHTTP(w, r)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var probe struct {
			Stream bool `json:"stream"`
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		if json.Unmarshal(raw, &probe) != nil || !probe.Stream {
			pass.ServeHTTP(w, r) // counting a prompt: Ollama's own answer, whole
			return
		}
		own.relay(w, r, s)
	}))
	t.Cleanup(hs.Close)
	return own, hs.URL
}

// relay sends one chat completion to the native route and streams its answer back.
func (o *ownTimings) relay(w http.ResponseWriter, r *http.Request, s *ollamaServer) {
	var req struct {
		Model     string              `json:"model"`
		Messages  []map[string]string `json:"messages"`
		MaxTokens int                 `json:"max_tokens"`
		MaxNew    int                 `json:"max_completion_tokens"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	body, _ := json.Marshal(map[string]any{"model": req.Model, "messages": req.Messages, "stream": true,
		"options": map[string]any{"num_predict": max(req.MaxTokens, req.MaxNew), "temperature": 1.0, "top_p": 1.0}})
	up, err := http.NewRequestWithContext(r.Context(), http.MethodPost, s.base+"/api/chat", strings.NewReader(string(body)))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	resp, err := http.DefaultClient.Do(up)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	chunk := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		flusher.Flush()
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c chatDone
		if json.Unmarshal(sc.Bytes(), &c) != nil {
			continue
		}
		if c.Message.Content != "" {
			chunk(map[string]any{"id": "relay", "object": "chat.completion.chunk", "model": req.Model,
				"choices": []any{map[string]any{"index": 0, "delta": map[string]string{"content": c.Message.Content}}}})
		}
		if !c.Done {
			continue
		}
		reason := "stop"
		if c.DoneReason == "length" {
			reason = "length"
		}
		chunk(map[string]any{"id": "relay", "object": "chat.completion.chunk", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": map[string]string{}, "finish_reason": reason}}})
		chunk(map[string]any{"id": "relay", "object": "chat.completion.chunk", "model": req.Model, "choices": []any{},
			"usage": map[string]int64{"prompt_tokens": c.PromptEvalCount, "completion_tokens": c.EvalCount, "total_tokens": c.PromptEvalCount + c.EvalCount}})
		fmt.Fprint(w, "data: [DONE]\n\n")
		turn := 0
		for _, m := range req.Messages {
			if m["role"] == "user" {
				turn++
			}
		}
		if max(req.MaxTokens, req.MaxNew) == sessionAnswer {
			o.mu.Lock()
			o.turns[turn] = append(o.turns[turn], c)
			o.mu.Unlock()
		}
		return
	}
}

// turnOwn is Ollama's own account of a turn's requests (means, ms): its prompt
// evaluation, its time per token after the first (eval_duration / (eval_count − 1)),
// and the two together, the request's time inside the runner.
type turnOwn struct {
	promptMs, tpotMs, totalMs float64
	n                         int
}

func (o *ownTimings) of(turn int) turnOwn {
	o.mu.Lock()
	defer o.mu.Unlock()
	var t turnOwn
	var evalNs, promptNs, steps int64
	for _, c := range o.turns[turn] {
		if c.EvalCount < 2 {
			continue
		}
		evalNs += c.EvalDuration
		promptNs += c.PromptEvalDuration
		steps += c.EvalCount - 1
		t.n++
	}
	if t.n == 0 {
		return t
	}
	t.promptMs, t.tpotMs = float64(promptNs)/1e6/float64(t.n), float64(evalNs)/1e6/float64(steps)
	t.totalMs = float64(promptNs+evalNs) / 1e6 / float64(t.n)
	return t
}

// checkSessions runs 2 users × 3 turns with llmbench against Ollama, through
// nativeRelay, and checks each turn's figures against Ollama's own timings of the
// same requests: TTFT and TPOT adding up to the request's time inside the runner
// (prompt_eval_duration + eval_duration), TTFT not before the prompt was evaluated,
// TPOT not slower than the tokens were generated, the history growing by the real
// replies, and the events log re-scoring to every figure.
func checkSessions(t *testing.T, ctx context.Context, llmbench string, s *ollamaServer, model string) {
	own, base := nativeRelay(t, s)
	dir := t.TempDir()
	doc, events := filepath.Join(dir, "sessions.json"), filepath.Join(dir, "sessions.events")
	llmbenchCmd(t, ctx, llmbench, "run", "--endpoint", base, "--model", model,
		"--turns", strconv.Itoa(sessionTurns), "--user-tokens", strconv.Itoa(sessionUserTokens),
		"--concurrency", strconv.Itoa(sessionUsers), "--duration", sessionDuration, "--max-output", strconv.Itoa(sessionAnswer),
		"--kv-capacity", strconv.Itoa(kvTokens), "--out", doc, "--events", events, "--no-progress", "--format", "none")
	llmbenchCmd(t, ctx, llmbench, "report", "--rescore", events, doc)
	run, err := rundoc.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Decode) != 1 || run.Decode[0].Workload == nil {
		t.Fatalf("cells %+v: want one cell with the workload's figures", run.Decode)
	}
	cell := run.Decode[0]
	// A shared 2-core machine at 100% may keep the client from reading chunks as they
	// come: the rules say so (machine_cpu_saturated) and invalidate the window, which
	// is right; the per-turn figures are still checked against Ollama's own.
	if cell.Status != rundoc.StatusValid {
		if cell.CellDetail == nil || !slices.Contains(cell.CellDetail.Flags, "machine_cpu_saturated") {
			t.Errorf("cell 0 × %d: %s (%s), want valid", sessionUsers, cell.Status, cell.Reason)
		} else {
			t.Logf("cell 0 × %d: %s on a saturated machine (%s)", sessionUsers, cell.Status, cell.Reason)
		}
	}
	w := cell.Workload
	if len(w.Turns) != sessionTurns || w.CompletedSessions < sessionUsers {
		t.Fatalf("workload figures: %d turns, %d of %d sessions completed; want %d turns and at least %d completed", len(w.Turns), w.CompletedSessions, w.Sessions, sessionTurns, sessionUsers)
	}
	for k, tf := range w.Turns {
		if tf.TTFTMs.P50 == nil || tf.TPOTMs.P50 == nil || tf.PromptTokensMean == nil {
			t.Errorf("turn %d: TTFT %v, TPOT %v, prompt %v: want all measured", tf.Turn, tf.TTFTMs.P50, tf.TPOTMs.P50, tf.PromptTokensMean)
			continue
		}
		// The history carries the replies: turn k's prompt is the one before, its
		// answer and a new message.
		if k > 0 && *tf.PromptTokensMean < *w.Turns[k-1].PromptTokensMean+sessionUserTokens {
			t.Errorf("turn %d: prompt %.1f tokens, not the history of turn %d (%.1f) plus a message and a reply", tf.Turn, *tf.PromptTokensMean, k, *w.Turns[k-1].PromptTokensMean)
		}
		o := own.of(tf.Turn)
		if o.n == 0 || tf.TTFTMs.Mean == nil || tf.TPOTMs.Mean == nil {
			t.Errorf("turn %d: Ollama timed %d of its requests; TTFT mean %v, TPOT mean %v", tf.Turn, o.n, tf.TTFTMs.Mean, tf.TPOTMs.Mean)
			continue
		}
		// Every answer is sessionAnswer tokens (the tiny model never picks EOS), so a
		// request's time is its TTFT and sessionAnswer − 1 TPOTs, and the means add up.
		ttft, tpot := *tf.TTFTMs.Mean, *tf.TPOTMs.Mean
		total := ttft + float64(sessionAnswer-1)*tpot
		t.Logf("turn %d: %d requests (Ollama timed %d), prompt %.1f tokens; TTFT %.1f + 63 × TPOT %.2f = %.1f ms vs Ollama's own prompt eval %.1f + eval %.2f a token = %.1f ms (%+.1f%%)",
			tf.Turn, tf.Requests, o.n, *tf.PromptTokensMean, ttft, tpot, total, o.promptMs, o.tpotMs, o.totalMs, 100*(total/o.totalMs-1))
		if d := total/o.totalMs - 1; d > sessionTotalTolerance+sessionSlackMs/o.totalMs || d < -sessionTotalTolerance-sessionSlackMs/o.totalMs {
			t.Errorf("turn %d: TTFT and TPOT add up to %.1f ms a request, Ollama's own %.1f ms: more than %.0f%% + %d ms apart", tf.Turn, total, o.totalMs, 100*sessionTotalTolerance, sessionSlackMs)
		}
		// Ollama holds back tokens that do not yet form a character (the model writes
		// multi-byte text): the client sees the first token late, never early, and the
		// rest no slower than they were generated.
		if ttft < o.promptMs*(1-sessionTotalTolerance)-sessionSlackMs {
			t.Errorf("turn %d: TTFT %.1f ms, before Ollama finished evaluating the prompt (%.1f ms)", tf.Turn, ttft, o.promptMs)
		}
		if tpot > o.tpotMs*(1+sessionTotalTolerance) {
			t.Errorf("turn %d: TPOT %.2f ms, slower than Ollama generated (%.2f ms a token)", tf.Turn, tpot, o.tpotMs)
		}
	}
}
