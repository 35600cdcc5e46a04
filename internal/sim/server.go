package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
)

// EngineName is what /version reports as the engine, and what a run against the
// emulator records as engine.name.
const EngineName = "llmbench-sim"

// maxBodyBytes bounds a request body: a 128K-token prompt as text or ids fits easily.
const maxBodyBytes = 64 << 20

// Server is an emulated engine behind vLLM's HTTP surface.
type Server struct {
	cfg       Config
	eng       *engine
	cancel    context.CancelFunc
	loopDone  chan struct{}
	closeOnce sync.Once
	nextID    atomic.Uint64
	created   int64
	mux       *http.ServeMux
}

// NewServer validates cfg and starts its engine goroutine; Close stops it.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Preset == "" {
		cfg.Preset = "custom"
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("emulator config: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg:      cfg,
		eng:      newEngine(cfg),
		cancel:   cancel,
		loopDone: make(chan struct{}),
		created:  time.Now().Unix(),
	}
	go func() {
		defer close(s.loopDone)
		s.eng.loop(ctx)
	}()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("POST /v1/completions", s.handleCompletions)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("GET /version", s.handleVersion)
	mux.HandleFunc("GET /server_info", s.handleServerInfo)
	mux.HandleFunc("POST /tokenize", s.handleTokenize)
	mux.HandleFunc("POST /detokenize", s.handleDetokenize)
	mux.HandleFunc("GET /metrics", s.handleMetrics)
	s.mux = mux
	return s, nil
}

// Config is the configuration the server runs with.
func (s *Server) Config() Config { return s.cfg }

// Handler serves the OpenAI-compatible and vLLM endpoints.
func (s *Server) Handler() http.Handler { return s.mux }

// Close stops the engine; requests still in flight end with an error. It waits for the
// engine goroutine and may be called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.cancel()
		<-s.loopDone
	})
}

// StartLocal serves a preset on a loopback port until shutdown is called. speed 0 means
// 1 (real time). ctx bounds the start only. baseURL has no /v1 suffix.
func StartLocal(ctx context.Context, preset string, speed float64) (baseURL string, shutdown func(context.Context) error, err error) {
	cfg, err := PresetConfig(preset)
	if err != nil {
		return "", nil, err
	}
	if speed != 0 {
		cfg.Speed = speed
	}
	return Serve(ctx, "127.0.0.1:0", cfg)
}

// Serve starts a server for cfg listening on addr and returns its URL.
func Serve(ctx context.Context, addr string, cfg Config) (baseURL string, shutdown func(context.Context) error, err error) {
	srv, err := NewServer(cfg)
	if err != nil {
		return "", nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		srv.Close()
		return "", nil, fmt.Errorf("starting the emulator on %s: %w", addr, err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 30 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("emulator HTTP server stopped", "err", err)
		}
	}()
	shutdown = func(ctx context.Context) error {
		srv.Close() // ends open streams so Shutdown need not wait for them
		err := hs.Shutdown(ctx)
		<-served
		return err
	}
	return "http://" + ln.Addr().String(), shutdown, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		slog.Debug("emulator: writing response", "err", err)
	}
}

// writeError answers in the OpenAI error envelope, as vLLM does.
func writeError(w http.ResponseWriter, status int, msg string) {
	var e openai.ErrorResponse
	e.Error.Message = msg
	e.Error.Code = status
	switch status {
	case http.StatusNotFound:
		e.Error.Type = "NotFoundError"
	case http.StatusBadRequest:
		e.Error.Type = "BadRequestError"
	default:
		e.Error.Type = "InternalServerError"
	}
	writeJSON(w, status, e)
}

func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	body := http.MaxBytesReader(w, r.Body, maxBodyBytes)
	if err := json.NewDecoder(body).Decode(v); err != nil {
		return fmt.Errorf("invalid JSON body: %w", err)
	}
	return nil
}

// checkModel accepts the served name (or no name), like vLLM's 404 otherwise.
func (s *Server) checkModel(w http.ResponseWriter, model string) bool {
	if model == "" || model == s.cfg.ServedModel {
		return true
	}
	writeError(w, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", model))
	return false
}

// genParams is what both generation routes hand to generate.
type genParams struct {
	chat          bool
	prompt        []int
	maxTokens     *int
	minTokens     *int
	ignoreEOS     *bool
	seed          *int64
	stream        bool
	streamOptions *openai.StreamOptions
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req openai.ChatRequest
	if err := decodeBody(w, r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !s.checkModel(w, req.Model) {
		return
	}
	if len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "messages must not be empty")
		return
	}
	maxTokens := req.MaxCompletionTokens
	if maxTokens == nil {
		maxTokens = req.MaxTokens
	}
	s.generate(w, r, genParams{
		chat: true, prompt: ApplyChatTemplate(req.Messages, true), maxTokens: maxTokens,
		minTokens: req.MinTokens, ignoreEOS: req.IgnoreEOS, seed: req.Seed,
		stream: req.Stream, streamOptions: req.StreamOptions,
	})
}

func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	var req openai.CompletionRequest
	if err := decodeBody(w, r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !s.checkModel(w, req.Model) {
		return
	}
	prompt, err := promptIDs(req.Prompt)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.generate(w, r, genParams{
		prompt: prompt, maxTokens: req.MaxTokens, minTokens: req.MinTokens,
		ignoreEOS: req.IgnoreEOS, seed: req.Seed, stream: req.Stream, streamOptions: req.StreamOptions,
	})
}

// promptIDs reads a completions prompt: a string, or a list of token ids.
func promptIDs(p any) ([]int, error) {
	switch v := p.(type) {
	case string:
		ids := Tokenize(nil, v)
		if len(ids) == 0 {
			return nil, errors.New("prompt must not be empty")
		}
		return ids, nil
	case []any:
		if len(v) == 0 {
			return nil, errors.New("prompt must not be empty")
		}
		ids := make([]int, len(v))
		for i, x := range v {
			f, ok := x.(float64)
			if !ok {
				return nil, errors.New("prompt must be a string or a list of token ids (batched prompts are not supported by the emulator)")
			}
			if f != math.Trunc(f) || f < 0 || f >= VocabSize {
				return nil, fmt.Errorf("token id %v at position %d is out of vocabulary (0 ≤ id < %d)", f, i, VocabSize)
			}
			ids[i] = int(f)
		}
		return ids, nil
	case nil:
		return nil, errors.New("prompt is required")
	default:
		return nil, errors.New("prompt must be a string or a list of token ids")
	}
}

// generate validates lengths the way vLLM does, queues the request and answers it,
// streamed or whole.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, p genParams) {
	promptLen := len(p.prompt)
	maxLen := s.cfg.MaxModelLen
	if promptLen >= maxLen {
		writeError(w, http.StatusBadRequest, fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, your request has %d input tokens. Please reduce the length of the input messages.",
			maxLen, promptLen))
		return
	}
	maxTokens := maxLen - promptLen
	if p.maxTokens != nil {
		if *p.maxTokens < 1 {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("max_tokens must be at least 1, got %d.", *p.maxTokens))
			return
		}
		if promptLen+*p.maxTokens > maxLen {
			writeError(w, http.StatusBadRequest, fmt.Sprintf(
				"'max_tokens' or 'max_completion_tokens' is too large: %d. This model's maximum context length is %d tokens and your request has %d input tokens (%d > %d - %d).",
				*p.maxTokens, maxLen, promptLen, *p.maxTokens, maxLen, promptLen))
			return
		}
		maxTokens = *p.maxTokens
	}
	minTokens := 0
	if p.minTokens != nil {
		if *p.minTokens < 0 || *p.minTokens > maxTokens {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("min_tokens must be between 0 and max_tokens=%d, got %d.", maxTokens, *p.minTokens))
			return
		}
		minTokens = *p.minTokens
	}
	n := s.nextID.Add(1)
	seed := s.cfg.Seed*0x100000001b3 + n
	if p.seed != nil {
		seed = s.cfg.Seed*0x100000001b3 ^ uint64(*p.seed)
	}
	req := newRequest(p.prompt, maxTokens, minTokens, p.ignoreEOS != nil && *p.ignoreEOS, s.cfg.BlockSize, seed)
	if err := s.eng.submit(r.Context(), req); err != nil {
		if !errors.Is(err, r.Context().Err()) {
			writeError(w, http.StatusServiceUnavailable, err.Error())
		}
		return
	}
	rs := &response{s: s, req: req, chat: p.chat, promptLen: promptLen, created: time.Now().Unix()}
	if p.chat {
		rs.id = fmt.Sprintf("chatcmpl-sim-%d", n)
	} else {
		rs.id = fmt.Sprintf("cmpl-sim-%d", n)
	}
	if p.stream {
		rs.stream(w, r, p.streamOptions)
	} else {
		rs.whole(w, r)
	}
}

// response turns the engine's tokens for one request into wire chunks.
type response struct {
	s         *Server
	req       *request
	id        string
	chat      bool
	promptLen int
	created   int64
	generated int
}

// next waits for the engine to produce something for the request. It aborts the
// request when the client goes away.
func (rs *response) next(ctx context.Context, buf []int32) (toks []int32, finish string, done bool, err error) {
	stopped := false
	select {
	case <-rs.req.notify:
	case <-ctx.Done():
		rs.s.eng.abort(rs.req)
		return nil, "", true, ctx.Err()
	case <-rs.s.eng.done:
		stopped = true
	}
	toks, finish, done, err = rs.req.take(buf)
	if stopped && !done {
		done, err = true, errEngineStopped
	}
	rs.generated += len(toks)
	return toks, finish, done, err
}

func (rs *response) usage() *openai.Usage {
	cached := rs.req.cachedTokens()
	return &openai.Usage{
		PromptTokens:        rs.promptLen,
		CompletionTokens:    rs.generated,
		TotalTokens:         rs.promptLen + rs.generated,
		PromptTokensDetails: &openai.PromptTokensDetails{CachedTokens: &cached},
	}
}

// tokenString is what one generated token adds to the output text: its word and a
// space, so the text re-tokenizes to the same number of tokens. EOS adds nothing.
func tokenString(t int32) string {
	if t == EOSToken {
		return ""
	}
	return TokenText(int(t)) + " "
}

func (rs *response) object() string {
	if rs.chat {
		return "chat.completion.chunk"
	}
	return "text_completion"
}

func (rs *response) chunk(choices []openai.Choice) openai.Chunk {
	return openai.Chunk{ID: rs.id, Object: rs.object(), Created: rs.created, Model: rs.s.cfg.ServedModel, Choices: choices}
}

func (rs *response) stream(w http.ResponseWriter, r *http.Request, opts *openai.StreamOptions) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	includeUsage := opts != nil && opts.IncludeUsage
	continuous := includeUsage && opts.ContinuousUsageStats
	var out bytes.Buffer
	event := func(v any) {
		out.WriteString("data: ")
		b, _ := json.Marshal(v) // wire types always marshal
		out.Write(b)
		out.WriteString("\n\n")
	}
	ctx := r.Context()
	var buf []int32
	sentRole := false
	for {
		toks, finish, done, err := rs.next(ctx, buf)
		buf = toks
		if errors.Is(err, ctx.Err()) && ctx.Err() != nil {
			return // the client left; the engine has been told
		}
		out.Reset()
		for i, t := range toks {
			if rs.chat && !sentRole {
				// vLLM's first chat chunk carries only the role.
				event(rs.chunk([]openai.Choice{{Delta: &openai.Delta{Role: "assistant"}}}))
				sentRole = true
			}
			var fr *string
			if done && err == nil && i == len(toks)-1 {
				fr = &finish
			}
			c := openai.Choice{FinishReason: fr}
			switch n := rs.generated - len(toks) + i; {
			case rs.chat && n < rs.s.cfg.ReasoningTokens:
				c.Delta = &openai.Delta{ReasoningContent: tokenString(t)}
			case rs.chat:
				c.Delta = &openai.Delta{Content: tokenString(t)}
			default:
				c.Text = tokenString(t)
			}
			ch := rs.chunk([]openai.Choice{c})
			if continuous {
				ch.Usage = rs.usageAt(rs.generated - len(toks) + i + 1)
			}
			event(ch)
		}
		if done {
			if err != nil {
				var e openai.ErrorResponse
				e.Error.Message = err.Error()
				e.Error.Type = "InternalServerError"
				e.Error.Code = http.StatusInternalServerError
				event(e)
			} else if includeUsage {
				u := rs.chunk([]openai.Choice{})
				u.Usage = rs.usage()
				event(u)
			}
			out.WriteString("data: [DONE]\n\n")
		}
		if _, werr := w.Write(out.Bytes()); werr != nil {
			rs.s.eng.abort(rs.req)
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
		if done {
			return
		}
	}
}

func (rs *response) usageAt(generated int) *openai.Usage {
	u := rs.usage()
	u.CompletionTokens = generated
	u.TotalTokens = rs.promptLen + generated
	return u
}

func (rs *response) whole(w http.ResponseWriter, r *http.Request) {
	var text strings.Builder
	var buf []int32
	for {
		toks, finish, done, err := rs.next(r.Context(), buf)
		buf = toks
		if err != nil {
			if r.Context().Err() == nil {
				writeError(w, http.StatusInternalServerError, err.Error())
			}
			return
		}
		for _, t := range toks {
			text.WriteString(tokenString(t))
		}
		if !done {
			continue
		}
		fr := finish
		c := openai.Choice{FinishReason: &fr}
		obj := "text_completion"
		if rs.chat {
			c.Message = &openai.Message{Role: "assistant", Content: text.String()}
			obj = "chat.completion"
		} else {
			c.Text = text.String()
		}
		resp := rs.chunk([]openai.Choice{c})
		resp.Object = obj
		resp.Usage = rs.usage()
		writeJSON(w, http.StatusOK, resp)
		return
	}
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	maxLen := int64(s.cfg.MaxModelLen)
	writeJSON(w, http.StatusOK, openai.ModelList{Object: "list", Data: []openai.ModelCard{{
		ID: s.cfg.ServedModel, Object: "model", Created: s.created, OwnedBy: EngineName,
		Root: s.cfg.Root, MaxModelLen: &maxLen,
	}}})
}

func (s *Server) handleVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"version": Version, "engine": EngineName, "preset": s.cfg.Preset})
}

// handleServerInfo answers like vLLM's dev-mode /server_info?config_format=json, the one
// place vLLM states max_num_seqs, so discovery reads the emulator as it reads vLLM.
func (s *Server) handleServerInfo(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"vllm_config": map[string]any{
			"model_config":     map[string]any{"model": s.cfg.ServedModel, "revision": "main"},
			"scheduler_config": map[string]any{"max_num_seqs": s.cfg.MaxNumSeqs},
			"cache_config":     map[string]any{"block_size": s.cfg.BlockSize, "num_gpu_blocks": s.cfg.NumBlocks},
		},
	})
}

func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	var req openai.TokenizeRequest
	if err := decodeBody(w, r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !s.checkModel(w, req.Model) {
		return
	}
	var ids []int
	if len(req.Messages) > 0 {
		ids = ApplyChatTemplate(req.Messages, req.AddGenerationPrompt == nil || *req.AddGenerationPrompt)
	} else {
		ids = Tokenize(nil, req.Prompt)
	}
	if ids == nil {
		ids = []int{}
	}
	writeJSON(w, http.StatusOK, openai.TokenizeResponse{Count: len(ids), MaxModelLen: int64(s.cfg.MaxModelLen), Tokens: ids})
}

func (s *Server) handleDetokenize(w http.ResponseWriter, r *http.Request) {
	var req openai.DetokenizeRequest
	if err := decodeBody(w, r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !s.checkModel(w, req.Model) {
		return
	}
	text, err := Detokenize(req.Tokens)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, openai.DetokenizeResponse{Prompt: text})
}

// handleMetrics writes vLLM's metric names in Prometheus text format. Counters are
// declared with their _total names, as Python's prometheus_client writes them.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	st := &s.eng.stats
	var b bytes.Buffer
	labels := fmt.Sprintf(`{engine="0",model_name=%q}`, s.cfg.ServedModel)
	metric := func(name, typ, help string, v float64) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n%s%s %s\n", name, help, name, typ, name, labels, formatFloat(v))
	}
	prefix := "False"
	if s.cfg.PrefixCaching {
		prefix = "True"
	}
	fmt.Fprintf(&b, "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n# TYPE vllm:cache_config_info gauge\n")
	fmt.Fprintf(&b, "vllm:cache_config_info{block_size=\"%d\",cache_dtype=%q,enable_prefix_caching=%q,engine=\"0\",kv_cache_size_tokens=\"%d\",num_gpu_blocks=\"%d\"} 1.0\n",
		s.cfg.BlockSize, s.cfg.CacheDtype, prefix, s.cfg.KVCacheTokens(), s.cfg.NumBlocks)
	metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.", float64(st.running.Load()))
	metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.", float64(st.waiting.Load()))
	metric("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.", float64(st.usedBlocks.Load())/float64(s.cfg.NumBlocks))
	metric("vllm:prefix_cache_queries_total", "counter", "Prefix cache queries, in terms of number of queried tokens.", float64(st.prefixQueries.Load()))
	metric("vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.", float64(st.prefixHits.Load()))
	metric("vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.", float64(st.preemptions.Load()))
	metric("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.", float64(st.promptTokens.Load()))
	metric("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.", float64(st.generationTokens.Load()))
	fmt.Fprintf(&b, "# HELP vllm:request_success_total Count of successfully processed requests.\n# TYPE vllm:request_success_total counter\n")
	stop := st.requestsFinishedStop.Load()
	fmt.Fprintf(&b, "vllm:request_success_total{engine=\"0\",finished_reason=\"length\",model_name=%q} %s\n", s.cfg.ServedModel, formatFloat(float64(st.requestsFinished.Load()-stop)))
	fmt.Fprintf(&b, "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\",model_name=%q} %s\n", s.cfg.ServedModel, formatFloat(float64(stop)))
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	if _, err := io.Copy(w, &b); err != nil {
		slog.Debug("emulator: writing /metrics", "err", err)
	}
}

// formatFloat writes v the way prometheus_client does (always with a decimal point).
func formatFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%g", v)
}
