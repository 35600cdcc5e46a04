package names

import "testing"

func TestFamily(t *testing.T) {
	tests := []struct {
		model  string
		family string
		size   float64
	}{
		{"RedHatAI/Qwen3.8-27B-INT4", "qwen3.8-27b", 27},
		{"Qwen/Qwen3.8-27B", "qwen3.8-27b", 27},
		{"qwen3.8:27b-q4_K_M", "qwen3.8-27b", 27},
		{"Qwen/Qwen3-32B-AWQ", "qwen3-32b", 32},
		{"qwen3:32b", "qwen3-32b", 32},
		{"Qwen3-32B-Q4_0.gguf", "qwen3-32b", 32},
		{"meta-llama/Llama-3.1-8B-Instruct", "llama3.1-8b", 8},
		{"meta-llama/Meta-Llama-3.1-8B-Instruct-FP8", "llama3.1-8b", 8},
		{"llama3.1:8b-instruct-q8_0", "llama3.1-8b", 8},
		{"neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w4a16", "llama3.1-70b-quantized.w4a16", 70},
		{"Qwen/Qwen3-30B-A3B-GPTQ-Int4", "qwen3-30b-a3b", 30},
		{"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b-v0.1", 56},
		{"google/gemma-3-27b-it", "gemma3-27b", 27},
		{"bench", "bench", 0},
	}
	for _, tt := range tests {
		f, size := Family(tt.model)
		if f != tt.family || size != tt.size {
			t.Errorf("Family(%q) = %q, %g; want %q, %g", tt.model, f, size, tt.family, tt.size)
		}
	}
}

// TestQuant reads the weight format from names as Hugging Face, Ollama and GGUF
// files write them (names from the Hugging Face hub, ollama.com/library tags, and
// GGUF files as llama.cpp's convert and quantize tools name them).
func TestQuant(t *testing.T) {
	for _, tt := range []struct{ model, want string }{
		{"Qwen/Qwen3-32B-AWQ", "awq"},
		{"RedHatAI/Qwen3.8-27B-INT4", "int4"},
		{"Qwen/Qwen3-30B-A3B-GPTQ-Int4", "gptq-int4"},
		{"neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w4a16", "w4a16"},
		{"meta-llama/Meta-Llama-3.1-8B-Instruct-FP8", "fp8"},
		{"qwen3:32b-q4_K_M", "q4_k_m"},
		{"llama3.1:8b-instruct-q8_0", "q8_0"},
		{"Qwen3-32B-Q4_0.gguf", "q4_0"},
		{"Qwen3-32B-BF16.gguf", "bf16"},
		{"mlx-community/Qwen3-32B-4bit", "4bit"},
		{"unsloth/Qwen3-32B-bnb-4bit", "4bit"},
		{"Qwen/Qwen3-32B", ""},
		{"qwen3:32b", ""},
		{"google/gemma-3-27b-it", ""},
		{"bench", ""},
	} {
		if got := Quant(tt.model); got != tt.want {
			t.Errorf("Quant(%q) = %q, want %q", tt.model, got, tt.want)
		}
	}
}
