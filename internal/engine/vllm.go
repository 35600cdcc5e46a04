package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/openai"
)

// simVersion is the emulator's GET /version answer.
type simVersion struct {
	Version string `json:"version"`
	Engine  string `json:"engine"`
	Preset  string `json:"preset"`
}

// fillVLLM reads vLLM's facts: /version, the model card, /metrics' cache config
// info metric, and /server_info when the server runs in dev mode. The emulator
// (llmbench-sim) serves the same routes and adds its preset to /version.
func (p *prober) fillVLLM(ctx context.Context, info *Info, m *openai.ModelCard) {
	fillFromCard(info, m)
	if info.Engine == Sim {
		sv := p.simVersion
		if sv == nil {
			sv = &simVersion{}
			p.getJSON(ctx, "/version", sv)
		}
		if sv.Version != "" {
			info.Version = ptr(sv.Version)
		}
		if sv.Preset != "" {
			info.Preset = ptr(sv.Preset)
		}
	} else {
		var v struct {
			Version string `json:"version"`
		}
		if p.getJSON(ctx, "/version", &v) && v.Version != "" {
			info.Version = ptr(v.Version)
		}
	}

	if b, ok := p.getText(ctx, "/metrics"); ok {
		if fams, err := parseMetrics(b); err == nil {
			info.Metrics = ptr("/metrics")
			info.MetricsFormat = "prometheus"
			applyVLLMCacheConfig(info, fams)
		} else {
			info.Notes = append(info.Notes, "/metrics answered but could not be parsed: "+err.Error())
		}
	}
	if info.KVCacheTokens == nil {
		info.Notes = append(info.Notes, "KV cache size unknown: /metrics has no vllm:cache_config_info")
	}
	p.vllmServerInfo(ctx, info)

	body := openai.TokenizeRequest{Prompt: "Hello"}
	if info.ServedModel != nil {
		body.Model = *info.ServedModel
	}
	if p.checkTokenize(ctx, "/tokenize", body) {
		info.Tokenize = ptr("/tokenize")
	}
	// vLLM documents ignore_eos and min_tokens on both routes and token-id prompts on
	// /v1/completions (engine-apis.md §1); the emulator implements vLLM's API.
	info.IgnoreEOS = ptr(true)
	info.MinTokens = ptr(true)
	info.TokenIDPrompts = ptr(true)
	// stream_options.continuous_usage_stats puts the running usage in every chunk
	// (serving_chat.py chat_completion_stream_generator, include_continuous_usage).
	info.ChunkUsage = ptr(true)
}

// applyVLLMCacheConfig reads KV capacity, cache dtype and prefix caching from the
// cache config info metric: vllm:cache_config_info (V1), vllm:cache_config (V0).
// Every CacheConfig field is a label; label sets differ between versions, so each is
// read by name and a missing or "None" value stays unknown.
func applyVLLMCacheConfig(info *Info, fams families) {
	fam, _ := fams.find("vllm:cache_config_info", "vllm:cache_config")
	if fam == nil {
		return
	}
	sets := infoLabels(fam)
	var sum int64
	fromBlocks := false
	known := true
	for _, l := range sets {
		if n, ok := intLabel(l, "kv_cache_size_tokens"); ok {
			sum += n
			if b, ok1 := intLabel(l, "num_gpu_blocks"); ok1 {
				if bs, ok2 := intLabel(l, "block_size"); ok2 && b*bs != n {
					info.Notes = append(info.Notes, fmt.Sprintf("kv_cache_size_tokens (%d) differs from num_gpu_blocks × block_size (%d × %d): a hybrid-KV model, the former is used", n, b, bs))
				}
			}
			continue
		}
		b, ok1 := intLabel(l, "num_gpu_blocks")
		bs, ok2 := intLabel(l, "block_size")
		if !ok1 || !ok2 {
			known = false
			break
		}
		sum += b * bs
		fromBlocks = true
	}
	if known && len(sets) > 0 {
		info.KVCacheTokens = ptr(sum)
		if fromBlocks {
			info.Notes = append(info.Notes, "kv_cache_tokens = num_gpu_blocks × block_size (this vLLM has no kv_cache_size_tokens label; wrong for hybrid/sliding-window models)")
		}
		if len(sets) > 1 {
			info.DataParallel = ptr(len(sets))
			info.Notes = append(info.Notes, fmt.Sprintf("kv_cache_tokens summed over %d data-parallel engines", len(sets)))
		}
	}
	if len(sets) == 0 {
		return
	}
	l := sets[0]
	if d, ok := l["cache_dtype"]; ok && d != "" && d != "None" {
		info.KVCacheDtype = ptr(d)
		if d == "auto" {
			info.Notes = append(info.Notes, `kv_cache_dtype "auto" means the model's own dtype`)
		}
	}
	if b, ok := boolLabel(l, "enable_prefix_caching"); ok {
		info.PrefixCaching = ptr(b)
	}
}

// vllmServerInfo reads /server_info, which vLLM registers only with
// VLLM_SERVER_DEV_MODE=1; it is the one place that says max_num_seqs and quantization.
func (p *prober) vllmServerInfo(ctx context.Context, info *Info) {
	var si struct {
		VLLMConfig json.RawMessage `json:"vllm_config"`
	}
	if !p.getJSON(ctx, "/server_info?config_format=json", &si) || len(si.VLLMConfig) == 0 {
		if info.Engine == Sim {
			return
		}
		info.Notes = append(info.Notes, "max_num_seqs and quantization unknown: vLLM exposes them only on /server_info with VLLM_SERVER_DEV_MODE=1")
		return
	}
	var cfg struct {
		ModelConfig struct {
			Quantization *string `json:"quantization"`
			Revision     *string `json:"revision"`
			Model        *string `json:"model"`
		} `json:"model_config"`
		SchedulerConfig struct {
			MaxNumSeqs *int64 `json:"max_num_seqs"`
		} `json:"scheduler_config"`
	}
	if err := json.Unmarshal(si.VLLMConfig, &cfg); err != nil {
		// Older builds send the config as one string.
		info.Notes = append(info.Notes, "/server_info's vllm_config is not a JSON object; max_num_seqs unknown")
		return
	}
	if q := cfg.ModelConfig.Quantization; q != nil && *q != "" {
		info.Quantization = ptr(*q)
	} else if hasNullKey(si.VLLMConfig, "model_config", "quantization") {
		// vLLM writes quantization=None for unquantized weights.
		info.Quantization = ptr("none")
	}
	if r := cfg.ModelConfig.Revision; r != nil && *r != "" {
		info.Revision = ptr(*r)
	}
	if n := cfg.SchedulerConfig.MaxNumSeqs; n != nil && *n > 0 {
		info.MaxNumSeqs = ptr(*n)
	}
}

// intLabel reads a whole-number label; "None", "" and non-numbers are absent.
func intLabel(l map[string]string, name string) (int64, bool) {
	v, ok := l[name]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if ferr != nil || f != float64(int64(f)) {
			return 0, false
		}
		n = int64(f)
	}
	return n, true
}

// boolLabel reads Python's stringified booleans ("True"/"False") and lower-case ones.
func boolLabel(l map[string]string, name string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(l[name])) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// hasNullKey reports whether obj[outer][key] is present and JSON null.
func hasNullKey(obj json.RawMessage, outer, key string) bool {
	var o map[string]map[string]json.RawMessage
	if json.Unmarshal(obj, &o) != nil {
		return false
	}
	v, ok := o[outer][key]
	return ok && string(v) == "null"
}
