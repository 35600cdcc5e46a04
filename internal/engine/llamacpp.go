package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/internal/openai"
)

// llamaProps is the part of llama-server's GET /props that discovery reads
// (tools/server/server-context.cpp get_res_props).
type llamaProps struct {
	BuildInfo                 *string `json:"build_info"`
	ModelPath                 *string `json:"model_path"`
	ModelFtype                *string `json:"model_ftype"`
	TotalSlots                *int64  `json:"total_slots"`
	DefaultGenerationSettings *struct {
		NCtx *int64 `json:"n_ctx"`
	} `json:"default_generation_settings"`
}

// fillLlamaCpp reads llama-server's /props (build, model path and type, per-slot
// context, slots), checks /metrics (--metrics), /tokenize and /apply-template.
func (p *prober) fillLlamaCpp(ctx context.Context, info *Info, m *openai.ModelCard) {
	fillFromCard(info, m)
	var props llamaProps
	if p.getJSON(ctx, "/props", &props) {
		llamaBuild(info, props.BuildInfo)
		if mp := props.ModelPath; mp != nil && *mp != "" && *mp != "none" {
			info.ModelID = ptr(*mp)
		}
		if ft := props.ModelFtype; ft != nil && *ft != "" {
			info.Quantization = ptr(ggufType(*ft))
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
	// Every slot keeps its last prompt and reuses its common prefix (cache_prompt, on
	// by default: tools/server/README.md); the cache type is not reported.
	info.PrefixCaching = ptr(true)
	info.Notes = append(info.Notes, "kv_cache_dtype: llama-server does not report its KV cache type (-ctk/-ctv, f16 unless set)")
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

// llamaKV reads llama-server's slots: each slot's n_ctx (n_ctx_seq, llama-context.cpp:
// the whole -c with a unified cache, -c / slots without) is the per-request limit, and
// requests beyond the slots wait for one (server-context.cpp defers a task no slot
// takes). With one slot the cache is its n_ctx; with several the server does not say
// whether they share one cache (--kv-unified, the default when -np is not given) or
// split -c, so the whole cache is unknown: the plan holds each request to one slot,
// and the split size is kept for the note.
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
	info.Slots = ptr(slots)
	if slots == 1 {
		info.KVCacheTokens = ptr(nctx)
		return
	}
	info.KVCacheTokensIfSplit = ptr(nctx * slots)
	info.Notes = append(info.Notes, fmt.Sprintf("%d slots of %d tokens: each request must fit one slot, and more requests than slots wait for one; the server does not say whether the slots split one cache of %d tokens (-np without --kv-unified) or share one of %d (--kv-unified, the default without -np) — for a shared cache, give its size with --kv-capacity", slots, nctx, nctx*slots, nctx))
}

// llamaBuild reads build_info, "b<number>-<commit>": the build number is the
// release. A build without version metadata says "b0-unknown", which is no version.
func llamaBuild(info *Info, b *string) {
	if b == nil || *b == "" {
		return
	}
	info.Build = ptr(*b)
	v, _, _ := strings.Cut(*b, "-")
	if v == "b0" || !strings.HasPrefix(v, "b") {
		info.Notes = append(info.Notes, fmt.Sprintf("build_info %q carries no release number (built without version metadata): version unknown", *b))
		return
	}
	info.Version = ptr(v)
}

// ggufType is llama.cpp's name of a model's file type (llama_model_ftype_name:
// "Q4_K - Medium", "all F32") as GGUF files and people write it ("Q4_K_M", "F32").
func ggufType(ft string) string {
	ft = strings.TrimSpace(strings.TrimSuffix(ft, " (guessed)"))
	ft = strings.TrimPrefix(ft, "all ")
	base, size, ok := strings.Cut(ft, " - ")
	if !ok {
		return ft
	}
	switch size {
	case "Small", "Medium", "Large":
		return base + "_" + size[:1]
	}
	return base // "IQ2_XXS - 2.0625 bpw"
}
