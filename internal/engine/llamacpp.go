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
			switch {
			case nctx > 0 && *s == 1:
				info.KVCacheTokens = ptr(nctx)
			case nctx > 0:
				// /props does not say whether the KV cache is unified (slots share the
				// whole -c) or split (each slot has n_ctx), so the total is not known.
				info.Notes = append(info.Notes, fmt.Sprintf("kv_cache_tokens unknown: %d slots of %d tokens, either %d (split cache) or %d (--kv-unified); set the KV capacity by hand", *s, nctx, nctx**s, nctx))
			}
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
	// min_tokens (tools/server/README.md).
	info.IgnoreEOS = ptr(true)
	info.MinTokens = ptr(false)
	info.TokenIDPrompts = ptr(true)
}
