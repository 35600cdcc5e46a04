package names

import (
	"regexp"
	"strings"
)

// ollamaTag is a model as Ollama names it: [host/][namespace/]name:tag, lowercase
// letters, digits and . _ - in each part ("qwen3:32b", "llama3.1:8b-instruct-q8_0",
// "hf.co/unsloth/Qwen3-32B-GGUF:Q4_K_M"). No other tool's names carry a colon: a
// Hugging Face repo id or a GGUF file name never does.
var ollamaTag = regexp.MustCompile(`^(?:[A-Za-z0-9._-]+/){0,3}[A-Za-z0-9._-]+:[A-Za-z0-9._-]+$`)

// OllamaTag says whether a model name is an Ollama tag (name:tag), whose server is
// Ollama.
func OllamaTag(model string) bool {
	return ollamaTag.MatchString(strings.TrimSpace(model))
}

// OllamaDefaultQuant is the weight format of an Ollama library tag that states none
// ("qwen3:32b", "llama3.1:8b", "gemma3:27b"): GGUF Q4_K_M, the format ollama.com/library
// lists for such tags and the "quantization_level" Ollama's /api/show reports for them.
const OllamaDefaultQuant = "q4_k_m"

// plainTagWord is a part of an Ollama tag that says which model, not which format:
// a size ("32b", "30b-a3b", "8x7b", "e4b"), a tuning ("instruct", "it", "chat",
// "text"), "latest", or a version ("v0.3", "2507").
var plainTagWord = regexp.MustCompile(`^(?:[0-9]+x)?[0-9]+(?:\.[0-9]+)?[bm]$|^[ae][0-9]+(?:\.[0-9]+)?b$|^(?:instruct|it|chat|text|base|latest)$|^v?[0-9]+(?:\.[0-9]+)*$`)

// ImpliedQuant is the weight format a model name means without stating one: Ollama's
// default (OllamaDefaultQuant) for an Ollama tag whose tag says only which model —
// its size, tuning or version — and "" otherwise: a format the name states (Quant)
// is the name's own, and a tag with a word this does not know ("27b-it-qat") may be
// another format.
func ImpliedQuant(model string) string {
	model = strings.TrimSpace(model)
	if !OllamaTag(model) || Quant(model) != "" {
		return ""
	}
	tag := strings.ToLower(model[strings.LastIndexByte(model, ':')+1:])
	for _, w := range strings.Split(tag, "-") {
		if !plainTagWord.MatchString(w) {
			return ""
		}
	}
	return OllamaDefaultQuant
}
