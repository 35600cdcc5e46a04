package engine

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/llmbench/llmbench/internal/openai"
)

// fillTRTLLM reads trtllm-serve's /version, its JSON iteration stats on /metrics
// (enable_iter_perf_stats) for the KV pool size, the Prometheus page on
// /prometheus/metrics (return_perf_metrics), and probes the internal tokenize route.
func (p *prober) fillTRTLLM(ctx context.Context, info *Info, m *openai.ModelCard) {
	fillFromCard(info, m)
	if m != nil && info.ModelID == nil {
		info.ModelID = ptr(m.ID)
	}
	var v struct {
		Version string `json:"version"`
	}
	if p.getJSON(ctx, "/version", &v) && v.Version != "" {
		info.Version = ptr(v.Version)
	}
	var iters []struct {
		KV *struct {
			MaxNumBlocks   int64 `json:"maxNumBlocks"`
			TokensPerBlock int64 `json:"tokensPerBlock"`
		} `json:"kvCacheStats"`
	}
	if b, ok := p.getText(ctx, "/metrics"); ok && json.Unmarshal(b, &iters) == nil {
		info.Metrics = ptr("/metrics")
		info.MetricsFormat = "json"
		for i := len(iters) - 1; i >= 0; i-- {
			if kv := iters[i].KV; kv != nil && kv.MaxNumBlocks > 0 && kv.TokensPerBlock > 0 {
				info.KVCacheTokens = ptr(kv.MaxNumBlocks * kv.TokensPerBlock)
				break
			}
		}
	}
	if b, ok := p.getText(ctx, "/prometheus/metrics"); ok && strings.Contains(string(b), "trtllm_") {
		info.Metrics = ptr("/prometheus/metrics")
		info.MetricsFormat = "prometheus"
	}
	if info.KVCacheTokens == nil {
		info.Notes = append(info.Notes, "KV cache size unknown: /metrics has no iteration stats (start with enable_iter_perf_stats and send one request)")
	}
	info.Notes = append(info.Notes, "max_model_len unknown: trtllm-serve's /v1/models has no length")
	if p.checkTokenize(ctx, "/_internal/tokenize", map[string]any{"prompt": "Hello"}) {
		info.Tokenize = ptr("/_internal/tokenize")
	}
	// ignore_eos is honoured; min_tokens is in the schema but reported not honoured
	// (NVIDIA/TensorRT-LLM #7693, #10824).
	info.IgnoreEOS = ptr(true)
	info.MinTokens = ptr(false)
	info.TokenIDPrompts = ptr(true)
	// stream_options.continuous_usage_stats (postprocess_handlers.py
	// chat_stream_post_processor, include_continuous_usage).
	info.ChunkUsage = ptr(true)
}
