// Package names reads the names tools print for models and their weight formats —
// Hugging Face repo ids (Qwen/Qwen3-32B-AWQ), Ollama tags (qwen3:32b-q4_K_M, and a
// bare qwen3:32b, which is Ollama's default format), GGUF file names
// (Qwen3-32B-Q4_K_M.gguf) — and GPUs labelled with their memory (RTX 4090 24 GB), by
// rules on the name alone: no catalog, no network, so that a stored run's family is
// stable whatever else changes. The catalog-backed resolver (perf.Catalog.Model, GPU
// and Quant) reads names through it; the site's store groups runs by it.
package names

import (
	"regexp"
	"strconv"
	"strings"
)

// A model family is the base model a run's weights come from, so that one page holds
// Qwen/Qwen3.8-27B, RedHatAI/Qwen3.8-27B-INT4 and an Ollama "qwen3.8:27b-q4_K_M" alike:
// the same architecture, served in different formats or by different names. Family
// drops the publisher ("RedHatAI/"), the format and packaging words (INT4, AWQ, FP8,
// GGUF, Q4_K_M, w4a16, g128, Instruct …), and folds case and separators.

// formatWord matches a name part that says how the weights are packaged or tuned,
// not which model they are.
var formatWord = regexp.MustCompile(`^(?:int[248]|uint[248]|fp(?:4|8|16|32)|bf16|f16|f32|nvfp4|mxfp4|awq|gptq|gguf|ggml|mlx|exl2|exl3|bnb|nf4|marlin|` +
	`[0-9]+bit|w[0-9]+a[0-9]+|g[0-9]+|q[0-9](?:_[0-9a-z]+)*|iq[0-9](?:_[0-9a-z]+)*|k_?[sml]|dynamic|static|quantized|quant|` +
	`instruct|chat|it|hf|base|latest|sft|rlhf|dpo)$`)

// quantWord is a GGUF quantization name whose underscores became dashes (q4-k-m).
var quantWord = regexp.MustCompile(`\b(i?q[0-9])-(k|[0-9])(?:-([sml]|xs|xxs))?\b`)

// versionWord is a bare version number, which belongs to the name before it
// (Llama-3.1 and llama3.1 are one family).
var versionWord = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+)*$`)

// sizeWord is a part naming the parameter count: 27b, 8x7b, 0.5b, 30b (of 30b-a3b).
var sizeWord = regexp.MustCompile(`^(?:([0-9]+)x)?([0-9]+(?:\.[0-9]+)?)b$`)

// Family returns the family key of a model name (lowercase, dash-separated, like the
// catalog's ids: "qwen3.8-27b") and the parameter count in billions the name states,
// or 0 when it states none.
func Family(model string) (family string, paramsB float64) {
	var parts []string
	for _, p := range nameParts(model) {
		p = strings.Trim(p, "_")
		switch {
		case p == "" || formatWord.MatchString(p):
		case versionWord.MatchString(p) && len(parts) > 0:
			parts[len(parts)-1] += p
		default:
			parts = append(parts, p)
		}
	}
	if len(parts) > 1 && parts[0] == "meta" { // Meta-Llama-3.1-8B is Llama-3.1-8B
		parts = parts[1:]
	}
	for _, p := range parts {
		if m := sizeWord.FindStringSubmatch(p); m != nil && paramsB == 0 {
			v, _ := strconv.ParseFloat(m[2], 64)
			if m[1] != "" {
				n, _ := strconv.ParseFloat(m[1], 64)
				v *= n
			}
			paramsB = v
		}
	}
	family = strings.Join(parts, "-")
	if family == "" {
		family = strings.ToLower(strings.TrimSpace(model))
	}
	return family, paramsB
}

// nameParts splits a model name into its dash-separated parts, lowercase: the
// publisher dropped, Ollama's name:tag and GGUF's file name unfolded, GGUF
// quantization names kept whole (q4_k_m).
func nameParts(model string) []string {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	// Ollama's name:tag ("qwen3:32b-q4_K_M") and GGUF file names ("…-Q4_K_M.gguf").
	name = strings.TrimSuffix(name, ".gguf")
	name = strings.NewReplacer(":", "-", "_", "-", " ", "-").Replace(name)
	// Q4_K_M became q4-k-m above; put the quantization words back together so that
	// formatWord sees them whole.
	name = quantWord.ReplaceAllString(name, "${1}_${2}_${3}")
	return strings.Split(name, "-")
}

// quantPart matches a name part that says how the weights are quantized (a subset
// of formatWord: not the tuning words).
var quantPart = regexp.MustCompile(`^(?:int[248]|fp(?:4|8|16)|bf16|f16|nvfp4|mxfp4|awq|gptq|nf4|` +
	`[0-9]+bit|w[0-9]+a[0-9]+|q[0-9](?:_[0-9a-z]+)*|iq[0-9](?:_[0-9a-z]+)*)$`)

// Quant is the weight format a model name states, as it writes it, lowercase and
// joined by dashes where it takes two parts ("awq", "gptq-int4", "q4_k_m", "w4a16",
// "fp8", "4bit"), or "" where it states none. Whether a format of that name exists
// is the catalog's to say (perf.Catalog.Quant).
func Quant(model string) string {
	var found []string
	for _, p := range nameParts(model) {
		p = strings.Trim(p, "_")
		// neuralmagic's "quantized.w4a16": the format is the part after the dot.
		if i := strings.LastIndexByte(p, '.'); i >= 0 && quantPart.MatchString(p[i+1:]) {
			p = p[i+1:]
		}
		if quantPart.MatchString(p) {
			found = append(found, p)
		}
	}
	return strings.Join(found, "-")
}
