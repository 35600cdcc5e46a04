package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/llmbench/llmbench/internal/openai"
)

// sglangServerInfo is the part of SGLang's /server_info (old: /get_server_info) that
// discovery reads: server_args flattened at the top level, the scheduler's figures,
// and the version.
type sglangServerInfo struct {
	Version            *string `json:"version"`
	ModelPath          *string `json:"model_path"`
	ServedModelName    *string `json:"served_model_name"`
	Revision           *string `json:"revision"`
	ContextLength      *int64  `json:"context_length"`
	Quantization       *string `json:"quantization"`
	KVCacheDtype       *string `json:"kv_cache_dtype"`
	MaxRunningRequests *int64  `json:"max_running_requests"`
	DisableRadixCache  *bool   `json:"disable_radix_cache"`
	EnableMetrics      *bool   `json:"enable_metrics"`
	DPSize             *int    `json:"dp_size"`
	MaxTotalNumTokens  *int64  `json:"max_total_num_tokens"`
	InternalStates     []struct {
		MaxRunningRequests *int64 `json:"max_running_requests"`
		MemoryUsage        *struct {
			TokenCapacity *int64 `json:"token_capacity"`
		} `json:"memory_usage"`
	} `json:"internal_states"`
}

// fillSGLang reads SGLang's /server_info (new) or /get_server_info (before the
// rename), /metrics when --enable-metrics is on, else /v1/loads, and finds which
// tokenize route this version has.
func (p *prober) fillSGLang(ctx context.Context, info *Info, m *openai.ModelCard) {
	fillFromCard(info, m)
	var si sglangServerInfo
	got := false
	for _, path := range []string{"/server_info", "/get_server_info"} {
		if p.getJSON(ctx, path, &si) {
			got = true
			break
		}
	}
	if !got {
		info.Notes = append(info.Notes, "neither /server_info nor /get_server_info answered: KV cache size unknown")
	} else {
		if si.Version != nil && *si.Version != "" {
			info.Version = ptr(*si.Version)
		}
		if si.ModelPath != nil && *si.ModelPath != "" {
			info.ModelID = ptr(*si.ModelPath)
		}
		if si.Revision != nil && *si.Revision != "" {
			info.Revision = ptr(*si.Revision)
		}
		if si.ContextLength != nil && *si.ContextLength > 0 {
			info.MaxModelLen = ptr(*si.ContextLength)
		}
		// quantization null means "not forced on the command line"; the checkpoint may
		// still be quantized, so null stays unknown.
		if si.Quantization != nil && *si.Quantization != "" {
			info.Quantization = ptr(*si.Quantization)
		}
		if si.KVCacheDtype != nil && *si.KVCacheDtype != "" {
			info.KVCacheDtype = ptr(*si.KVCacheDtype)
			if *si.KVCacheDtype == "auto" {
				info.Notes = append(info.Notes, `kv_cache_dtype "auto" means the model's own dtype`)
			}
		}
		maxRun := si.MaxRunningRequests
		if (maxRun == nil || *maxRun <= 0) && len(si.InternalStates) > 0 {
			maxRun = si.InternalStates[0].MaxRunningRequests
		}
		if maxRun != nil && *maxRun > 0 {
			info.MaxNumSeqs = ptr(*maxRun)
		}
		if si.DisableRadixCache != nil {
			info.PrefixCaching = ptr(!*si.DisableRadixCache)
		}
		kv := si.MaxTotalNumTokens
		if (kv == nil || *kv <= 0) && len(si.InternalStates) > 0 && si.InternalStates[0].MemoryUsage != nil {
			kv = si.InternalStates[0].MemoryUsage.TokenCapacity
		}
		if kv != nil && *kv > 0 {
			total := *kv
			// The scheduler figures are those of DP rank 0; each rank has its own pool.
			if si.DPSize != nil && *si.DPSize > 1 {
				total *= int64(*si.DPSize)
				info.DataParallel = ptr(*si.DPSize)
				info.Notes = append(info.Notes, fmt.Sprintf("kv_cache_tokens = max_total_num_tokens × dp_size (%d × %d)", *kv, *si.DPSize))
			}
			info.KVCacheTokens = ptr(total)
		}
	}

	if b, ok := p.getText(ctx, "/metrics"); ok {
		if fams, err := parseMetrics(b); err == nil {
			if fam, _ := fams.find("sglang:num_running_reqs"); fam != nil {
				info.Metrics = ptr("/metrics")
				info.MetricsFormat = "prometheus"
			}
		}
	}
	if info.Metrics == nil {
		var loads json.RawMessage
		if p.getJSON(ctx, "/v1/loads", &loads) {
			info.Loads = ptr("/v1/loads")
		}
	}

	body := map[string]any{"prompt": "Hello"}
	if info.ServedModel != nil {
		body["model"] = *info.ServedModel
	}
	for _, route := range []string{"/v1/tokenize", "/tokenize"} {
		if p.checkTokenize(ctx, route, body) {
			info.Tokenize = ptr(route)
			break
		}
	}
	// ignore_eos and min_tokens are SGLang "extra SRT params"; /v1/completions takes
	// List[int] prompts (engine-apis.md §2).
	info.IgnoreEOS = ptr(true)
	info.MinTokens = ptr(true)
	info.TokenIDPrompts = ptr(true)
	// stream_options.continuous_usage_stats (serving_chat.py _generate_chat_stream,
	// should_include_usage).
	info.ChunkUsage = ptr(true)
}
