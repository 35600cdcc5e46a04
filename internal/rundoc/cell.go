package rundoc

import "math"

// This file holds a prefill row and a decode cell: their figures, counts and detail.

// Measured says whether a rate or a latency of a row or cell (prompt, total or
// per-request tok/s, TTFT, TBT, a window's length) is a measurement: finite and above
// 0. A document that leaves the figure out, or writes null, reads as 0, and no
// measured cell streams at 0 tok/s or answers in 0 ms: a tool that writes 0 for what
// it did not measure has not measured it. Reports print such a figure as "—", the
// site leaves the cell out of that figure's boards, and both keep its other figures.
func Measured(v float64) bool { return v > 0 && !math.IsInf(v, 0) }

// PrefillRow is one prefill measurement: a cold request of Context prompt tokens.
type PrefillRow struct {
	Context int    `json:"context"`
	Status  Status `json:"status"`
	Reason  string `json:"reason,omitempty"`
	*PrefillFigures
	*PrefillEnergy
	*PrefillIntervals
}

// PrefillFigures are present when the row was measured or predicted.
type PrefillFigures struct {
	PromptTokS        float64 `json:"prompt_tok_s"`
	TTFTMs            float64 `json:"ttft_ms"`
	CompletedRequests int     `json:"completed_requests,omitempty"`

	// Extensions.
	PromptTokens int  `json:"prompt_tokens,omitempty"` // what the server counted
	CachedTokens *int `json:"cached_tokens,omitempty"` // server-reported, when it says
	// Attempts is how many cold requests it took (the failed ones retried under the
	// retry policy, each with a fresh nonce); absent when one did.
	Attempts int `json:"attempts,omitempty"`
	// SettleMs is how long the run waited for the server to go idle before it.
	SettleMs *float64 `json:"settle_ms,omitempty"`
}

// DecodeCell is one sustained-decode measurement: Concurrency streams at Context.
type DecodeCell struct {
	Context     int    `json:"context"`
	Concurrency int    `json:"concurrency"`
	Status      Status `json:"status"`
	Reason      string `json:"reason,omitempty"`
	*DecodeFigures
	*WindowStats
	*CellDetail
	*CellEnergy
	*CellIntervals
	// Workload is what a cell of a workload (sessions, a dataset) measured beyond
	// the matrix's figures (workload.go).
	Workload *WorkloadFigures `json:"workload,omitempty"`
}

// DecodeFigures are the headline figures of a cell, measured or predicted.
type DecodeFigures struct {
	TotalTokS      float64 `json:"total_tok_s"`
	PerRequestTokS float64 `json:"per_request_tok_s"`
	TTFTMs         float64 `json:"ttft_ms"`
	TBTMs          float64 `json:"tbt_ms"`
}

// WindowStats are the counts of a measured window.
type WindowStats struct {
	AvgActiveRequests float64 `json:"avg_active_requests"`
	CompletedRequests int     `json:"completed_requests"`
	OutputTokens      int     `json:"output_tokens"`
	MeasuredS         float64 `json:"measured_s"`
	// AvgInFlight is the time-weighted mean of requests in flight over the window
	// (sent, not ended); AvgActiveRequests counts only those producing: past their
	// first token, not ended, not inside a stall. Absent in older documents, whose
	// avg_active_requests counted every request in flight.
	AvgInFlight *float64 `json:"avg_in_flight,omitempty"`
}

// CellDetail is what a measured cell adds beyond the seed's table (extensions).
type CellDetail struct {
	TTFTP90Ms   *float64 `json:"ttft_p90_ms,omitempty"`
	TTFTP99Ms   *float64 `json:"ttft_p99_ms,omitempty"`
	TBTP90Ms    *float64 `json:"tbt_p90_ms,omitempty"`
	TBTP99Ms    *float64 `json:"tbt_p99_ms,omitempty"`
	TTFTSamples int      `json:"ttft_samples,omitempty"`
	TBTSamples  int      `json:"tbt_samples,omitempty"`
	// TPOTStreams is how many streams' time per output token tbt_ms is the median of;
	// ITLMs the time between consecutive token-bearing chunks (inter-chunk latency).
	// tbt_p90_ms and tbt_p99_ms are the tails of the per-token gaps (a chunk of k
	// tokens gives k gaps of gap/k), as in older documents.
	TPOTStreams int        `json:"tpot_streams,omitempty"`
	ITLMs       *ChunkGaps `json:"itl_ms,omitempty"`
	// MaxStallMs is the longest time any producing stream went without a token inside
	// the window; StalledStreams how many went longer than max(1 s, 20 median chunk
	// gaps); StallShare the share of the window's stream-seconds those stalls took.
	MaxStallMs     *float64 `json:"max_stall_ms,omitempty"`
	StalledStreams int      `json:"stalled_streams,omitempty"`
	StallShare     *float64 `json:"stall_share,omitempty"`
	// TokenCountBound is the relative bound (0.012: ±1.2%) on output_tokens where
	// some of them were estimated (spread from a request's total, or from the tokens
	// per chunk of other requests); absent where every token was counted.
	TokenCountBound *float64 `json:"token_count_bound,omitempty"`
	// CalibrationRequests is how many short requests the cell sent after its window to
	// learn the server's tokens per chunk (flag chunks_calibrated; chunkcalib.go).
	CalibrationRequests int `json:"calibration_requests,omitempty"`
	// TPOTBound is the relative bound on tbt_ms where the split of requests' tokens
	// over their chunks was estimated (bound.go tpotBound); absent where it was not.
	TPOTBound    *float64 `json:"tpot_bound,omitempty"`
	Requests     int      `json:"requests,omitempty"`      // requests sent in the cell
	Errors       int      `json:"errors,omitempty"`        // requests that failed
	ErrorSamples []string `json:"error_samples,omitempty"` // the first few distinct errors
	EndedEarly   int      `json:"ended_early,omitempty"`   // finished before max_output (EOS, or "length" short of it)
	// EarlyEndLoss is the share of the window's stream-time that the requests which
	// replaced those ended early spent before their first token (their prefill, queue
	// and gap): how far the early ends can have moved total tok/s. Absent with no early
	// end.
	EarlyEndLoss *float64 `json:"early_end_loss,omitempty"`
	// Reconnects counts requests sent again at once on a new connection because the
	// server had closed the kept one before answering (never an error: no handler
	// saw them; internal/openai reconnect.go).
	Reconnects int `json:"reconnects,omitempty"`
	// StreamsArrivedWhole counts the requests with tokens in the window whose every
	// token arrived at once (a buffering proxy's stream): their times were not
	// measured.
	StreamsArrivedWhole int `json:"streams_arrived_whole,omitempty"`
	PromptTokens        int `json:"prompt_tokens,omitempty"` // server-counted prompt tokens of one request
	// ServerOutputTokens is the server's own count (usage) for the requests that
	// reported one; compared with the client's count.
	ServerOutputTokens *int     `json:"server_output_tokens,omitempty"`
	CachedTokens       *int     `json:"cached_tokens,omitempty"`
	CacheHitRatio      *float64 `json:"cache_hit_ratio,omitempty"`
	Queueing           bool     `json:"queueing,omitempty"`
	// PeakStreaming is the most requests that were streaming tokens at one instant
	// (first token seen, not yet ended) at any time in the cell, ramp-up included.
	// Below the concurrency, the server never ran every request at once: it queued
	// them, whether or not it has a gauge that says so.
	PeakStreaming int            `json:"peak_streaming_requests,omitempty"`
	Preemptions   *int           `json:"preemptions,omitempty"`
	Server        *ServerMetrics `json:"server_metrics,omitempty"`
	ClientLimited bool           `json:"client_limited,omitempty"`
	Flags         []string       `json:"flags,omitempty"`

	// Token counts side by side: the client's own count of the window's tokens
	// (one per chunk that showed a token, or the server's per-chunk count), the
	// server's generation counter over the window where it has one, and how the
	// published output_tokens were resolved (CountServerPerChunk ... CountClientOnly).
	ClientOutputTokens     *int     `json:"client_output_tokens,omitempty"`
	ServerGenerationTokens *float64 `json:"server_generation_tokens,omitempty"`
	TokenCountSource       string   `json:"token_count_source,omitempty"`
	// Timing resolution: the share of the window's token events that arrived within
	// 200 µs of the one before, and the events each read of a body brought.
	ZeroGapShare  *float64 `json:"zero_gap_share,omitempty"`
	EventsPerRead *float64 `json:"events_per_read,omitempty"`
	// SkippedEvents counts stream events that were not chunks (keep-alives, other
	// event types, data that is not JSON).
	SkippedEvents int `json:"skipped_events,omitempty"`
	// ClientCPU is the share of all CPUs the measuring process used in the window,
	// ClientCPUS its CPU time there in seconds; MachineCPU the share the whole
	// machine used (when the server is local).
	ClientCPU  *float64 `json:"client_cpu_util,omitempty"`
	ClientCPUS *float64 `json:"client_cpu_s,omitempty"`
	MachineCPU *float64 `json:"machine_cpu_util,omitempty"`
	// Outcomes counts the cell's requests by outcome (finished, cancelled,
	// retryable, failed, incomplete).
	Outcomes map[string]int `json:"request_outcomes,omitempty"`
	// SettleMs is how long the run waited for the server to go idle before the cell;
	// SettledBy says how it knew ("gauge", "gauge_timeout", "time").
	SettleMs  *float64 `json:"settle_ms,omitempty"`
	SettledBy string   `json:"settled_by,omitempty"`
	// A reasoning model's cell (docs/run.md "Reasoning"): TTFOMs is the median time to
	// the first answer token — the first that is not reasoning, AIPerf's time to first
	// output token — from the request's send, over the TTFOSamples requests that had
	// one (ttft_ms counts reasoning tokens as first tokens); ReasoningTokens and
	// AnswerTokens are the client's counts by each chunk's kind over the cell's
	// requests. Absent where no token came as reasoning.
	TTFOMs          *float64 `json:"ttfo_ms,omitempty"`
	TTFOSamples     int      `json:"ttfo_samples,omitempty"`
	ReasoningTokens *int     `json:"reasoning_tokens,omitempty"`
	AnswerTokens    *int     `json:"answer_tokens,omitempty"`
	// Series is the window slice by slice; RateDrift, with the flag rate_drift, says
	// where its rate moved beyond its own noise (docs/run.md "Inside a window").
	Series    *Series `json:"series,omitempty"`
	RateDrift *Drift  `json:"rate_drift,omitempty"`
}

// Flags that the report writes as sentences of their own (the others it names).
const (
	// FlagSpecRandomWords flags a measurement whose server drafted tokens (speculative
	// decoding) while its prompts were random common words: drafts are accepted far
	// less on random words than on real text, so its acceptance rate, and its speed,
	// under-state what drafting gains on what users send (docs/workloads.md "Prompt
	// text").
	FlagSpecRandomWords = "spec_decode_random_words"
	// FlagRateDrift flags a matrix cell whose window's rate stepped beyond its noise
	// (CellDetail.RateDrift), and a rate cell whose stream rate did
	// (RateFigures.RateDrift).
	FlagRateDrift = "rate_drift"
)

// Series is a measurement slice by slice (docs/run.md "Inside a window"): its span — a
// decode cell's window, a rate cell's first scheduled send to its last end — cut into
// equal slices of about --timeslice (one second unless asked), each slice's figures
// at its index.
type Series struct {
	// SliceS is the slices' length in seconds.
	SliceS float64 `json:"slice_s"`
	// TokS is the output tokens that arrived in each slice over its length (a decode
	// cell's counted as output_tokens is; a rate cell's by the client's count).
	TokS []float64 `json:"tok_s"`
	// Producing is the mean number of requests streaming in each slice: past their
	// first token, not ended.
	Producing []float64 `json:"producing"`
	// TTFTMs is the median time to first token of the requests that started in each
	// slice (a decode cell's sent, a rate cell's scheduled), as the cell times TTFT;
	// null where none started.
	TTFTMs []*float64 `json:"ttft_ms"`
}

// Drift is how a window's rate moved (flag rate_drift): split where its one-second
// batches' rates differ most, the mean rate before and after the split, and how
// many standard errors of the batches' own noise apart they are.
type Drift struct {
	AtS        float64 `json:"at_s"` // the split, in seconds after the window opened
	BeforeTokS float64 `json:"before_tok_s"`
	AfterTokS  float64 `json:"after_tok_s"`
	// T is the difference over its standard error (the batches' pooled spread); absent
	// where the batches on either side did not vary at all.
	T *float64 `json:"t,omitempty"`
}

// ServerMetrics summarises the server's live gauges sampled during a cell.
type ServerMetrics struct {
	Samples     int      `json:"samples"`
	Running     *MinMean `json:"running,omitempty"`
	Waiting     *MinMean `json:"waiting,omitempty"`
	KVUsage     *MinMean `json:"kv_usage,omitempty"`
	Preemptions *float64 `json:"preemptions,omitempty"` // counter delta over the cell
	// Prefix-cache counters' deltas over the window, in prompt tokens, where exposed.
	PrefixCacheQueries *float64 `json:"prefix_cache_queries,omitempty"`
	PrefixCacheHits    *float64 `json:"prefix_cache_hits,omitempty"`
	// GenerationTokens is the server's generation-token counter's increase over the
	// window, where the counter moves every step (vLLM's vllm:generation_tokens).
	GenerationTokens *float64 `json:"generation_tokens,omitempty"`
	// SpecDecode is speculative decoding over the window, from the server's draft
	// counters (absent where it exposes none or drafted nothing).
	SpecDecode *SpecDecode `json:"spec_decode,omitempty"`
}

// SpecDecode is speculative decoding over a window, from the server's counters
// (docs/workloads.md "Speculative decoding"): vLLM's spec_decode counters or SGLang's
// verify steps and generated tokens.
type SpecDecode struct {
	// Source names the counters the figures come from.
	Source string `json:"source"`
	// Drafts (draft rounds; SGLang's verify steps), drafted and accepted tokens: the
	// counters' increases over the window (SGLang counts neither drafted nor accepted
	// tokens).
	Drafts         float64 `json:"drafts"`
	DraftTokens    float64 `json:"draft_tokens,omitempty"`
	AcceptedTokens float64 `json:"accepted_tokens,omitempty"`
	// AcceptanceRate is accepted / drafted tokens (absent where the counters cannot
	// say: SGLang's rate is a gauge, GaugeAcceptRate).
	AcceptanceRate *float64 `json:"acceptance_rate,omitempty"`
	// MeanAcceptedLength is the tokens one draft round yields, the bonus token
	// included: vLLM's 1 + accepted/drafts, SGLang's generated tokens per verify step.
	MeanAcceptedLength *float64 `json:"mean_accepted_length,omitempty"`
	// PerPosition is vLLM's acceptance by draft position: accepted at position i /
	// drafts.
	PerPosition []float64 `json:"acceptance_by_position,omitempty"`
	// GaugeAcceptRate is SGLang's spec_accept_rate gauge (its last logging interval,
	// averaged over the window's readings).
	GaugeAcceptRate *float64 `json:"gauge_acceptance_rate,omitempty"`
}

// MinMean is min/mean/max of a sampled gauge.
type MinMean struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
}

// ChunkGaps are the percentiles of the time between consecutive token-bearing chunks
// of a stream inside the window (inter-chunk latency), in ms; a tail without enough
// samples is absent.
type ChunkGaps struct {
	P50     float64  `json:"p50"`
	P90     *float64 `json:"p90,omitempty"`
	P99     *float64 `json:"p99,omitempty"`
	Samples int      `json:"samples"`
}

// How a cell's token counts are known, strongest first. The cell names the weakest
// one any of its window's tokens needed (CellDetail.TokenCountSource).
const (
	CountServerPerChunk = "server_per_chunk" // continuous usage, llama.cpp timings_per_token
	CountServerTotals   = "server_totals"    // finished requests' usage
	CountTokenizeRoute  = "tokenize_route"   // the server's tokenize route on the text that arrived
	CountFinishedRatio  = "finished_ratio"   // tokens per chunk of the requests the server counted
	CountMetricsCounter = "metrics_counter"  // the server's generation-token counter over the window
	CountClientOnly     = "client_only"      // nothing the server said: not verified
)
