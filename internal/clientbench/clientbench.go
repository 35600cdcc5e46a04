// Package clientbench owns the benchmark of the client alone: what llmbench's streaming
// client spends per token, beside a bare reader that only reads SSE lines and counts
// them (the floor), and optionally vLLM's own Python benchmark client, each in its own
// process against a zero-compute server (internal/zerostream) in another process, on
// other cores where the machine has them. A client's figure is tokens per CPU-second:
// the tokens it read inside a window divided by its process's CPU time (getrusage)
// over the same window.
package clientbench

import (
	"fmt"
	"io"
	"time"
)

// Kind names a client under test.
type Kind string

const (
	// Floor reads SSE lines and counts the data lines: nothing else.
	Floor Kind = "floor"
	// LLMBench is llmbench run's own path: bench.Runner running one decode cell, with
	// a progress sink that counts tokens as the live display does.
	LLMBench Kind = "llmbench"
	// VLLM is vLLM's benchmark client (async_request_openai_chat_completions over one
	// aiohttp session), run by python3 from a copy of vLLM's source the user names.
	VLLM Kind = "vllm"
)

// Result is one client process's measurement over its window.
type Result struct {
	Kind    Kind    `json:"kind"`
	Streams int     `json:"streams"`
	WindowS float64 `json:"window_s"`
	CPUS    float64 `json:"cpu_s"`  // the client process's user+system CPU in the window
	Tokens  int64   `json:"tokens"` // tokens the client read in the window
	// ServerToks is what the server wrote over the window as whoever opened it saw
	// it: the client, or the table's parent (whose window starts a wake-up earlier).
	ServerToks int64 `json:"server_tokens"`
	Procs      int   `json:"procs"` // GOMAXPROCS (1 for Python)
	Errors     int64 `json:"errors,omitempty"`
	// The Go clients' allocations in the window, per token read, and GC cycles.
	AllocsPerToken float64 `json:"allocs_per_token,omitempty"`
	BytesPerToken  float64 `json:"bytes_per_token,omitempty"`
	GCs            uint32  `json:"gcs,omitempty"`
	// MaxRSSMiB is the client process's peak resident memory (getrusage), where known.
	MaxRSSMiB float64 `json:"max_rss_mib,omitempty"`
	Note      string  `json:"note,omitempty"`
	Rep       int     `json:"rep"` // which repetition: the floor run of the same Rep ran beside it
}

// TokensPerCPUSecond is the figure the benchmark compares.
func (r Result) TokensPerCPUSecond() float64 {
	if r.CPUS <= 0 {
		return 0
	}
	return float64(r.Tokens) / r.CPUS
}

// TokensPerSecond is the rate the client read at.
func (r Result) TokensPerSecond() float64 {
	if r.WindowS <= 0 {
		return 0
	}
	return float64(r.Tokens) / r.WindowS
}

func (r Result) String() string {
	return fmt.Sprintf("%-8s streams=%-5d window=%.1fs cpu=%.2fs tokens=%d (server wrote %d) tok/s=%.0f tok/cpu-s=%.0f procs=%d allocs/tok=%.1f B/tok=%.0f gcs=%d rss=%.0fMiB errors=%d %s",
		r.Kind, r.Streams, r.WindowS, r.CPUS, r.Tokens, r.ServerToks, r.TokensPerSecond(), r.TokensPerCPUSecond(), r.Procs, r.AllocsPerToken, r.BytesPerToken, r.GCs, r.MaxRSSMiB, r.Errors, r.Note)
}

// ClientOptions configure one client process's run.
type ClientOptions struct {
	Kind      Kind
	BaseURL   string // the zero-compute server's root
	Streams   int
	MaxTokens int           // output tokens per request
	Settle    time.Duration // wait after every stream is in flight, before the window
	Window    time.Duration
	// CPUProfile and MemProfile, if set, are written for the window alone.
	CPUProfile, MemProfile string
	// Control, if set, opens the window: the line "open" (the table's parent process
	// writes it to the client's stdin once the server has every stream in flight).
	// Without it the client waits for its streams and settles itself. Either way the
	// client times the window.
	Control io.Reader
}
