// Package engine owns discovery: what an OpenAI-compatible server is (engine, version,
// model, KV cache size, limits, how to count tokens) and its live metrics. One file per
// engine; Probe tries them and never guesses silently: what cannot be known stays nil.
package engine

import (
	"context"
	"net/http"
)

// Engine names, as written in the run document's engine.name and probe's "engine".
const (
	VLLM             = "vllm"
	SGLang           = "sglang"
	LlamaCpp         = "llamacpp"
	Ollama           = "ollama"
	TGI              = "tgi"
	TRTLLM           = "trtllm"
	LMStudio         = "lmstudio"
	OpenAICompatible = "openai-compatible"
	Sim              = "llmbench-sim"
)

// Info is what discovery learned about a server. Pointer fields are nil when unknown.
type Info struct {
	Engine        string  `json:"engine"`
	Version       *string `json:"version"`
	ServedModel   *string `json:"served_model"`
	ModelID       *string `json:"model_id"`
	MaxModelLen   *int64  `json:"max_model_len"`
	KVCacheTokens *int64  `json:"kv_cache_tokens"`
	KVCacheDtype  *string `json:"kv_cache_dtype"`
	PrefixCaching *bool   `json:"prefix_caching"`
	MaxNumSeqs    *int64  `json:"max_num_seqs"`
	Quantization  *string `json:"quantization"`
	// Tokenize is the route that counts tokens (e.g. "/tokenize"), nil if none.
	Tokenize *string `json:"tokenize"`
	// Models lists every served model name.
	Models []string `json:"models,omitempty"`
	// Metrics is the Prometheus route when the server exposes one.
	Metrics *string `json:"metrics"`
	// Preset is the emulator's preset name (llmbench-sim only).
	Preset *string `json:"preset,omitempty"`
	// IgnoreEOS says whether the server honours ignore_eos (nil: unknown).
	IgnoreEOS *bool `json:"ignore_eos"`
	// TokenIDPrompts says whether /v1/completions takes a prompt of token ids.
	TokenIDPrompts *bool `json:"token_id_prompts"`

	// Extensions beyond the key list.

	// Build is the engine's build string where it has one (llama.cpp "b4500-abc1234").
	Build *string `json:"build"`
	// Backend is the runtime under a wrapper (LM Studio's "llama.cpp-…", "mlx-…").
	Backend *string `json:"backend"`
	// Revision is the model's revision or weights hash where exposed.
	Revision *string `json:"revision"`
	// ApplyTemplate is llama.cpp's route that renders chat messages to a prompt.
	ApplyTemplate *string `json:"apply_template,omitempty"`
	// MinTokens says whether the server honours min_tokens (nil: unknown).
	MinTokens *bool `json:"min_tokens"`
	// MetricsFormat is "prometheus" or "json" (TensorRT-LLM's iteration stats).
	MetricsFormat string `json:"metrics_format,omitempty"`
	// Loads is a JSON live-load route (SGLang's /v1/loads), used when /metrics is off.
	Loads *string `json:"loads,omitempty"`
	// DataParallel is the number of engines the KV figure was summed over (vLLM DP).
	DataParallel *int `json:"data_parallel,omitempty"`
	// ChunkUsage says whether the server counts every streamed chunk's tokens when
	// asked with stream_options.continuous_usage_stats (nil: unknown, try it).
	ChunkUsage *bool `json:"chunk_usage,omitempty"`
	// TimingsPerToken says the server puts its timings (with predicted_n) in every
	// chunk when asked (llama.cpp's timings_per_token).
	TimingsPerToken *bool `json:"timings_per_token,omitempty"`
	// KVCacheTokensIfSplit is llama.cpp's other possible KV size: with several slots
	// the server does not say whether its cache is unified (kv_cache_tokens, the
	// smaller) or split per slot (this, slots × n_ctx).
	KVCacheTokensIfSplit *int64 `json:"kv_cache_tokens_if_split,omitempty"`
	// Slots is how many requests the server runs at once, each in a slot of its own
	// context of max_model_len tokens (llama-server's -np): a request must fit one
	// slot, and more requests than slots wait for one (rundoc.Limits).
	Slots *int64 `json:"slots,omitempty"`
	// Speculative says the server drafts tokens (llama.cpp's /slots).
	Speculative *bool `json:"speculative,omitempty"`
	// Notes say where derived figures came from and why a fact is unknown.
	Notes []string `json:"notes,omitempty"`
}

// Doer sends HTTP requests; *http.Client satisfies it.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Prober learns about a server at base (its root URL, without /v1).
type Prober interface {
	Probe(ctx context.Context, c Doer, base string) (*Info, error)
}
