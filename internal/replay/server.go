// Package replay serves the stream shapes of real inference engines over real
// loopback, with exact and logged timing, so that the measurement core can be checked
// against what each engine sends (testdata/, written from each engine's serving code)
// and against the ways real servers misbehave: keep-alive events, 503s with
// Retry-After, error bodies, streams that end early, bodies that are not streams,
// requests that keep running after the client left, a proxy that buffers each stream
// (buffered.go), and llama-server's slots, per-slot prompt caches and connections
// closed after every stream (llamaserver.go, written from its source).
//
// The server logs when it really wrote every token, and Truth turns that log into the
// figures a benchmark must report for a window.
package replay

import (
	"encoding/json"
	"fmt"
	"github.com/llmbench/llmbench/internal/clock"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config is what the replayed server is and how it misbehaves. It is plain data so
// that a server can run in another process (StartProcess).
type Config struct {
	// Shape names the stream fixture (testdata/<name>.shape).
	Shape string `json:"shape"`
	// Model is the served model name; "" takes the discovery's or "replay".
	Model string `json:"model,omitempty"`
	// Step is the time between an engine step and the next, per request.
	Step time.Duration `json:"step"`
	// WarmTTFT is the time to first token of a prompt already cached; a cold prompt
	// takes prompt tokens / PrefillRate.
	WarmTTFT    time.Duration `json:"warm_ttft"`
	PrefillRate float64       `json:"prefill_rate"`
	// ChatOverhead is the chat template's tokens around a message.
	ChatOverhead int `json:"chat_overhead"`
	// Discovery is a directory of recorded discovery answers (internal/engine/
	// testdata/probe/<engine>): GET and POST routes the replay does not serve itself
	// answer the file named after the path, as the recorded server did.
	Discovery string `json:"discovery,omitempty"`
	// Tokenize serves a live tokenize route in an engine's style: "vllm"
	// (/tokenize), "sglang" (/v1/tokenize), "llamacpp" (/tokenize, /apply-template),
	// "tgi" (/tokenize); "" for none. Tokens are whitespace-separated words.
	Tokenize string `json:"tokenize,omitempty"`
	// MaxModelLen refuses (HTTP 400, vLLM's message) a request whose prompt plus
	// max_tokens exceeds it; 0 for no limit.
	MaxModelLen int `json:"max_model_len,omitempty"`
	// Metrics serves the discovery's metrics pages with live running and waiting
	// gauges and vLLM's generation counter (vLLM's alone without a recorded page), and
	// SGLang's /v1/loads live.
	Metrics bool `json:"metrics,omitempty"`
	// KVCacheTokens, with Metrics and no discovery page, adds vllm:cache_config_info.
	KVCacheTokens int `json:"kv_cache_tokens,omitempty"`
	// Llama serves llama.cpp's /props and live /slots, and runs requests in its slots
	// as llama-server does (llamaserver.go).
	Llama *LlamaSlots `json:"llama,omitempty"`
	// Slots caps the decode requests generating at once; the rest wait for a slot.
	Slots int `json:"slots,omitempty"`
	// Drain keeps a request running (in the gauges, holding its slot) this long after
	// its client went away, as an engine still aborting it does.
	Drain time.Duration `json:"drain,omitempty"`

	// Ping sends a keep-alive event with no data ("event: ping") before every step.
	Ping bool `json:"ping,omitempty"`
	// Comments sends a comment line before every step.
	Comments bool `json:"comments,omitempty"`
	// IgnoreStream answers stream:true with one JSON body.
	IgnoreStream bool `json:"ignore_stream,omitempty"`
	// EmptyFirstToken: the first generated token renders as no text (a byte-fallback
	// piece): no event carries it, and its text arrives with the next token's.
	EmptyFirstToken bool `json:"empty_first_token,omitempty"`
	// EOSAfter ends every decode request with an end-of-sequence token (finish
	// "stop") after this many tokens, whatever max_tokens asked: an engine that does
	// not honour ignore_eos (Ollama). 0: never.
	EOSAfter int `json:"eos_after,omitempty"`
	// Buffered holds every streamed response back until it is whole and writes it in
	// one piece: a proxy that buffers the stream (nginx with proxy_buffering, a
	// gateway that collects events). The server's log still has when it generated
	// each token.
	Buffered bool `json:"buffered,omitempty"`
	// Failures answer some requests with an error instead.
	Failures []Failure `json:"failures,omitempty"`
	// Stall makes some requests stop sending and keep their connection open (a stuck
	// request, a long preemption).
	Stall *Stall `json:"stall,omitempty"`
	// TokensPerStep overrides the shape's tokens per step.
	TokensPerStep []int `json:"tokens_per_step,omitempty"`
	// Reasoning makes the server a reasoning model: the first this many tokens of every
	// streamed decode request are its thinking, sent under ReasoningField
	// ("reasoning", vLLM's name since vllm-project/vllm#27752; "reasoning_content",
	// its name before, SGLang's and DeepSeek's) by a shape that writes .DeltaKey.
	Reasoning      int    `json:"reasoning,omitempty"`
	ReasoningField string `json:"reasoning_field,omitempty"`
	// Slowdown makes the server slower part-way through (a GPU that throttles).
	Slowdown *Slowdown `json:"slowdown,omitempty"`
	// OnSchedule makes each step due Step after the previous step was due, not after
	// it was written: a machine too loaded to write on time writes late and catches up,
	// so the server's rate over a second is its schedule's whatever the load of the
	// machine running the test (the rate_drift tests judge a rate over seconds).
	OnSchedule bool `json:"on_schedule,omitempty"`
	// SpecDecode, with Metrics, serves a speculative-decoding server's draft counters
	// from two recorded pages, advancing with the tokens generated (specdecode.go).
	SpecDecode *SpecPages `json:"spec_decode,omitempty"`
	// PrefillContention slows a cold prefill by this factor per request the server is
	// still running (decoding or aborting) when it starts: engines interleave prefill
	// with their running batch.
	PrefillContention float64 `json:"prefill_contention,omitempty"`
}

// Stall stops every Every-th request that asks for more than 16 tokens (so never the
// run's 16-token stream check) from sending After its start: it writes nothing more
// until the client goes away.
type Stall struct {
	Every int           `json:"every"`
	After time.Duration `json:"after"`
}

// Slowdown makes every step take Factor × Step from After past the arrival of the
// first request that asks for more than 16 tokens (so never the run's 16-token stream
// check): a server that throttles in the middle of a window.
type Slowdown struct {
	After  time.Duration `json:"after"`
	Factor float64       `json:"factor"`
}

// LlamaSlots is llama-server's context and slots (llamaserver.go): every generation
// request takes a slot of NCtx tokens, with that slot's prompt cache.
type LlamaSlots struct {
	NCtx        int  `json:"n_ctx"` // per slot
	Slots       int  `json:"slots"`
	Speculative bool `json:"speculative"`
	// CloseAfterStream closes the connection after every streamed response, its
	// headers' keep-alive notwithstanding, as llama-server does.
	CloseAfterStream bool `json:"close_after_stream,omitempty"`
	// CloseLate closes it only once the client has written its next request on it
	// (or after 100 ms): the close crosses the request on the wire, as it does when
	// llama-server's thread shuts the socket a moment late, and every request sent on
	// the kept connection fails before any byte of an answer.
	CloseLate bool `json:"close_late,omitempty"`
	// ModelPath is the -m the server was started with: without an alias it is also
	// the model's name (/v1/models, /props model_alias). "" names a path after Model.
	ModelPath string `json:"model_path,omitempty"`
	// Ftype and Build are /props's model_ftype and build_info ("" for the defaults).
	Ftype string `json:"ftype,omitempty"`
	Build string `json:"build,omitempty"`
	// Hidden answers 404 to /props and /slots: a gateway in front that forwards /v1
	// alone, so that a run cannot see the slots it will meet.
	Hidden bool `json:"hidden,omitempty"`
}

// Failure answers matching requests with Status and Body instead of a stream.
type Failure struct {
	// Phase selects requests: "warmup" (max_tokens 1, streamed), "decode" (more than
	// one token), "" both.
	Phase string `json:"phase,omitempty"`
	// Every fails every n-th matching request (1: all); Limit stops after that many
	// failures (0: never).
	Every int `json:"every"`
	Limit int `json:"limit,omitempty"`
	// After lets the first After matching requests through: a run's stream check is
	// the first decode request, and a test of a cell's retries needs it to pass.
	After int `json:"after,omitempty"`
	// Status and headers of the answer; 0 is 200.
	Status      int    `json:"status,omitempty"`
	RetryAfter  string `json:"retry_after,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	// Body is written as it is. In a 200 text/event-stream answer, AfterTokens
	// tokens of the shape are streamed first.
	Body        string `json:"body"`
	AfterTokens int    `json:"after_tokens,omitempty"`
}

// failCount counts a Failure's matching requests and the failures it answered.
type failCount struct{ seen, failed atomic.Int64 }

func (f *Failure) matches(c *failCount, phase string) bool {
	if f.Phase != "" && f.Phase != phase {
		return false
	}
	n := c.seen.Add(1) - int64(f.After)
	if n <= 0 {
		return false
	}
	every := int64(max(f.Every, 1))
	if n%every != 0 {
		return false
	}
	if f.Limit > 0 && c.failed.Add(1) > int64(f.Limit) {
		return false
	}
	return true
}

// Server is a running replay.
type Server struct {
	*httptest.Server
	cfg   Config
	shape *Shape
	model string

	slots chan struct{}
	llama *llamaSlots
	spec  *specCounters
	fails []failCount

	mu       sync.Mutex
	records  []*Record
	cached   map[string]bool
	running  int
	waiting  int
	genTotal int64
	nextID   int64
	long     int // requests seen that asked for more than 16 tokens (Stall)
	// slowFrom is when Slowdown sets in (zero until the first long request).
	slowFrom time.Time
}

// Record is what the server did with one request.
type Record struct {
	Prompt    int       `json:"prompt"`
	MaxTokens int       `json:"max_tokens"`
	Stream    bool      `json:"stream"`
	Cold      bool      `json:"cold"`
	Status    int       `json:"status"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Emits     []Emit    `json:"emits,omitempty"`
	Cancelled bool      `json:"cancelled,omitempty"`
	// RunningAtStart is how many requests the server was running when this one began.
	RunningAtStart int `json:"running_at_start"`
	// Slot is the llama-server slot that ran it, CacheN the prompt tokens that slot
	// held (nil without Config.Llama).
	Slot   int         `json:"slot,omitempty"`
	CacheN *int        `json:"cache_n,omitempty"`
	Body   requestBody `json:"-"`
}

// Emit is one write that carried K tokens.
type Emit struct {
	At time.Time `json:"at"`
	K  int       `json:"k"`
}

// Start serves cfg on a loopback port until Close.
func Start(cfg Config) (*Server, error) {
	s, err := newServer(cfg)
	if err != nil {
		return nil, err
	}
	s.Server = httptest.NewServer(s)
	return s, nil
}

func newServer(cfg Config) (*Server, error) {
	shape, err := LoadShape(cfg.Shape)
	if err != nil {
		return nil, err
	}
	if cfg.Step == 0 {
		cfg.Step = 20 * time.Millisecond
	}
	if cfg.WarmTTFT == 0 {
		cfg.WarmTTFT = 30 * time.Millisecond
	}
	if cfg.PrefillRate == 0 {
		cfg.PrefillRate = 20000
	}
	if len(cfg.TokensPerStep) > 0 {
		c := *shape
		c.TokensPerStep = cfg.TokensPerStep
		shape = &c
	}
	s := &Server{cfg: cfg, shape: shape, cached: map[string]bool{}, model: cfg.Model}
	if l := cfg.Llama; l != nil {
		s.llama = newLlamaSlots(l.Slots)
		if s.model == "" && l.ModelPath != "" {
			s.model = l.ModelPath // no -a: the model is named after its file
		}
	}
	if s.model == "" {
		s.model = s.discoveredModel()
	}
	if cfg.Slots > 0 {
		s.slots = make(chan struct{}, cfg.Slots)
	}
	s.fails = make([]failCount, len(cfg.Failures))
	if cfg.SpecDecode != nil {
		if s.spec, err = loadSpecPages(cfg.SpecDecode); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// URL is the server's root.
func (s *Server) Root() string { return s.URL }

// Log returns what the server did with every request so far.
func (s *Server) Log() []*Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Record, len(s.records))
	for i, r := range s.records {
		c := *r
		c.Emits = append([]Emit(nil), r.Emits...)
		out[i] = &c
	}
	return out
}

// ServeHTTP routes a request: generation and the live routes here, the rest from the
// recorded discovery.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && (r.URL.Path == "/v1/chat/completions" || r.URL.Path == "/v1/completions"):
		s.generate(w, r)
	case r.URL.Path == "/_replay/log":
		writeJSON(w, http.StatusOK, s.Log())
	case r.Method == http.MethodPost && s.tokenizeRoute(r.URL.Path):
		s.tokenize(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/apply-template" && s.cfg.Tokenize == "llamacpp":
		var body requestBody
		json.NewDecoder(r.Body).Decode(&body)
		writeJSON(w, http.StatusOK, map[string]string{"prompt": strings.Repeat("tpl ", s.cfg.ChatOverhead) + body.text()})
	case (r.URL.Path == "/metrics" || r.URL.Path == "/prometheus/metrics") && s.cfg.Metrics:
		s.metrics(w, r.URL.Path)
	case r.URL.Path == "/v1/loads" && s.cfg.Metrics:
		s.loads(w)
	case r.URL.Path == "/props" && s.cfg.Llama != nil && !s.cfg.Llama.Hidden:
		s.props(w)
	case r.URL.Path == "/slots" && s.cfg.Llama != nil && !s.cfg.Llama.Hidden:
		s.slotsRoute(w)
	case r.URL.Path == "/v1/models" && !s.hasDiscovery("/v1/models"):
		card := map[string]any{"id": s.model, "object": "model", "owned_by": s.shape.Engine}
		if s.cfg.MaxModelLen > 0 {
			card["max_model_len"] = s.cfg.MaxModelLen
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{card}})
	default:
		s.discovery(w, r)
	}
}

// requestBody is the part of a completion request the replay reads.
type requestBody struct {
	Messages []struct {
		Content string `json:"content"`
	} `json:"messages"`
	Prompt              any  `json:"prompt"`
	Content             any  `json:"content"` // llama.cpp /tokenize
	Inputs              any  `json:"inputs"`  // TGI /tokenize
	MaxTokens           *int `json:"max_tokens"`
	MaxCompletionTokens *int `json:"max_completion_tokens"`
	Stream              bool `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
	TimingsPerToken bool `json:"timings_per_token"`
	IDSlot          *int `json:"id_slot"` // llama-server
}

func (b requestBody) text() string {
	var parts []string
	for _, m := range b.Messages {
		parts = append(parts, m.Content)
	}
	for _, v := range []any{b.Prompt, b.Content, b.Inputs} {
		switch t := v.(type) {
		case string:
			parts = append(parts, t)
		case []any:
			parts = append(parts, strings.Repeat("id ", len(t)))
		}
	}
	return strings.Join(parts, " ")
}

func (b requestBody) maxTokens() int {
	switch {
	case b.MaxTokens != nil:
		return *b.MaxTokens
	case b.MaxCompletionTokens != nil:
		return *b.MaxCompletionTokens
	}
	return 16
}

func countWords(s string) int { return len(strings.Fields(s)) }

func (s *Server) promptTokens(b requestBody) int {
	n := countWords(b.text())
	if b.Messages != nil {
		n += s.cfg.ChatOverhead
	}
	return n
}

// sharedPart is the part of a prompt that llmbench shares between a row's requests.
func sharedPart(text string) string {
	if i := strings.Index(text, "\n\nRequest"); i >= 0 {
		return text[:i]
	}
	return text
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request) {
	var body requestBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": err.Error()}})
		return
	}
	rec := &Record{Prompt: s.promptTokens(body), MaxTokens: body.maxTokens(), Stream: body.Stream, Start: time.Now(), Body: body}
	s.mu.Lock()
	if sl := s.cfg.Slowdown; sl != nil && s.slowFrom.IsZero() && rec.MaxTokens > 16 {
		s.slowFrom = rec.Start.Add(sl.After)
	}
	shared := sharedPart(body.text())
	rec.Cold = !s.cached[shared]
	s.cached[shared] = true
	s.records = append(s.records, rec)
	s.nextID++
	id := s.nextID
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		rec.End = time.Now()
		s.mu.Unlock()
	}()

	phase := "decode"
	if rec.MaxTokens <= 1 {
		phase = "warmup"
	}
	if !body.Stream {
		phase = "whole"
	}
	for i := range s.cfg.Failures {
		if f := &s.cfg.Failures[i]; f.matches(&s.fails[i], phase) {
			s.fail(w, r, rec, f, id)
			return
		}
	}
	if s.llama != nil {
		release := s.llamaSlot(r.Context(), rec)
		if release == nil {
			s.markCancelled(rec)
			return
		}
		defer release()
		if s.llamaLimit(rec) == 0 {
			s.exceedContext(w, rec)
			return
		}
	}
	if s.cfg.MaxModelLen > 0 && rec.Prompt+rec.MaxTokens > s.cfg.MaxModelLen {
		s.setStatus(rec, http.StatusBadRequest)
		writeJSON(w, http.StatusBadRequest, map[string]any{"object": "error", "type": "BadRequestError", "code": 400,
			"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
				s.cfg.MaxModelLen, rec.Prompt+rec.MaxTokens, rec.Prompt, rec.MaxTokens)})
		return
	}
	s.run(w, r, rec, id, 0, nil)
}

func (s *Server) setStatus(rec *Record, status int) {
	s.mu.Lock()
	rec.Status = status
	s.mu.Unlock()
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, rec *Record, f *Failure, id int64) {
	status := f.Status
	if status == 0 {
		status = http.StatusOK
	}
	s.setStatus(rec, status)
	if f.AfterTokens > 0 {
		s.run(w, r, rec, id, f.AfterTokens, f)
		return
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	ct := f.ContentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	w.Write([]byte(f.Body))
}

// run generates one request: a stream in the shape's events on an absolute schedule,
// or one JSON body. With cut > 0, the stream stops after cut tokens and tail (a
// failure's body) is written instead of the rest.
func (s *Server) run(w http.ResponseWriter, r *http.Request, rec *Record, id int64, cut int, tail *Failure) {
	ctx := r.Context()
	decode := rec.MaxTokens > 1
	if decode && s.slots != nil {
		s.adjust(0, 1)
		select {
		case s.slots <- struct{}{}:
			s.adjust(0, -1)
		case <-ctx.Done():
			s.adjust(0, -1)
			return
		}
		defer func() { <-s.slots }()
	}
	s.mu.Lock()
	busy := s.running
	rec.RunningAtStart = busy
	s.mu.Unlock()
	s.adjust(1, 0)
	left := false
	defer func() {
		if left && s.cfg.Drain > 0 {
			// The engine has not noticed yet: the request still runs, and holds its slot
			// (the deferred release above runs after this sleep).
			time.Sleep(s.cfg.Drain)
		}
		s.adjust(-1, 0)
	}()
	start := time.Now()
	ttft := s.ttft(rec, busy)
	limit, finish := s.length(rec)
	if !rec.Stream || s.cfg.IgnoreStream {
		left = !s.whole(w, r, rec, id, start.Add(ttft))
		return
	}
	w, fl, release := s.streamHeaders(w)
	defer release()

	st := s.newStreamState(rec, id)
	st.finish = finish
	stallAt := s.stallAt(rec, start)
	produced, step := 0, 0
	var prevWrite, prevDue time.Time
	for produced < limit {
		k := min(s.shape.TokensPerStep[step%len(s.shape.TokensPerStep)], limit-produced)
		if cut > 0 {
			k = min(k, cut-produced)
		}
		// Each step follows the previous write by Step, as an engine's next step follows
		// its last: a server that falls behind streams slower, it does not catch up in a
		// burst.
		due := start.Add(ttft)
		switch {
		case step > 0 && s.cfg.OnSchedule:
			due = prevDue.Add(s.step(prevDue))
		case step > 0:
			due = prevWrite.Add(s.step(prevWrite))
		}
		prevDue = due
		if !stallAt.IsZero() && due.After(stallAt) {
			due = time.Now().Add(24 * time.Hour) // stuck: silent until the client leaves
		}
		if !clock.Until(ctx, due) {
			left = true
			s.markCancelled(rec)
			return
		}
		var out []byte
		if s.cfg.Comments {
			out = append(out, ": OPENROUTER PROCESSING\n\n"...)
		}
		if s.cfg.Ping {
			out = append(out, "event: ping\n\n"...)
		}
		last := produced+k == limit
		out = append(out, st.stepEvents(k, last)...)
		produced += k
		step++
		if last {
			out = append(out, st.endEvents(produced)...)
		}
		if cut > 0 && produced >= cut {
			out = append(out, tail.Body...)
		}
		if _, err := w.Write(out); err != nil {
			left = true
			s.markCancelled(rec)
			return
		}
		fl.Flush()
		prevWrite = s.emitted(rec, k)
		if cut > 0 && produced >= cut {
			return
		}
	}
	if l := s.cfg.Llama; l != nil && l.CloseAfterStream {
		closeAfterStream(w, l.CloseLate)
	}
}

// step is the time from a write at prev to the request's next step: Step, or
// Slowdown's Factor × Step once it has set in.
func (s *Server) step(prev time.Time) time.Duration {
	sl := s.cfg.Slowdown
	if sl == nil {
		return s.cfg.Step
	}
	s.mu.Lock()
	from := s.slowFrom
	s.mu.Unlock()
	if from.IsZero() || prev.Before(from) {
		return s.cfg.Step
	}
	return time.Duration(float64(s.cfg.Step) * sl.Factor)
}

// ttft is a request's time to first token: a prompt already cached is WarmTTFT; a
// cold one reads its uncached tokens at PrefillRate, slower beside busy requests.
func (s *Server) ttft(rec *Record, busy int) time.Duration {
	if !rec.Cold {
		return s.cfg.WarmTTFT
	}
	read := rec.Prompt
	if rec.CacheN != nil {
		read -= *rec.CacheN // a llama-server slot held the chat template's start
	}
	return time.Duration(float64(read) / s.cfg.PrefillRate * float64(time.Second) * (1 + s.cfg.PrefillContention*float64(busy)))
}

// length is how many tokens a request generates and its finish reason: all it asked
// for ("length"), a llama-server slot's end ("length"), or an EOS (EOSAfter, "stop").
func (s *Server) length(rec *Record) (int, string) {
	limit := s.llamaLimit(rec)
	if e := s.cfg.EOSAfter; e > 0 && rec.MaxTokens > 1 && e < limit {
		return e, "stop"
	}
	return limit, "length"
}

// streamHeaders starts a streamed answer (through a buffering proxy with Buffered)
// and returns the writer to stream through and what to call when done.
func (s *Server) streamHeaders(w http.ResponseWriter) (http.ResponseWriter, http.Flusher, func()) {
	fl, _ := w.(http.Flusher)
	release := func() {}
	if s.cfg.Buffered {
		b := &bufferedWriter{ResponseWriter: w}
		w, fl, release = b, b, b.release
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	if s.cfg.Llama != nil {
		w.Header().Set("Keep-Alive", "timeout=5, max=100") // cpp-httplib's, on every kept response
	}
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	return w, fl, release
}

// stallAt is when rec stops sending under Config.Stall; zero when it does not.
func (s *Server) stallAt(rec *Record, start time.Time) time.Time {
	st := s.cfg.Stall
	if st == nil || st.Every <= 0 || rec.MaxTokens <= 16 {
		return time.Time{}
	}
	s.mu.Lock()
	s.long++
	n := s.long
	s.mu.Unlock()
	if (n-1)%st.Every != 0 {
		return time.Time{}
	}
	return start.Add(st.After)
}

func (s *Server) adjust(running, waiting int) {
	s.mu.Lock()
	s.running += running
	s.waiting += waiting
	s.mu.Unlock()
}

func (s *Server) markCancelled(rec *Record) {
	s.mu.Lock()
	rec.Cancelled = true
	s.mu.Unlock()
}

func (s *Server) emitted(rec *Record, k int) time.Time {
	now := time.Now()
	s.mu.Lock()
	rec.Emits = append(rec.Emits, Emit{At: now, K: k})
	s.genTotal += int64(k)
	s.mu.Unlock()
	return now
}

// streamState renders one request's events.
type streamState struct {
	s     *Server
	rec   *Record
	frame Frame
	first bool
	empty bool // the next token renders as no text
	// finish is the request's finish reason: "length", or "stop" at an EOS.
	finish string
}

func (s *Server) newStreamState(rec *Record, id int64) *streamState {
	f := Frame{ID: strconv.FormatInt(id, 10), Created: time.Now().Unix(), Model: s.model, Prompt: rec.Prompt, Total: rec.Prompt}
	switch {
	case rec.CacheN != nil:
		f.Cached = *rec.CacheN // a llama-server slot's cache
	case !rec.Cold:
		f.Cached = rec.Prompt - rec.Prompt%16
	}
	f.PromptN = f.Prompt - f.Cached
	so := rec.Body.StreamOptions
	f.Usage = so != nil && so.IncludeUsage && so.ContinuousUsageStats && s.shape.ContinuousUsage
	f.Timings = rec.Body.TimingsPerToken && s.shape.TimingsPerToken
	return &streamState{s: s, rec: rec, frame: f, first: true, empty: s.cfg.EmptyFirstToken}
}

func (st *streamState) stepEvents(k int, last bool) []byte {
	var out []byte
	sh := st.s.shape
	if st.first {
		st.first = false
		if b, ok := sh.render("first", st.frame); ok {
			out = append(out, b...)
		}
	}
	finish := ""
	if last && !sh.has("finish") {
		finish = st.finish
	}
	emit := func(n int, final bool) {
		words := n
		if st.empty {
			// The first token's piece is not a whole character: it adds no text.
			st.empty = false
			words--
		}
		st.frame.Text, st.frame.K = strings.Repeat(" tok", words), n
		st.frame.DeltaKey = st.deltaKey()
		st.frame.Generated += n
		st.frame.Total = st.frame.Prompt + st.frame.Generated
		st.frame.Finish = ""
		if final {
			st.frame.Finish = finish
		}
		if words == 0 && st.frame.Finish == "" {
			return // the engine holds a piece with no text back (Ollama's runner)
		}
		if sh.Draft {
			st.frame.DraftN, st.frame.DraftAccepted = st.frame.Generated, st.frame.Generated*3/4
		}
		b, _ := sh.render("step", st.frame)
		out = append(out, b...)
	}
	if sh.PerTokenEvents {
		for i := 0; i < k; i++ {
			emit(1, i == k-1)
		}
	} else {
		emit(k, true)
	}
	return out
}

// deltaKey is the field the next token's text goes in: the reasoning field while
// the request is thinking (Config.Reasoning), then content.
func (st *streamState) deltaKey() string {
	cfg := &st.s.cfg
	if st.rec.MaxTokens <= 1 || st.frame.Generated >= cfg.Reasoning {
		return "content"
	}
	if cfg.ReasoningField != "" {
		return cfg.ReasoningField
	}
	return "reasoning"
}

func (st *streamState) endEvents(produced int) []byte {
	var out []byte
	sh := st.s.shape
	f := st.frame
	f.Generated, f.Total, f.Finish, f.Text, f.K = produced, f.Prompt+produced, st.finish, "", 0
	if b, ok := sh.render("finish", f); ok {
		out = append(out, b...)
	}
	so := st.rec.Body.StreamOptions
	if so != nil && so.IncludeUsage && sh.IncludeUsage {
		if b, ok := sh.render("usage", f); ok {
			out = append(out, b...)
		}
	}
	b, _ := sh.render("done", f)
	return append(out, b...)
}

// whole answers in one JSON body after the whole generation's time, as a server that
// ignores stream:true does. It reports whether the client stayed.
func (s *Server) whole(w http.ResponseWriter, r *http.Request, rec *Record, id int64, first time.Time) bool {
	end := first.Add(time.Duration(max(rec.MaxTokens-1, 0)) * s.cfg.Step)
	if !clock.Until(r.Context(), end) {
		s.markCancelled(rec)
		return false
	}
	n := rec.MaxTokens
	s.emitted(rec, n)
	resp := map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", id), "object": "chat.completion", "created": time.Now().Unix(), "model": s.model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "length",
			"message": map[string]any{"role": "assistant", "content": strings.TrimSpace(strings.Repeat(" tok", n))}}},
		"usage": map[string]any{"prompt_tokens": rec.Prompt, "completion_tokens": n, "total_tokens": rec.Prompt + n},
	}
	writeJSON(w, http.StatusOK, resp)
	return true
}

func (s *Server) tokenizeRoute(path string) bool {
	switch s.cfg.Tokenize {
	case "vllm", "llamacpp", "tgi":
		return path == "/tokenize"
	case "sglang":
		return path == "/v1/tokenize" || path == "/tokenize"
	}
	return false
}

func (s *Server) tokenize(w http.ResponseWriter, r *http.Request) {
	var body requestBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error()})
		return
	}
	n := s.promptTokens(body)
	ids := make([]int, n)
	for i := range ids {
		ids[i] = 1000 + i%100
	}
	switch s.cfg.Tokenize {
	case "tgi":
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = map[string]any{"id": ids[i], "text": "tok", "start": i * 4, "stop": i*4 + 3}
		}
		writeJSON(w, http.StatusOK, out)
	case "llamacpp":
		writeJSON(w, http.StatusOK, map[string]any{"tokens": ids})
	default:
		writeJSON(w, http.StatusOK, map[string]any{"count": n, "tokens": ids, "max_model_len": s.cfg.MaxModelLen})
	}
}

// liveFamilies are the gauges and counters the replay serves live, by the name on
// the wire: in a recorded metrics page, their samples carry the replay's values
// instead (the first series the live value, any other 0).
var liveFamilies = map[string]func(running, waiting int, gen int64) float64{
	"vllm:num_requests_running":    func(r, _ int, _ int64) float64 { return float64(r) },
	"vllm:num_requests_waiting":    func(_, w int, _ int64) float64 { return float64(w) },
	"vllm:generation_tokens_total": func(_, _ int, g int64) float64 { return float64(g) },
	"sglang:num_running_reqs":      func(r, _ int, _ int64) float64 { return float64(r) },
	"sglang:num_queue_reqs":        func(_, w int, _ int64) float64 { return float64(w) },
	"llamacpp:requests_processing": func(r, _ int, _ int64) float64 { return float64(r) },
	"llamacpp:requests_deferred":   func(_, w int, _ int64) float64 { return float64(w) },
	"tgi_batch_current_size":       func(r, _ int, _ int64) float64 { return float64(r) },
	"tgi_queue_size":               func(_, w int, _ int64) float64 { return float64(w) },
	"trtllm_num_requests_running":  func(r, _ int, _ int64) float64 { return float64(r) },
	"trtllm_num_requests_waiting":  func(_, w int, _ int64) float64 { return float64(w) },
}

func (s *Server) live() (running, waiting int, gen int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running, s.waiting, s.genTotal
}

// metrics serves the recorded /metrics page with live values: a Prometheus page with
// its live families rewritten (vLLM's added when the page has none), or TensorRT-LLM's
// JSON iteration stats with live request counts.
func (s *Server) metrics(w http.ResponseWriter, path string) {
	running, waiting, gen := s.live()
	page, ok := s.recorded(path)
	var iters []map[string]any
	if ok && json.Unmarshal(page, &iters) == nil && len(iters) > 0 {
		last := iters[len(iters)-1]
		last["numActiveRequests"], last["numQueuedRequests"] = running, waiting
		writeJSON(w, http.StatusOK, []any{last})
		return
	}
	var b strings.Builder
	seen := map[string]bool{}
	for _, line := range strings.Split(string(page), "\n") {
		if line == "" {
			continue
		}
		name := line
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name = line[:i]
		}
		if f, live := liveFamilies[name]; live && !strings.HasPrefix(line, "#") {
			v := 0.0
			if !seen[name] {
				v = f(running, waiting, gen)
			}
			seen[name] = true
			labels := ""
			if i := strings.IndexByte(line, '{'); i >= 0 {
				if j := strings.LastIndexByte(line, '}'); j > i {
					labels = line[i : j+1]
				}
			}
			fmt.Fprintf(&b, "%s%s %g\n", name, labels, v)
			continue
		}
		b.WriteString(line + "\n")
	}
	if !ok && s.cfg.KVCacheTokens > 0 {
		fmt.Fprintf(&b, "# TYPE vllm:cache_config_info gauge\nvllm:cache_config_info{block_size=\"16\",enable_prefix_caching=\"True\",engine=\"0\",kv_cache_size_tokens=\"%d\",num_gpu_blocks=\"%d\"} 1.0\n", s.cfg.KVCacheTokens, s.cfg.KVCacheTokens/16)
	}
	if !seen["vllm:num_requests_running"] && (s.shape.Engine == "vllm" || !ok) {
		labels := fmt.Sprintf(`{engine="0",model_name=%q}`, s.model)
		fmt.Fprintf(&b, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running%s %d.0\n", labels, running)
		fmt.Fprintf(&b, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting%s %d.0\n", labels, waiting)
		fmt.Fprintf(&b, "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total%s %d.0\n", labels, gen)
	}
	if s.spec != nil {
		b.WriteString(s.spec.page(gen))
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write([]byte(b.String()))
}

// loads is SGLang's /v1/loads with live request counts.
func (s *Server) loads(w http.ResponseWriter) {
	running, waiting, _ := s.live()
	writeJSON(w, http.StatusOK, map[string]any{"loads": []any{map[string]any{"dp_rank": 0, "num_running_reqs": running, "num_waiting_reqs": waiting, "token_usage": 0.1}}})
}

// props is llama-server's GET /props (tools/server/server-context.cpp get_res_props):
// the per-slot context under default_generation_settings, the slot count, the model's
// name (its path without -a), file and type, the build.
func (s *Server) props(w http.ResponseWriter) {
	l := s.cfg.Llama
	build, ftype := l.Build, l.Ftype
	if build == "" {
		build = "b7000-replay"
	}
	if ftype == "" {
		ftype = "Q4_K - Medium"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"default_generation_settings": map[string]any{"n_ctx": l.NCtx, "params": map[string]any{"n_predict": -1}},
		"total_slots":                 l.Slots,
		"model_alias":                 s.model,
		"model_ftype":                 ftype,
		"model_path":                  s.modelPath(),
		"build_info":                  build,
		"modalities":                  map[string]bool{"vision": false},
	})
}

// slotsRoute is llama-server's GET /slots (server_slot::to_json): one entry per slot,
// is_processing live.
func (s *Server) slotsRoute(w http.ResponseWriter) {
	l := s.cfg.Llama
	busy := s.llama.busy()
	out := make([]map[string]any, len(busy))
	for i := range out {
		out[i] = map[string]any{"id": i, "n_ctx": l.NCtx, "speculative": l.Speculative, "is_processing": busy[i]}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) hasDiscovery(path string) bool {
	_, ok := s.recorded(path)
	return ok
}

// recorded returns the discovery file for path ("/v1/models" → v1_models.json|.txt).
func (s *Server) recorded(path string) ([]byte, bool) {
	if s.cfg.Discovery == "" {
		return nil, false
	}
	name := strings.ReplaceAll(strings.Trim(path, "/"), "/", "_")
	for _, ext := range []string{".json", ".txt"} {
		if b, err := os.ReadFile(filepath.Join(s.cfg.Discovery, name+ext)); err == nil {
			return b, true
		}
	}
	return nil, false
}

func (s *Server) discovery(w http.ResponseWriter, r *http.Request) {
	b, ok := s.recorded(r.URL.Path)
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
		return
	}
	if json.Valid(b) {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	}
	w.Write(b)
}

// discoveredModel is the first model the recorded /v1/models lists.
func (s *Server) discoveredModel() string {
	b, ok := s.recorded("/v1/models")
	if ok {
		var ml struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if json.Unmarshal(b, &ml) == nil && len(ml.Data) > 0 {
			return ml.Data[0].ID
		}
	}
	return "replay"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// Truth is what the server really sent inside a window, by methodology.md's
// definitions: tokens written inside (open, close] over the window's length, and the
// median over requests of the time per output token inside it (TPOT as tpotSpan in
// internal/bench defines it: from a request's first write, over its tokens less one;
// for one the window's open cut into, from its last write before the window, over
// the tokens written inside). keep selects the requests (nil: every decode request).
func Truth(records []*Record, open, close time.Time, keep func(*Record) bool) (tokS, tbtMs float64) {
	n := 0
	var tpots []float64
	for _, r := range records {
		if keep != nil && !keep(r) || keep == nil && r.MaxTokens <= 1 {
			continue
		}
		var start, last time.Time
		after, seen := 0, false
		for k, e := range r.Emits {
			if !e.At.After(open) || e.At.After(close) {
				continue
			}
			n += e.K
			switch {
			case seen:
				after += e.K
			case k == 0: // the request's first token: vLLM's (last − first) / (tokens − 1)
				start, after, seen = e.At, e.K-1, true
			default: // cut by the window's open: from the emission before it
				start, after, seen = r.Emits[k-1].At, e.K, true
			}
			last = e.At
		}
		if after > 0 && last.After(start) {
			tpots = append(tpots, float64(last.Sub(start))/float64(time.Millisecond)/float64(after))
		}
	}
	secs := close.Sub(open).Seconds()
	if secs <= 0 {
		return 0, 0
	}
	return float64(n) / secs, median(tpots)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sortFloats(s)
	pos := 0.5 * float64(len(s)-1)
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}
