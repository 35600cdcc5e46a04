// Package rundoc owns the run document (schema v1): what a run measured, as JSON —
// its types and their small pure helpers (token counts as the flags write them, the
// over-capacity rule, request rates, SLOs, arrival and length distributions, the cost
// of a million tokens), reading and writing it, the seed's plan, and the validation of
// a document someone else wrote (validate.go). It imports only the standard library
// and internal/stats, so every package that renders, stores or predicts documents can
// use it without the measurement code (internal/bench, internal/openloop).
//
// The run document's field names come from the seed run (internal/seed/seed-run.json) and are the
// contract between run, report, submit, the site and outside tools: extend, never rename.
package rundoc

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
	// Accuracy holds what llmbench eval measured, one entry per evaluation set
	// (accuracy.go); a document may hold it alone or beside the speed figures.
	Accuracy []Accuracy `json:"accuracy,omitempty"`
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
	// PromptSource is what the matrix's contexts were filled with where it was not
	// random common words: "text:FILE" (--prompt-text), the file's base name.
	PromptSource string `json:"prompt_source,omitempty"`
	// Workload is what the run sent besides random words (workload.go): a dataset,
	// sessions, a trace or a pool of shared prompts; absent for random words.
	Workload *Workload `json:"workload,omitempty"`
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
	// Slots and SlotTokens: the server runs each request in one of Slots slots of
	// SlotTokens tokens (llama-server -np): a request must fit a slot, and requests
	// beyond the slots queue (Limits). Absent for a server without slots.
	Slots      *int64 `json:"slots,omitempty"`
	SlotTokens *int64 `json:"slot_tokens,omitempty"`
}

// Limits is the over-capacity rule's numbers as the document records them.
func (c *Capacity) Limits() Limits {
	if c == nil {
		return Limits{}
	}
	return Limits{KVCacheTokens: c.KVCacheTokens, MaxModelLen: c.MaxModelLen, Slots: c.Slots, SlotTokens: c.SlotTokens}
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
