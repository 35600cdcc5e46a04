// Package bench owns the speed test matrix: the plan (cells, over-capacity rule, fitting
// it to a server: plan.go), its orchestration (runner.go), the execution of one request
// (request.go: Send and the retry policy), of a row's cold request (warmup.go) and of a
// cell (execute.go), the wait for the server to drain (drain.go), one pure scoring path
// shared by the live run and Rescore (score.go, tokens.go, figures.go, on the records of
// record.go), the events log (events.go) and the run document (schema v1, this file).
//
// The run document's field names come from the seed run (internal/seed/seed-run.json) and are the
// contract between run, report, submit, the site and outside tools: extend, never rename.
package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// SchemaVersion is the run document version this package writes and reads.
const SchemaVersion = 1

// Status of a cell or a prefill row.
type Status string

const (
	StatusValid        Status = "valid"
	StatusOverCapacity Status = "over_capacity"
	StatusFailed       Status = "failed"
	StatusInterrupted  Status = "interrupted"
	StatusInvalid      Status = "invalid"
	// StatusPending marks a planned cell that has not run yet (only in a checkpoint
	// of a run in progress, so that --resume knows what is left).
	StatusPending Status = "pending"
	// StatusPredicted marks a calc document's cells: figures come from the
	// performance model, nothing was measured.
	StatusPredicted Status = "predicted"
)

// Document-level kinds, in Run.Status.
const (
	RunMeasured  = "measured"
	RunPredicted = "predicted"
	RunEmulated  = "emulated"
)

// Run is the run document, schema v1.
type Run struct {
	SchemaVersion int    `json:"schema_version"`
	ID            string `json:"id"`
	// Status says what kind of numbers the document holds: "measured" (or empty,
	// as in the seed), "emulated" (a run against llmbench's built-in emulator), or
	// "predicted" (a calc document).
	Status        string       `json:"status,omitempty"`
	Title         string       `json:"title,omitempty"`
	Submitter     string       `json:"submitter,omitempty"`
	CreatedAt     time.Time    `json:"created_at"`
	FinishedAt    *time.Time   `json:"finished_at,omitempty"`
	Tool          Tool         `json:"tool"`
	Hardware      Hardware     `json:"hardware"`
	Engine        Engine       `json:"engine"`
	Model         Model        `json:"model"`
	LaunchCommand string       `json:"launch_command,omitempty"`
	Config        Config       `json:"config"`
	Prefill       []PrefillRow `json:"prefill"`
	Decode        []DecodeCell `json:"decode"`

	// Extensions (not in the seed).
	Capacity *Capacity `json:"capacity,omitempty"`
	Client   *Client   `json:"client,omitempty"`
	Notes    []string  `json:"notes,omitempty"`
	// Energy says what was metered and at what price (energy.go).
	Energy *RunEnergy `json:"energy,omitempty"`
	// Rate holds the cells of an open-loop run (--rate), one per request rate, in
	// the order they ran; MaxRate the outcome of a --find-max-rate search.
	Rate    []RateCell `json:"rate,omitempty"`
	MaxRate *MaxRate   `json:"max_rate,omitempty"`
	// StreamCheck is what one short request showed of how the server streams, before
	// any measurement.
	StreamCheck *StreamCheck `json:"stream_check,omitempty"`
}

// StreamCheck is the result of the run's first request: a short one that shows
// whether the server streams and how it counts tokens.
type StreamCheck struct {
	Streams bool `json:"streams"`
	// ChunkUsage: the server counted every chunk's tokens when asked.
	ChunkUsage bool `json:"chunk_usage"`
	// TokensPerChunk is the request's tokens over its token-bearing chunks, where the
	// server said how many tokens it generated.
	TokensPerChunk *float64 `json:"tokens_per_chunk,omitempty"`
	Outcome        string   `json:"outcome"`
	Error          string   `json:"error,omitempty"`
	// Dropped names request fields the server refused (HTTP 400) and the run stopped
	// sending.
	Dropped []string `json:"dropped,omitempty"`
	// Tries is how many times the check was sent (a failure is retried under the
	// retry policy for at most 15 s); absent in older documents.
	Tries int `json:"tries,omitempty"`
}

// Tool names the program that produced the document.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Hardware describes the machine the server ran on.
type Hardware struct {
	Type     string `json:"type,omitempty"` // discrete_gpu, integrated_gpu, apple_silicon, cpu, emulated
	GPUs     []GPU  `json:"gpus,omitempty"`
	CPU      *CPU   `json:"cpu,omitempty"`
	RAMBytes int64  `json:"ram_bytes,omitempty"`
	OS       string `json:"os,omitempty"`
	Kernel   string `json:"kernel,omitempty"`
}

// GPU is one kind of accelerator in the machine (Count of them).
type GPU struct {
	Name        string  `json:"name"`
	Vendor      string  `json:"vendor,omitempty"`
	VRAMBytes   int64   `json:"vram_bytes,omitempty"`
	Count       int     `json:"count,omitempty"`
	Driver      string  `json:"driver,omitempty"`
	PowerLimitW float64 `json:"power_limit_w,omitempty"`
	PCIe        string  `json:"pcie,omitempty"`
}

// CPU is the host processor.
type CPU struct {
	Model string `json:"model"`
	Cores int    `json:"cores,omitempty"`
}

// Engine describes the inference server. Pointer fields are null when unknown.
type Engine struct {
	Name          string `json:"name"`
	Version       string `json:"version,omitempty"`
	Quantization  string `json:"quantization,omitempty"`
	Backend       string `json:"backend,omitempty"`
	Build         string `json:"build,omitempty"`
	KVCacheDtype  string `json:"kv_cache_dtype,omitempty"`
	KVCacheTokens *int64 `json:"kv_cache_tokens"`
	MaxModelLen   *int64 `json:"max_model_len"`
	MaxNumSeqs    *int64 `json:"max_num_seqs"`
	PrefixCaching *bool  `json:"prefix_caching"`

	// Extensions.
	Preset   string `json:"preset,omitempty"`   // the emulator's preset, for llmbench-sim
	Tokenize string `json:"tokenize,omitempty"` // the route used to count tokens
}

// Model names what was served.
type Model struct {
	ServedName string `json:"served_name"`
	ID         string `json:"id,omitempty"`
	Revision   string `json:"revision,omitempty"`
}

// Config is the plan the run followed.
type Config struct {
	Contexts        []int   `json:"contexts"`
	Concurrency     []int   `json:"concurrency"`
	PrefillContexts []int   `json:"prefill_contexts"`
	DurationS       float64 `json:"duration_s"`
	MaxOutputTokens int     `json:"max_output_tokens"`
	DecodeTest      string  `json:"decode_test"`  // fixed-duration
	PrefillMode     string  `json:"prefill_mode"` // decode-warmup | separate
	API             string  `json:"api"`          // chat | completions

	// Extensions.
	Seed       *int64 `json:"seed,omitempty"`
	KVCapacity *int64 `json:"kv_capacity_override,omitempty"`
	Quick      bool   `json:"quick,omitempty"`
	Endpoint   string `json:"endpoint,omitempty"`
	// Endpoints lists every endpoint the run measured, Endpoint first, where a
	// resumed run reached the same server (same engine, version, model and KV
	// capacity) at another address; absent when it used Endpoint alone.
	Endpoints []string `json:"endpoints,omitempty"`
	// Rate is the plan of an open-loop run; such a run has no decode matrix.
	Rate *RateConfig `json:"rate,omitempty"`
	// Repeat is how many times every cell and prefill row is measured (--repeat),
	// the plan run whole once per repeat; absent (or 1): once.
	Repeat int `json:"repeat,omitempty"`
}

// Duration is the measurement window of each decode cell.
func (c Config) Duration() time.Duration {
	return time.Duration(c.DurationS * float64(time.Second))
}

// Capacity records where the over-capacity rule's numbers came from.
type Capacity struct {
	KVCacheTokens *int64 `json:"kv_cache_tokens"`
	MaxModelLen   *int64 `json:"max_model_len"`
	// Source: "flag", "server" (engine discovery), or "unknown" (every cell ran).
	Source string `json:"source"`
}

// Client records what the measuring client could do, so that a cell that asked
// more of it than it can take is flagged rather than published as the server's number.
type Client struct {
	GOOS      string `json:"goos,omitempty"`
	GOARCH    string `json:"goarch,omitempty"`
	CPUs      int    `json:"cpus,omitempty"`
	GoVersion string `json:"go_version,omitempty"`
	// CeilingTokS is the client's own ceiling on this machine, as llmbench calibrate
	// measures it (tokens per client CPU-second × Cores); Cores is the CPUs the client
	// may use (GOMAXPROCS). llmbench run measures it before the first cell (absent
	// with --no-calibrate, and in documents from before).
	CeilingTokS *float64 `json:"ceiling_tok_s,omitempty"`
	Cores       int      `json:"cores,omitempty"`
}

// Ceiling is the client's measured ceiling in tok/s, 0 when none was measured.
func (c *Client) Ceiling() float64 {
	if c == nil || c.CeilingTokS == nil {
		return 0
	}
	return *c.CeilingTokS
}

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
	EndedEarly   int      `json:"ended_early,omitempty"`   // finished before max_output (EOS)
	PromptTokens int      `json:"prompt_tokens,omitempty"` // server-counted prompt tokens of one request
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
}

// MinMean is min/mean/max of a sampled gauge.
type MinMean struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
}

// Kind says what kind of numbers the run holds: measured, emulated or predicted.
func (r *Run) Kind() string {
	switch {
	case r.Status == RunPredicted:
		return RunPredicted
	case r.Status == RunEmulated || r.Engine.Name == "llmbench-sim":
		return RunEmulated
	default:
		return RunMeasured
	}
}

// Cell returns the decode cell at (context, concurrency), or nil.
func (r *Run) Cell(context, concurrency int) *DecodeCell {
	for i := range r.Decode {
		if r.Decode[i].Context == context && r.Decode[i].Concurrency == concurrency {
			return &r.Decode[i]
		}
	}
	return nil
}

// ReadFile reads a run document and checks its schema version.
func ReadFile(path string) (*Run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading run document: %w", err)
	}
	return Decode(b)
}

// Decode parses a run document and checks its schema version.
func Decode(b []byte) (*Run, error) {
	var r Run
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("parsing run document: %w", err)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("run document has schema_version %d, this llmbench reads %d", r.SchemaVersion, SchemaVersion)
	}
	return &r, nil
}

// WriteFile writes the run document atomically: a reader (or a crash) sees the old
// file or the new one, never half of one.
func WriteFile(path string, r *Run) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding run document: %w", err)
	}
	b = append(b, '\n')
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing run document: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	// CreateTemp makes the file 0600; a run document is meant to be read and shared
	// (report, submit, another user's checkout), so it gets a plain file's 0644.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("writing run document: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("writing run document: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("writing run document: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing run document: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing run document: %w", err)
	}
	return nil
}
