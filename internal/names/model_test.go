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

// TestOllamaTags: names as Ollama writes them (ollama.com/library tags, and
// hf.co/ repositories with a GGUF file's format as the tag) are Ollama's; a tag that
// says only the model's size, tuning or version is Ollama's default Q4_K_M (issue 37
// item 7: qwen3:32b, llama3.1:8b, gemma3:27b and deepseek-r1:32b were read as BF16),
// one that states a format keeps it, and one with a word not known here implies none.
func TestOllamaTags(t *testing.T) {
	for _, tt := range []struct {
		name    string
		tag     bool
		implied string
	}{
		{"qwen3:32b", true, "q4_k_m"},
		{"llama3.1:8b", true, "q4_k_m"},
		{"gemma3:27b", true, "q4_k_m"},
		{"deepseek-r1:32b", true, "q4_k_m"},
		{"qwen3:30b-a3b", true, "q4_k_m"},
		{"mixtral:8x7b-instruct-v0.1", true, "q4_k_m"},
		{"gemma3n:e4b", true, "q4_k_m"},
		{"qwen3:latest", true, "q4_k_m"},
		{"qwen3:32b-q8_0", true, ""},
		{"llama3.1:8b-instruct-fp16", true, ""},
		{"hf.co/unsloth/Qwen3-32B-GGUF:Q4_K_M", true, ""},
		{"gemma3:27b-it-qat", true, ""},
		{"Qwen/Qwen3-32B", false, ""},
		{"Qwen3-32B-Q4_K_M.gguf", false, ""},
		{"qwen3-32b", false, ""},
		{"http://x:8000", false, ""},
	} {
		if got := OllamaTag(tt.name); got != tt.tag {
			t.Errorf("OllamaTag(%q) = %v, want %v", tt.name, got, tt.tag)
		}
		if got := ImpliedQuant(tt.name); got != tt.implied {
			t.Errorf("ImpliedQuant(%q) = %q, want %q", tt.name, got, tt.implied)
		}
	}
}

// TestGPUMemory: a GPU labelled with its memory, as the site's own pages ("RTX 4090
// 24 GB"), shops and tools write it, splits into the name and the size; a name
// without one, or one that is only a size, does not.
func TestGPUMemory(t *testing.T) {
	for _, tt := range []struct {
		name, base string
		gb         float64
		ok         bool
	}{
		{"RTX 4090 24 GB", "RTX 4090", 24, true},
		{"h100 80gb", "h100", 80, true},
		{"NVIDIA H100 80GB HBM3", "NVIDIA H100", 80, true},
		{"RTX 3090 24GB GDDR6X", "RTX 3090", 24, true},
		{"A100-SXM4-40GB", "A100-SXM4", 40, true},
		{"H200 141 GiB", "H200", 141, true},
		{"RTX 4090", "RTX 4090", 0, false},
		{"24 GB", "24 GB", 0, false},
		{"MI300X", "MI300X", 0, false},
	} {
		base, gb, ok := GPUMemory(tt.name)
		if base != tt.base || gb != tt.gb || ok != tt.ok {
			t.Errorf("GPUMemory(%q) = %q, %g, %v; want %q, %g, %v", tt.name, base, gb, ok, tt.base, tt.gb, tt.ok)
		}
	}
}
