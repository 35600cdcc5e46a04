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
}

// Doer sends HTTP requests; *http.Client satisfies it.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Prober learns about a server at base (its root URL, without /v1).
type Prober interface {
	Probe(ctx context.Context, c Doer, base string) (*Info, error)
}
