package engine

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// numCtxParam finds "num_ctx 8192" in /api/show's Modelfile parameters text.
var numCtxParam = regexp.MustCompile(`(?m)^\s*num_ctx\s+(\d+)\s*$`)

// fillOllama reads /api/version, /api/show (quantization, num_ctx set in the
// Modelfile) and /api/ps (the context the loaded model was given).
func (p *prober) fillOllama(ctx context.Context, info *Info) {
	var v struct {
		Version string `json:"version"`
	}
	if p.getJSON(ctx, "/api/version", &v) && v.Version != "" {
		info.Version = ptr(v.Version)
	}
	if info.ServedModel == nil {
		info.Notes = append(info.Notes, "no model listed; pull one with `ollama pull`")
	} else {
		name := *info.ServedModel
		info.ModelID = ptr(name)
		var show struct {
			Details struct {
				QuantizationLevel string `json:"quantization_level"`
			} `json:"details"`
			Parameters string `json:"parameters"`
		}
		if p.postJSON(ctx, "/api/show", map[string]string{"model": name}, &show) {
			if q := show.Details.QuantizationLevel; q != "" {
				info.Quantization = ptr(q)
			}
			if mm := numCtxParam.FindStringSubmatch(show.Parameters); mm != nil {
				if n, err := strconv.ParseInt(mm[1], 10, 64); err == nil && n > 0 {
					info.MaxModelLen = ptr(n)
				}
			}
		}
		var ps struct {
			Models []struct {
				Name          string `json:"name"`
				Model         string `json:"model"`
				Digest        string `json:"digest"`
				ContextLength *int64 `json:"context_length"`
			} `json:"models"`
		}
		loaded := false
		if p.getJSON(ctx, "/api/ps", &ps) {
			for _, m := range ps.Models {
				if m.Name != name && m.Model != name {
					continue
				}
				loaded = true
				if m.Digest != "" {
					info.Revision = ptr(m.Digest)
				}
				// context_length (v0.9.7+) is the num_ctx the runner was loaded with,
				// which is what requests through /v1 get.
				if m.ContextLength != nil && *m.ContextLength > 0 {
					info.MaxModelLen = ptr(*m.ContextLength)
				}
			}
		}
		if !loaded && info.MaxModelLen == nil {
			info.Notes = append(info.Notes, fmt.Sprintf("%s is not loaded (/api/ps): its context length is known once a request loads it", name))
		}
	}
	if info.MaxModelLen != nil {
		// The KV cache is num_ctx × OLLAMA_NUM_PARALLEL; the parallel count is a server
		// environment variable that Ollama does not expose. Its default is 1 since
		// v0.9.7; before, it was 4 or 1 depending on free memory, so no default holds.
		if info.Version != nil && versionAtLeast(*info.Version, 0, 9, 7) {
			info.KVCacheTokens = ptr(*info.MaxModelLen)
			info.Notes = append(info.Notes, "kv_cache_tokens = num_ctx, assuming OLLAMA_NUM_PARALLEL=1 (the default since v0.9.7; not visible over HTTP): with N parallel slots the cache is N × num_ctx")
		} else {
			info.Notes = append(info.Notes, "kv_cache_tokens unknown: it is num_ctx × OLLAMA_NUM_PARALLEL, and before v0.9.7 the parallel default was 4 or 1 by free memory (not visible over HTTP); set the KV capacity by hand")
		}
	}
	info.Notes = append(info.Notes, "Ollama has no tokenize route, ignore_eos or min_tokens: requests that end early are replaced")
	// Ollama's /v1/completions takes a string prompt only (openai/openai.go).
	info.IgnoreEOS = ptr(false)
	info.MinTokens = ptr(false)
	info.TokenIDPrompts = ptr(false)
	// Its StreamOptions has include_usage only (openai/openai.go).
	info.ChunkUsage = ptr(false)
}

// versionAtLeast says whether a semantic version's release is at least the given one,
// whatever its pre-release (a feature lands in 0.9.7's release candidates too); an
// unparsable version is not at least anything.
func versionAtLeast(v string, major, minor, patch int) bool {
	got, ok := parseSemver(strings.TrimSpace(v))
	want := releaseParts(fmt.Sprintf("%d.%d.%d", major, minor, patch))
	return ok && slices.Compare(got.release, want) >= 0
}
