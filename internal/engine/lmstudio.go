package engine

import (
	"context"
)

// fillLMStudio reads LM Studio's REST API: /api/v1/models (0.4.0+, with the loaded
// instance's context) or /api/v0/models (0.3.6+, quantization and the model's
// maximum context).
func (p *prober) fillLMStudio(ctx context.Context, info *Info) {
	name := ""
	if info.ServedModel != nil {
		name = *info.ServedModel
	}
	var v1 struct {
		Models []struct {
			Key          string `json:"key"`
			Quantization *struct {
				Name string `json:"name"`
			} `json:"quantization"`
			Format          string `json:"format"`
			LoadedInstances []struct {
				ID     string `json:"id"`
				Config struct {
					ContextLength *int64 `json:"context_length"`
				} `json:"config"`
			} `json:"loaded_instances"`
		} `json:"models"`
	}
	if p.getJSON(ctx, "/api/v1/models", &v1) {
		for _, m := range v1.Models {
			for _, li := range m.LoadedInstances {
				if li.ID != name && m.Key != name {
					continue
				}
				info.ModelID = ptr(m.Key)
				if m.Quantization != nil && m.Quantization.Name != "" {
					info.Quantization = ptr(m.Quantization.Name)
				}
				if c := li.Config.ContextLength; c != nil && *c > 0 {
					info.MaxModelLen = ptr(*c)
				}
				if m.Format != "" {
					info.Backend = ptr(m.Format)
				}
			}
		}
	}
	if info.ModelID == nil {
		var v0 struct {
			Data []struct {
				ID               string `json:"id"`
				Quantization     string `json:"quantization"`
				State            string `json:"state"`
				CompatType       string `json:"compatibility_type"`
				MaxContextLength *int64 `json:"max_context_length"`
			} `json:"data"`
		}
		if p.getJSON(ctx, "/api/v0/models", &v0) {
			for _, m := range v0.Data {
				if m.ID != name {
					continue
				}
				info.ModelID = ptr(m.ID)
				if m.Quantization != "" {
					info.Quantization = ptr(m.Quantization)
				}
				if m.CompatType != "" {
					info.Backend = ptr(m.CompatType)
				}
				if m.MaxContextLength != nil {
					info.Notes = append(info.Notes, "LM Studio 0.3 reports only the model's maximum context; the loaded context is not exposed, so max_model_len stays unknown")
				}
			}
		}
	}
	info.Notes = append(info.Notes, "LM Studio exposes no app version, KV cache size, tokenize route or metrics over HTTP")
	info.ChunkUsage = ptr(false)
}
