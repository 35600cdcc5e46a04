package engine

import (
	"context"
)

// tgiInfo is TGI's GET /info (router/src/lib.rs Info). Fields removed in v2.3.0
// (max_batch_total_tokens) and renamed in v2.1.0 (max_input_length →
// max_input_tokens) are read under both names.
type tgiInfo struct {
	ModelID               *string `json:"model_id"`
	ModelSHA              *string `json:"model_sha"`
	MaxConcurrentRequests *int64  `json:"max_concurrent_requests"`
	MaxInputTokens        *int64  `json:"max_input_tokens"`
	MaxInputLength        *int64  `json:"max_input_length"`
	MaxTotalTokens        *int64  `json:"max_total_tokens"`
	MaxBatchTotalTokens   *int64  `json:"max_batch_total_tokens"`
	Version               *string `json:"version"`
	SHA                   *string `json:"sha"`
	DockerLabel           *string `json:"docker_label"`
}

// fillTGI reads /info, the KV budget gauge on /metrics, and checks /tokenize.
func (p *prober) fillTGI(ctx context.Context, info *Info) {
	var ti tgiInfo
	if p.getJSON(ctx, "/info", &ti) {
		if ti.Version != nil && *ti.Version != "" {
			info.Version = ptr(*ti.Version)
		}
		if ti.SHA != nil && *ti.SHA != "" {
			info.Build = ptr(*ti.SHA)
		}
		if ti.ModelID != nil && *ti.ModelID != "" {
			info.ModelID = ptr(*ti.ModelID)
			if info.ServedModel == nil {
				info.ServedModel = ptr(*ti.ModelID)
			}
		}
		if ti.ModelSHA != nil && *ti.ModelSHA != "" {
			info.Revision = ptr(*ti.ModelSHA)
		}
		// max_total_tokens bounds input + output of one request: the model length
		// this server serves.
		if ti.MaxTotalTokens != nil && *ti.MaxTotalTokens > 0 {
			info.MaxModelLen = ptr(*ti.MaxTotalTokens)
		}
		if ti.MaxConcurrentRequests != nil && *ti.MaxConcurrentRequests > 0 {
			info.MaxNumSeqs = ptr(*ti.MaxConcurrentRequests)
			info.Notes = append(info.Notes, "max_num_seqs is TGI's max_concurrent_requests: requests beyond it are refused (429), not queued")
		}
		if ti.MaxBatchTotalTokens != nil && *ti.MaxBatchTotalTokens > 0 {
			info.KVCacheTokens = ptr(*ti.MaxBatchTotalTokens)
		}
	}
	if b, ok := p.getText(ctx, "/metrics"); ok {
		if fams, err := parseMetrics(b); err == nil {
			if fam, _ := fams.find("tgi_queue_size", "tgi_batch_current_size"); fam != nil {
				info.Metrics = ptr("/metrics")
				info.MetricsFormat = "prometheus"
			}
			if fam, _ := fams.find("tgi_batch_max_total_tokens"); fam != nil {
				if v, ok := total(fam, nil); ok && v > 0 {
					info.KVCacheTokens = ptr(int64(v))
				}
			}
		}
	}
	if info.KVCacheTokens == nil {
		info.Notes = append(info.Notes, "KV cache size unknown: no tgi_batch_max_total_tokens on /metrics")
	}
	if p.checkTokenize(ctx, "/tokenize", map[string]any{"inputs": "Hello"}) {
		info.Tokenize = ptr("/tokenize")
	}
	info.Notes = append(info.Notes, "TGI has no ignore_eos or min_tokens: requests that end early are replaced")
	info.IgnoreEOS = ptr(false)
	info.MinTokens = ptr(false)
	info.TokenIDPrompts = ptr(false)
	// Usage comes only in the last chunk (router/src/chat.rs ChatState::push).
	info.ChunkUsage = ptr(false)
}
