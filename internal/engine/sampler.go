package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// Metric names per engine, newest first: the first one a page has is used. Counters
// are listed without _total (families.find tries both).
var (
	runningNames = []string{"vllm:num_requests_running", "sglang:num_running_reqs", "llamacpp:requests_processing", "tgi_batch_current_size", "trtllm_num_requests_running"}
	waitingNames = []string{"vllm:num_requests_waiting", "sglang:num_queue_reqs", "llamacpp:requests_deferred", "tgi_queue_size", "trtllm_num_requests_waiting"}
	// vllm:gpu_cache_usage_perc is the name before 0.9 (removed in 0.12).
	kvUsageNames    = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage", "trtllm_kv_cache_utilization"}
	preemptNames    = []string{"vllm:num_preemptions", "sglang:num_retracted_requests"}
	prefixQueryName = []string{"vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries", "sglang:prompt_tokens"}
	prefixHitName   = []string{"vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits", "sglang:cached_tokens"}
	// generationNames are generation-token counters that move every engine step, so
	// their increase over a window is the window's tokens: vLLM's (v1/metrics/
	// loggers.py record: counter_generation_tokens.inc per iteration). SGLang's,
	// llama.cpp's and TGI's count a request when it finishes, which says nothing about
	// a window whose requests are cut at its end, so they are not read.
	generationNames = []string{"vllm:generation_tokens"}
)

// source says how a sampler reads the server's live state.
type source int

const (
	srcPrometheus  source = iota // a Prometheus text page (vLLM, SGLang, llama.cpp --metrics, TGI)
	srcSGLangLoads               // SGLang's JSON /v1/loads, when --enable-metrics is off
	srcLlamaSlots                // llama.cpp's /slots: running = slots processing
	srcTRTLLMStats               // TensorRT-LLM's JSON iteration stats on /metrics
)

// reading is one scrape. A nil field was not exposed.
type reading struct {
	running, waiting, kvUsage *float64
	preemptions               *float64
	prefixQueries, prefixHits *float64
	generation                *float64
	spec                      SpecCounters
}

// Sampler scrapes a server's live metrics while a cell runs and summarises them.
// A nil *Sampler is valid and does nothing, so callers need not check whether the
// engine exposes metrics.
type Sampler struct {
	c    Doer
	url  string
	src  source
	mu   sync.Mutex
	seen []reading
	// first and last hold the counters at the start and end of the window.
	first, last *reading

	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// NewSampler returns a sampler for the server probe described by info, or nil when
// the server exposes no live metrics llmbench can read.
func NewSampler(c Doer, base string, info *Info) *Sampler {
	if info == nil {
		return nil
	}
	root, err := NormalizeBase(base)
	if err != nil {
		return nil
	}
	s := &Sampler{c: c}
	switch {
	case info.Metrics != nil && info.MetricsFormat == "json" && info.Engine == TRTLLM:
		s.src, s.url = srcTRTLLMStats, root+*info.Metrics
	case info.Metrics != nil:
		s.src, s.url = srcPrometheus, root+*info.Metrics
	case info.Loads != nil:
		s.src, s.url = srcSGLangLoads, root+*info.Loads
	case info.Engine == LlamaCpp:
		s.src, s.url = srcLlamaSlots, root+"/slots"
	default:
		return nil
	}
	return s
}

// Start samples now and then every interval until Stop or until ctx ends.
func (s *Sampler) Start(ctx context.Context, interval time.Duration) {
	if s == nil {
		return
	}
	if interval <= 0 {
		interval = 500 * time.Millisecond
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		// A scrape may take longer than a short interval (a first connection, a busy
		// server); it is bounded by Stop's cancel, not by the interval, so that no
		// reading is lost, and the ticker skips the ticks it overran.
		timeout := max(interval, 5*time.Second)
		for {
			s.sample(ctx, timeout)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// Stop ends sampling, takes a last reading for the counters, and returns the
// summary (nil when no reading succeeded).
func (s *Sampler) Stop() *rundoc.ServerMetrics {
	if s == nil {
		return nil
	}
	s.once.Do(func() {
		if s.cancel != nil {
			s.cancel()
			<-s.done
		}
		// The closing reading closes the counters' window even when the cell was
		// shorter than one interval.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		s.sample(ctx, 2*time.Second)
	})
	return s.summary()
}

// Running reads the server's running-requests gauge once (a sampler need not be
// started for it). ok is false when the server's answer has no such gauge.
func (s *Sampler) Running(ctx context.Context) (float64, bool) {
	if s == nil {
		return 0, false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r, err := s.read(ctx)
	if errors.Is(err, errNoIteration) {
		return 0, true // TensorRT-LLM ran no iteration since the last read: idle
	}
	if err != nil || r.running == nil {
		return 0, false
	}
	return *r.running, true
}

// RunningGauge returns a reader of the server's running gauge, or nil when the
// server exposes none.
func RunningGauge(c Doer, base string, info *Info) func(context.Context) (float64, bool) {
	s := NewSampler(c, base, info)
	if s == nil {
		return nil
	}
	return s.Running
}

// PrefixCache returns the prefix-cache queried and hit token counts over the window
// (vLLM prefix_cache_queries/hits, SGLang prompt/cached tokens), after Stop.
func (s *Sampler) PrefixCache() (queries, hits float64, ok bool) {
	if s == nil {
		return 0, 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first == nil || s.last == nil {
		return 0, 0, false
	}
	q, okq := delta(s.first.prefixQueries, s.last.prefixQueries)
	h, okh := delta(s.first.prefixHits, s.last.prefixHits)
	if !okq || !okh {
		return 0, 0, false
	}
	return q, h, true
}

// SpecDecode returns speculative decoding over the window (after Stop): vLLM's draft
// counters' increases, or SGLang's verify steps and generated tokens (with its
// acceptance-rate gauge averaged over the readings). False when the server exposes
// none or drafted nothing in the window.
func (s *Sampler) SpecDecode() (*SpecDecode, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.specDecode()
}

// specDecode is SpecDecode with s.mu held.
func (s *Sampler) specDecode() (*SpecDecode, bool) {
	if s.first == nil || s.last == nil {
		return nil, false
	}
	d, ok := SpecDecodeBetween(s.first.spec, s.last.spec)
	if ok && d.GaugeAcceptRate != nil {
		if g := minMean(s.seen, func(r reading) *float64 { return r.spec.AcceptRate }); g != nil {
			d.GaugeAcceptRate = &g.Mean
		}
	}
	return d, ok
}

func (s *Sampler) sample(ctx context.Context, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := s.read(ctx)
	if err != nil {
		if ctx.Err() == nil {
			slog.Debug("sampling server metrics", "url", s.url, "err", err)
		}
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, r)
	if s.first == nil {
		s.first = &r
	}
	s.last = &r
}

func (s *Sampler) read(ctx context.Context) (reading, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return reading{}, err
	}
	resp, err := s.c.Do(req)
	if err != nil {
		return reading{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return reading{}, &statusError{url: s.url, status: resp.StatusCode}
	}
	b, err := readAllLimited(resp)
	if err != nil {
		return reading{}, err
	}
	switch s.src {
	case srcSGLangLoads:
		return parseSGLangLoads(b)
	case srcLlamaSlots:
		return parseLlamaSlots(b)
	case srcTRTLLMStats:
		return parseTRTLLMStats(b)
	default:
		return parsePromReading(b)
	}
}

// parsePromReading reads one Prometheus page into a reading.
func parsePromReading(b []byte) (reading, error) {
	fams, err := parseMetrics(b)
	if err != nil {
		return reading{}, err
	}
	var r reading
	get := func(names []string) *float64 {
		fam, _ := fams.find(names...)
		if v, ok := total(fam, nil); ok {
			return &v
		}
		return nil
	}
	r.running = get(runningNames)
	r.waiting = get(waitingNames)
	if fam, _ := fams.find(kvUsageNames...); fam != nil {
		if v, ok := mean(fam); ok {
			r.kvUsage = &v
		}
	}
	r.preemptions = get(preemptNames)
	r.prefixQueries = get(prefixQueryName)
	r.prefixHits = get(prefixHitName)
	r.generation = get(generationNames)
	r.spec = specCounters(fams)
	return r, nil
}

// parseSGLangLoads reads GET /v1/loads: a list of per-DP-rank loads, bare or under
// "loads".
func parseSGLangLoads(b []byte) (reading, error) {
	type load struct {
		NumRunning *float64 `json:"num_running_reqs"`
		NumWaiting *float64 `json:"num_waiting_reqs"`
		TokenUsage *float64 `json:"token_usage"`
	}
	var loads []load
	if err := json.Unmarshal(b, &loads); err != nil {
		var wrapped struct {
			Loads []load `json:"loads"`
		}
		if err2 := json.Unmarshal(b, &wrapped); err2 != nil {
			return reading{}, err
		}
		loads = wrapped.Loads
	}
	var r reading
	var run, wait, usage float64
	var nRun, nWait, nUsage int
	for _, l := range loads {
		if l.NumRunning != nil {
			run += *l.NumRunning
			nRun++
		}
		if l.NumWaiting != nil {
			wait += *l.NumWaiting
			nWait++
		}
		if l.TokenUsage != nil {
			usage += *l.TokenUsage
			nUsage++
		}
	}
	if nRun > 0 {
		r.running = &run
	}
	if nWait > 0 {
		r.waiting = &wait
	}
	if nUsage > 0 {
		u := usage / float64(nUsage)
		r.kvUsage = &u
	}
	return r, nil
}

// parseLlamaSlots counts the slots that are processing a request.
func parseLlamaSlots(b []byte) (reading, error) {
	var slots []struct {
		IsProcessing *bool `json:"is_processing"`
	}
	if err := json.Unmarshal(b, &slots); err != nil {
		return reading{}, err
	}
	n := 0.0
	for _, sl := range slots {
		if sl.IsProcessing != nil && *sl.IsProcessing {
			n++
		}
	}
	return reading{running: &n}, nil
}

// parseTRTLLMStats reads TensorRT-LLM's iteration stats (a JSON array, drained on
// read): the newest iteration gives the current state. An empty array (no
// iteration since the last read) is not a reading.
func parseTRTLLMStats(b []byte) (reading, error) {
	var iters []struct {
		NumActive *float64 `json:"numActiveRequests"`
		NumQueued *float64 `json:"numQueuedRequests"`
		KV        *struct {
			MaxNumBlocks  float64 `json:"maxNumBlocks"`
			UsedNumBlocks float64 `json:"usedNumBlocks"`
		} `json:"kvCacheStats"`
	}
	if err := json.Unmarshal(b, &iters); err != nil {
		return reading{}, err
	}
	if len(iters) == 0 {
		return reading{}, errNoIteration
	}
	it := iters[len(iters)-1]
	r := reading{running: it.NumActive, waiting: it.NumQueued}
	if it.KV != nil && it.KV.MaxNumBlocks > 0 {
		u := it.KV.UsedNumBlocks / it.KV.MaxNumBlocks
		r.kvUsage = &u
	}
	return r, nil
}

func (s *Sampler) summary() *rundoc.ServerMetrics {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) == 0 {
		return nil
	}
	m := &rundoc.ServerMetrics{Samples: len(s.seen)}
	m.Running = minMean(s.seen, func(r reading) *float64 { return r.running })
	m.Waiting = minMean(s.seen, func(r reading) *float64 { return r.waiting })
	m.KVUsage = minMean(s.seen, func(r reading) *float64 { return r.kvUsage })
	if d, ok := delta(s.first.preemptions, s.last.preemptions); ok {
		m.Preemptions = &d
	}
	if d, ok := delta(s.first.generation, s.last.generation); ok {
		m.GenerationTokens = &d
	}
	if d, ok := s.specDecode(); ok {
		m.SpecDecode = rounded(d)
	}
	return m
}

func minMean(rs []reading, f func(reading) *float64) *rundoc.MinMean {
	var out rundoc.MinMean
	n := 0
	for _, r := range rs {
		v := f(r)
		if v == nil {
			continue
		}
		if n == 0 || *v < out.Min {
			out.Min = *v
		}
		if n == 0 || *v > out.Max {
			out.Max = *v
		}
		out.Mean += *v
		n++
	}
	if n == 0 {
		return nil
	}
	out.Mean /= float64(n)
	return &out
}

// delta is a counter's increase over the window; a counter that went down (the
// server restarted) gives no figure rather than a wrong one.
func delta(a, b *float64) (float64, bool) {
	if a == nil || b == nil || *b < *a {
		return 0, false
	}
	return *b - *a, true
}

var errNoIteration = errors.New("no iteration stats since the last read")

type statusError struct {
	url    string
	status int
}

func (e *statusError) Error() string { return fmt.Sprintf("GET %s: HTTP %d", e.url, e.status) }

func readAllLimited(resp *http.Response) ([]byte, error) {
	return io.ReadAll(io.LimitReader(resp.Body, maxBody))
}
