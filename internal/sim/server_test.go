package sim

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/openai"
)

func TestChatStreamFormat(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Speed = 5
	_, base := testServer(t, cfg)
	body := openai.ChatRequest{
		Model: "tiny", Messages: []openai.Message{{Role: "user", Content: words("w", 10)}}, MaxCompletionTokens: openai.Ptr(8),
		RequestOptions: openai.RequestOptions{IgnoreEOS: openai.Ptr(true), Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true}},
	}
	events, err := readStream(t.Context(), base+"/v1/chat/completions", body, nil)
	if err != nil {
		t.Fatal(err)
	}
	// role chunk + 8 token chunks + usage chunk + [DONE]
	if len(events) != 11 {
		t.Fatalf("got %d events, want 11:\n%v", len(events), events)
	}
	first := decodeChunk(t, events[0].data)
	if first.Object != "chat.completion.chunk" || first.Choices[0].Delta == nil || first.Choices[0].Delta.Role != "assistant" ||
		strings.Contains(events[0].data, `"content"`) || first.Choices[0].FinishReason != nil {
		t.Errorf("first chunk should carry only the role: %s", events[0].data)
	}
	var content strings.Builder
	for i, ev := range events[1:9] {
		c := decodeChunk(t, ev.data)
		if c.Choices[0].Delta.Content == "" {
			t.Errorf("token chunk %d has no content: %s", i, ev.data)
		}
		content.WriteString(c.Choices[0].Delta.Content)
		fr := c.Choices[0].FinishReason
		if i < 7 && fr != nil {
			t.Errorf("chunk %d finished early: %s", i, ev.data)
		}
		if i == 7 && (fr == nil || *fr != "length") {
			t.Errorf("last token chunk finish_reason = %v, want length", fr)
		}
	}
	if got := CountTokens(content.String()); got != 8 {
		t.Errorf("streamed text re-tokenizes to %d tokens, want 8", got)
	}
	if !strings.Contains(events[9].data, `"choices":[]`) {
		t.Errorf("usage chunk should have empty choices: %s", events[9].data)
	}
	usage := decodeChunk(t, events[9].data).Usage
	want := &openai.Usage{PromptTokens: 15, CompletionTokens: 8, TotalTokens: 23,
		PromptTokensDetails: &openai.PromptTokensDetails{CachedTokens: openai.Ptr(0)}}
	if diff := cmp.Diff(want, usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if events[10].data != "[DONE]" {
		t.Errorf("last event = %q, want [DONE]", events[10].data)
	}
}

func TestCompletionStreamTokenIDs(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Speed = 5
	_, base := testServer(t, cfg)
	body := map[string]any{
		"prompt": []int{100, 200, 300, 400, 500}, "max_tokens": 4, "ignore_eos": true,
		"stream": true, "stream_options": map[string]bool{"include_usage": true},
	}
	events, err := readStream(t.Context(), base+"/v1/completions", body, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 6 {
		t.Fatalf("got %d events, want 4 tokens + usage + [DONE]: %v", len(events), events)
	}
	for _, ev := range events[:4] {
		c := decodeChunk(t, ev.data)
		if c.Object != "text_completion" || c.Choices[0].Text == "" {
			t.Errorf("bad token chunk %s", ev.data)
		}
	}
	u := decodeChunk(t, events[4].data).Usage
	if u == nil || u.PromptTokens != 5 || u.CompletionTokens != 4 {
		t.Errorf("usage = %+v, want 5 prompt and 4 completion tokens", u)
	}
}

func TestNonStreaming(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Speed = 5
	_, base := testServer(t, cfg)
	for _, tc := range []struct {
		name, path string
		body       any
		prompt     int
	}{
		{"chat", "/v1/chat/completions", openai.ChatRequest{Messages: []openai.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi"}}, MaxTokens: openai.Ptr(6), RequestOptions: openai.RequestOptions{IgnoreEOS: openai.Ptr(true)}}, (3 + 2) + (3 + 1) + 2},
		{"completions", "/v1/completions", openai.CompletionRequest{Prompt: "one two three", MaxTokens: openai.Ptr(6), RequestOptions: openai.RequestOptions{IgnoreEOS: openai.Ptr(true)}}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := postJSON(t.Context(), base+tc.path, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var c openai.Chunk
			if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
				t.Fatal(err)
			}
			text := c.Choices[0].Text
			if c.Choices[0].Message != nil {
				text = c.Choices[0].Message.Content
			}
			if CountTokens(text) != 6 || *c.Choices[0].FinishReason != "length" {
				t.Errorf("got %q (%s), want 6 tokens and finish length", text, *c.Choices[0].FinishReason)
			}
			if c.Usage.PromptTokens != tc.prompt || c.Usage.CompletionTokens != 6 {
				t.Errorf("usage %+v, want %d prompt and 6 completion tokens", c.Usage, tc.prompt)
			}
		})
	}
}

// TestTokenizeMatchesChatUsage checks the documented template arithmetic: each message
// is 2 + words(role) + words(content) tokens and the generation prompt adds 2, and
// /tokenize's messages form counts exactly what chat completions report.
func TestTokenizeMatchesChatUsage(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Speed = 10
	_, base := testServer(t, cfg)
	for _, tc := range []struct {
		name     string
		messages []openai.Message
		want     int
	}{
		{"one user message", []openai.Message{{Role: "user", Content: words("a", 40)}}, 45},
		{"empty content", []openai.Message{{Role: "user", Content: ""}}, 5},
		{"system and user", []openai.Message{{Role: "system", Content: "you are terse"}, {Role: "user", Content: "hello  \n\t world"}}, 3 + 3 + 3 + 2 + 2},
		{"unicode words", []openai.Message{{Role: "user", Content: "日本語 のテキスト — ok"}}, 4 + 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := postJSON(t.Context(), base+"/tokenize", openai.TokenizeRequest{Messages: tc.messages, AddGenerationPrompt: openai.Ptr(true)})
			if err != nil {
				t.Fatal(err)
			}
			var tr openai.TokenizeResponse
			err = json.NewDecoder(resp.Body).Decode(&tr)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if tr.Count != tc.want || len(tr.Tokens) != tc.want || tr.MaxModelLen != 512 {
				t.Errorf("/tokenize count %d (%d ids, max_model_len %d), want %d", tr.Count, len(tr.Tokens), tr.MaxModelLen, tc.want)
			}
			resp, err = postJSON(t.Context(), base+"/v1/chat/completions", openai.ChatRequest{Messages: tc.messages, MaxTokens: openai.Ptr(1)})
			if err != nil {
				t.Fatal(err)
			}
			var c openai.Chunk
			err = json.NewDecoder(resp.Body).Decode(&c)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if c.Usage == nil || c.Usage.PromptTokens != tc.want {
				t.Errorf("chat usage %+v, want prompt_tokens %d", c.Usage, tc.want)
			}
		})
	}
	resp, err := postJSON(t.Context(), base+"/tokenize", openai.TokenizeRequest{Prompt: words("x", 77)})
	if err != nil {
		t.Fatal(err)
	}
	var tr openai.TokenizeResponse
	json.NewDecoder(resp.Body).Decode(&tr)
	resp.Body.Close()
	if tr.Count != 77 {
		t.Errorf("prompt form: count %d, want 77", tr.Count)
	}
	resp, err = postJSON(t.Context(), base+"/detokenize", openai.DetokenizeRequest{Tokens: []int{16, 1000, 31999}})
	if err != nil {
		t.Fatal(err)
	}
	var dr openai.DetokenizeResponse
	json.NewDecoder(resp.Body).Decode(&dr)
	resp.Body.Close()
	if got := Tokenize(nil, dr.Prompt); !cmp.Equal(got, []int{16, 1000, 31999}) {
		t.Errorf("detokenized %q re-tokenizes to %v", dr.Prompt, got)
	}
}

func TestRejectsTooLong(t *testing.T) {
	_, base := testServer(t, tinyConfig(t))
	for _, tc := range []struct {
		name string
		path string
		body any
		want string
		code int
	}{
		{"prompt plus max_tokens", "/v1/completions", openai.CompletionRequest{Prompt: words("p", 500), MaxTokens: openai.Ptr(20)},
			"'max_tokens' or 'max_completion_tokens' is too large: 20. This model's maximum context length is 512 tokens and your request has 500 input tokens (20 > 512 - 500).", 400},
		{"prompt alone", "/v1/chat/completions", openai.ChatRequest{Messages: []openai.Message{{Role: "user", Content: words("p", 600)}}},
			"This model's maximum context length is 512 tokens. However, your request has 605 input tokens. Please reduce the length of the input messages.", 400},
		{"unknown model", "/v1/completions", openai.CompletionRequest{Model: "gpt-9", Prompt: "hi"}, "The model `gpt-9` does not exist.", 404},
		{"token id out of range", "/v1/completions", map[string]any{"prompt": []int{1, 99999}}, "token id 99999 at position 1 is out of vocabulary (0 ≤ id < 32000)", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := postJSON(t.Context(), base+tc.path, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e openai.ErrorResponse
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.code || e.Error.Message != tc.want {
				t.Errorf("got %d %q, want %d %q", resp.StatusCode, e.Error.Message, tc.code, tc.want)
			}
		})
	}
}

func TestDiscoveryEndpoints(t *testing.T) {
	_, base := testServer(t, tinyConfig(t))
	get := func(path string) []byte {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	get("/health")
	var v map[string]string
	json.Unmarshal(get("/version"), &v)
	if diff := cmp.Diff(map[string]string{"version": Version, "engine": "llmbench-sim", "preset": "tiny"}, v); diff != "" {
		t.Errorf("/version (-want +got):\n%s", diff)
	}
	var ml openai.ModelList
	json.Unmarshal(get("/v1/models"), &ml)
	if len(ml.Data) != 1 || ml.Data[0].ID != "tiny" || ml.Data[0].OwnedBy != "llmbench-sim" || ml.Data[0].MaxModelLen == nil || *ml.Data[0].MaxModelLen != 512 {
		t.Errorf("/v1/models = %+v", ml)
	}
	text := string(get("/metrics"))
	for _, label := range []string{`num_gpu_blocks="64"`, `block_size="16"`, `kv_cache_size_tokens="1024"`, `enable_prefix_caching="True"`, `cache_dtype="auto"`, `engine="0"`} {
		if !strings.Contains(text, label) {
			t.Errorf("vllm:cache_config_info lacks %s", label)
		}
	}
	m := metrics(t, base)
	for _, name := range []string{"vllm:cache_config_info", "vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
		"vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total", "vllm:num_preemptions_total", "vllm:prompt_tokens_total", "vllm:generation_tokens_total"} {
		if _, ok := m[name]; !ok {
			t.Errorf("/metrics lacks %s", name)
		}
	}
}

// longStreams runs n streaming completions of prompt+maxTokens tokens each (distinct
// prompts) and returns their usage, while poll is called every few milliseconds.
func longStreams(t *testing.T, base string, n, prompt, maxTokens int, poll func()) []openai.Usage {
	t.Helper()
	usages := make([]openai.Usage, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			body := map[string]any{"prompt": words(string(rune('a'+i)), prompt), "max_tokens": maxTokens, "ignore_eos": true,
				"stream": true, "stream_options": map[string]bool{"include_usage": true}}
			events, err := readStream(t.Context(), base+"/v1/completions", body, nil)
			if err != nil {
				errs[i] = err
				return
			}
			if len(events) < 2 {
				errs[i] = errors.New("stream too short")
				return
			}
			var c openai.Chunk
			if err := json.Unmarshal([]byte(events[len(events)-2].data), &c); err != nil || c.Usage == nil {
				errs[i] = errors.New("no usage chunk: " + events[len(events)-2].data)
				return
			}
			usages[i] = *c.Usage
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	ticker := time.NewTicker(3 * time.Millisecond)
	defer ticker.Stop()
	for polling := true; polling; {
		select {
		case <-done:
			polling = false
		case <-ticker.C:
			if poll != nil {
				poll()
			}
		}
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		if usages[i].CompletionTokens != maxTokens {
			t.Errorf("stream %d got %d tokens, want %d", i, usages[i].CompletionTokens, maxTokens)
		}
	}
	return usages
}

// TestKVCapacity fills the tiny preset's 1,024-token cache exactly with two requests of
// 100 + 400 tokens (32 blocks each): usage reaches the top and nothing is preempted.
func TestKVCapacity(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Speed = 1 // the last 10% of the run, when usage is above 0.9, lasts ~80 ms
	_, base := testServer(t, cfg)
	maxUsage := 0.0
	longStreams(t, base, 2, 100, 400, func() {
		m := metrics(t, base)
		maxUsage = max(maxUsage, m["vllm:kv_cache_usage_perc"])
	})
	m := metrics(t, base)
	if maxUsage < 0.9 || maxUsage > 1 {
		t.Errorf("peak vllm:kv_cache_usage_perc %.3f, want in [0.9, 1] for 2 × 500 tokens in 1,024", maxUsage)
	}
	if p := m["vllm:num_preemptions_total"]; p != 0 {
		t.Errorf("%v preemptions, want 0: 2 × 32 blocks fit in 64", p)
	}
	// The engine frees a finished request's blocks in its next step, which may come a
	// moment after the client has read [DONE].
	for deadline := time.Now().Add(2 * time.Second); m["vllm:kv_cache_usage_perc"] != 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		m = metrics(t, base)
	}
	if u := m["vllm:kv_cache_usage_perc"]; u != 0 {
		t.Errorf("KV usage %.3f after all requests ended, want 0", u)
	}
	if g := m["vllm:generation_tokens_total"]; g != 800 {
		t.Errorf("generation_tokens_total %v, want 800", g)
	}
}

// TestPreemption over-commits the cache: three requests of 500 tokens need 96 blocks of
// 64, so the newest is preempted and recomputed, and every request still completes.
func TestPreemption(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Speed = 4
	_, base := testServer(t, cfg)
	longStreams(t, base, 3, 100, 400, nil)
	if p := metrics(t, base)["vllm:num_preemptions_total"]; p <= 0 {
		t.Errorf("vllm:num_preemptions_total = %v, want > 0", p)
	}
}

// TestQueueing sends twice max_num_seqs requests: the extra ones wait.
func TestQueueing(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Speed = 1
	_, base := testServer(t, cfg)
	maxRunning, maxWaiting := 0.0, 0.0
	longStreams(t, base, 2*cfg.MaxNumSeqs, 20, 60, func() {
		m := metrics(t, base)
		maxRunning = max(maxRunning, m["vllm:num_requests_running"])
		maxWaiting = max(maxWaiting, m["vllm:num_requests_waiting"])
	})
	if maxRunning != float64(cfg.MaxNumSeqs) {
		t.Errorf("peak running %v, want max_num_seqs %d", maxRunning, cfg.MaxNumSeqs)
	}
	if maxWaiting <= 0 {
		t.Errorf("peak waiting %v, want > 0 with %d requests for %d slots", maxWaiting, 2*cfg.MaxNumSeqs, cfg.MaxNumSeqs)
	}
}

func TestPrefixCacheHits(t *testing.T) {
	for _, caching := range []bool{true, false} {
		t.Run(map[bool]string{true: "on", false: "off"}[caching], func(t *testing.T) {
			cfg := tinyConfig(t)
			cfg.Speed = 10
			cfg.PrefixCaching = caching
			_, base := testServer(t, cfg)
			shared := words("shared", 160) // 10 full blocks
			var cached []int
			for _, tail := range []string{"alpha", "beta"} {
				resp, err := postJSON(t.Context(), base+"/v1/completions", openai.CompletionRequest{Prompt: shared + " " + tail, MaxTokens: openai.Ptr(2)})
				if err != nil {
					t.Fatal(err)
				}
				var c openai.Chunk
				err = json.NewDecoder(resp.Body).Decode(&c)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				cached = append(cached, *c.Usage.PromptTokensDetails.CachedTokens)
			}
			m := metrics(t, base)
			wantHits := 160
			if !caching {
				wantHits = 0
			}
			if diff := cmp.Diff([]int{0, wantHits}, cached); diff != "" {
				t.Errorf("cached_tokens per request (-want +got):\n%s", diff)
			}
			if m["vllm:prefix_cache_hits_total"] != float64(wantHits) || m["vllm:prefix_cache_queries_total"] != 2*161 {
				t.Errorf("prefix cache hits %v / queries %v, want %d / 322", m["vllm:prefix_cache_hits_total"], m["vllm:prefix_cache_queries_total"], wantHits)
			}
		})
	}
}

// TestClientDisconnectFreesBlocks: a client that goes away mid-stream is aborted and
// its blocks return to the pool.
func TestClientDisconnectFreesBlocks(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Speed = 0.5
	_, base := testServer(t, cfg)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	n := 0
	var during map[string]float64
	// readStream closes the connection when the callback says stop.
	_, err := readStream(ctx, base+"/v1/completions", map[string]any{"prompt": words("d", 100), "max_tokens": 400, "ignore_eos": true, "stream": true},
		func(streamEvent) bool {
			n++
			if n < 3 {
				return true
			}
			during = metrics(t, base)
			return false
		})
	if err != nil {
		t.Fatal(err)
	}
	if during["vllm:num_requests_running"] != 1 || during["vllm:kv_cache_usage_perc"] == 0 {
		t.Fatalf("while streaming: running %v, KV usage %v; want 1 and > 0", during["vllm:num_requests_running"], during["vllm:kv_cache_usage_perc"])
	}
	eventually(t, 10*time.Second, "the aborted request to release its blocks", func() bool {
		m := metrics(t, base)
		return m["vllm:num_requests_running"] == 0 && m["vllm:kv_cache_usage_perc"] == 0
	})
	if g := metrics(t, base)["vllm:generation_tokens_total"]; g >= 400 {
		t.Errorf("generated %v tokens; the request should have stopped early", g)
	}
}

func TestEOS(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Speed = 20
	cfg.EOSProbability = 0.1
	_, base := testServer(t, cfg)
	run := func(body openai.CompletionRequest) (int, string) {
		resp, err := postJSON(t.Context(), base+"/v1/completions", body)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var c openai.Chunk
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
			t.Fatal(err)
		}
		return c.Usage.CompletionTokens, *c.Choices[0].FinishReason
	}
	if n, fr := run(openai.CompletionRequest{Prompt: "go", MaxTokens: openai.Ptr(300)}); fr != "stop" || n >= 300 {
		t.Errorf("without ignore_eos: %d tokens, finish %q; want an early stop (P(no EOS in 300) ≈ 2e-14)", n, fr)
	}
	if n, fr := run(openai.CompletionRequest{Prompt: "go", MaxTokens: openai.Ptr(300), RequestOptions: openai.RequestOptions{MinTokens: openai.Ptr(100)}}); n <= 100 {
		t.Errorf("min_tokens 100: got %d tokens (%s), want more than 100", n, fr)
	}
	if n, fr := run(openai.CompletionRequest{Prompt: "go", MaxTokens: openai.Ptr(300), RequestOptions: openai.RequestOptions{IgnoreEOS: openai.Ptr(true)}}); fr != "length" || n != 300 {
		t.Errorf("ignore_eos: %d tokens, finish %q; want 300, length", n, fr)
	}
	// The same seed gives the same output length.
	a, _ := run(openai.CompletionRequest{Prompt: "go", MaxTokens: openai.Ptr(300), RequestOptions: openai.RequestOptions{Seed: openai.Ptr[int64](7)}})
	b, _ := run(openai.CompletionRequest{Prompt: "go", MaxTokens: openai.Ptr(300), RequestOptions: openai.RequestOptions{Seed: openai.Ptr[int64](7)}})
	if a != b {
		t.Errorf("seeded requests gave %d and %d tokens", a, b)
	}
}
