package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/internal/openai"
)

// llamaProps is the part of llama-server's GET /props that discovery reads.
type llamaProps struct {
	BuildInfo                 *string `json:"build_info"`
	ModelPath                 *string `json:"model_path"`
	TotalSlots                *int64  `json:"total_slots"`
	DefaultGenerationSettings *struct {
		NCtx *int64 `json:"n_ctx"`
	} `json:"default_generation_settings"`
}

// fillLlamaCpp reads llama-server's /props (build, model path, per-slot context,
// slots), checks /metrics (--metrics), /tokenize and /apply-template.
func (p *prober) fillLlamaCpp(ctx context.Context, info *Info, m *openai.ModelCard) {
	fillFromCard(info, m)
	var props llamaProps
	if p.getJSON(ctx, "/props", &props) {
		if b := props.BuildInfo; b != nil && *b != "" {
			info.Build = ptr(*b)
			// build_info is "b<number>-<commit>"; the build number is the release.
			v, _, _ := strings.Cut(*b, "-")
			info.Version = ptr(v)
		}
		if mp := props.ModelPath; mp != nil && *mp != "" && *mp != "none" {
			info.ModelID = ptr(*mp)
		}
		var nctx int64
		if g := props.DefaultGenerationSettings; g != nil && g.NCtx != nil && *g.NCtx > 0 {
			nctx = *g.NCtx
			info.MaxModelLen = ptr(nctx)
		}
		if s := props.TotalSlots; s != nil && *s > 0 {
			info.MaxNumSeqs = ptr(*s)
			p.llamaKV(ctx, info, nctx, *s)
		}
	} else {
		info.Notes = append(info.Notes, "/props did not answer: context and slots unknown")
	}
	if b, ok := p.getText(ctx, "/metrics"); ok && strings.Contains(string(b), "llamacpp:") {
		info.Metrics = ptr("/metrics")
		info.MetricsFormat = "prometheus"
	}
	if p.checkTokenize(ctx, "/tokenize", map[string]any{"content": "Hello"}) {
		info.Tokenize = ptr("/tokenize")
	}
	var tmpl struct {
		Prompt *string `json:"prompt"`
	}
	if p.postJSON(ctx, "/apply-template", map[string]any{"messages": []openai.Message{{Role: "user", Content: "Hello"}}}, &tmpl) && tmpl.Prompt != nil {
		info.ApplyTemplate = ptr("/apply-template")
	}
	// llama-server honours ignore_eos and takes token arrays as prompts; it has no
	// min_tokens (tools/server/README.md). It has no continuous usage stats, but puts
	// its timings, predicted_n included, in every chunk with timings_per_token
	// (server-task.cpp params_from_json_cmpl, to_json_oaicompat_chat).
	info.ChunkUsage = ptr(false)
	info.TimingsPerToken = ptr(true)
	info.IgnoreEOS = ptr(true)
	info.MinTokens = ptr(false)
	info.TokenIDPrompts = ptr(true)
}

// llamaSlot is one entry of llama-server's GET /slots (server-context.cpp
// server_slot::to_json).
type llamaSlot struct {
	NCtx        *int64 `json:"n_ctx"`
	Speculative *bool  `json:"speculative"`
}

// llamaKV derives llama-server's KV cache from its per-slot context and its slots.
// Each slot's n_ctx is n_ctx_seq (llama-context.cpp): the whole -c with a unified
// cache, -c / slots without. The server does not say which, so with several slots the
// cache is either n_ctx (unified: the default when -np is not given, server.cpp's
// main) or slots × n_ctx (split: -np without --kv-unified). The plan uses the smaller,
// so that no cell it sends can overflow the cache; the larger is kept for the hint.
func (p *prober) llamaKV(ctx context.Context, info *Info, nctx, slots int64) {
	var list []llamaSlot
	if p.getJSON(ctx, "/slots", &list) && len(list) > 0 {
		slots = int64(len(list))
		info.MaxNumSeqs = ptr(slots)
		if n := list[0].NCtx; n != nil && *n > 0 {
			nctx = *n
			info.MaxModelLen = ptr(nctx)
		}
		if sp := list[0].Speculative; sp != nil {
			info.Speculative = ptr(*sp)
		}
	}
	if nctx <= 0 {
		return
	}
	info.KVCacheTokens = ptr(nctx)
	if slots > 1 {
		info.KVCacheTokensIfSplit = ptr(nctx * slots)
		info.Notes = append(info.Notes, fmt.Sprintf("kv_cache_tokens = %d: %d slots of %d tokens share one cache if it is unified (the default without -np), or hold %d if split per slot (-np without --kv-unified); the server does not say which, so the plan takes the smaller — pass --kv-capacity %d for a split cache", nctx, slots, nctx, nctx*slots, nctx*slots))
	}
}
