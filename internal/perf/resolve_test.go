package perf

import (
	"errors"
	"testing"
)

// TestResolveModel reads model names as tools print them: Hugging Face repo ids (as
// on the hub), Ollama tags (ollama.com/library), GGUF file names (as llama.cpp's
// convert and quantize scripts and the hub's GGUF repos write them).
func TestResolveModel(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, id, quant string
		standIn         bool
	}{
		{"qwen3-32b", "qwen3-32b", "", false},
		{"Qwen/Qwen3-32B", "qwen3-32b", "", false},
		{"Qwen/Qwen3-32B-AWQ", "qwen3-32b", "awq", false},
		{"qwen3:32b-q4_K_M", "qwen3-32b", "q4_k_m", false},
		{"qwen3:30b-a3b", "qwen3-30b-a3b", "", false},
		{"Qwen/Qwen3-30B-A3B-GPTQ-Int4", "qwen3-30b-a3b", "w4a16-g128", false},
		{"Qwen3-32B-Q4_K_M.gguf", "qwen3-32b", "q4_k_m", false},
		{"qwen3.8:27b-q4_K_M", "qwen3.8-27b", "q4_k_m", false},
		{"RedHatAI/Qwen3.8-27B-INT4", "qwen3.8-27b", "w4a16-g128", false},
		{"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b", "", false},
		{"Meta-Llama-3.1-8B-Instruct-Q8_0.gguf", "llama-3.1-8b", "q8_0", false},
		{"llama3.1:8b-instruct-q8_0", "llama-3.1-8b", "q8_0", false},
		{"google/gemma-3-27b-it", "gemma-3-27b", "", false},
		{"gemma3:27b", "gemma-3-27b", "", false},
		// Aliases for another model: predicted, and said so.
		{"llama-3-8b", "llama-3.1-8b", "", true},
		{"Qwen/Qwen2-7B-Instruct", "qwen2.5-7b", "", true},
		{"deepseek-r1", "deepseek-v3", "", true},
	} {
		mm, err := c.ResolveModel(tt.name)
		if err != nil {
			t.Errorf("%q: %v", tt.name, err)
			continue
		}
		q, _ := c.ResolveQuant(mm)
		if mm.Model.ID != tt.id || q.ID != tt.quant || mm.StandIn != tt.standIn {
			t.Errorf("%q: model %s, weights %q, stand-in %v (via %q); want %s, %q, %v", tt.name, mm.Model.ID, q.ID, mm.StandIn, mm.Via, tt.id, tt.quant, tt.standIn)
		}
		if note := mm.Note(tt.name, nil); tt.standIn && note == "" {
			t.Errorf("%q: a stand-in with no note", tt.name)
		}
	}
	// A weight format the catalog does not model is read but not resolved.
	if mm, err := c.ResolveModel("mlx-community/Qwen3-32B-4bit"); err != nil || mm.Model.ID != "qwen3-32b" || mm.Quant != "4bit" {
		t.Errorf("MLX 4-bit: %+v, %v", mm, err)
	} else if _, ok := c.ResolveQuant(mm); ok {
		t.Error("\"4bit\" resolved to a catalog format: which one is unknown")
	}
	// Names the catalog does not hold are errors with suggestions, never a different model.
	for _, name := range []string{"qwen3:latest", "Qwen/Qwen3-33B", "llama-4-8b"} {
		var nf *NotFoundError
		if mm, err := c.ResolveModel(name); !errors.As(err, &nf) {
			t.Errorf("%q: %+v, %v; want not found", name, mm.Model.ID, err)
		}
	}
}

// TestGPUName folds the names nvidia-smi and rocm-smi print into the catalog's (the
// nvidia-smi names are from internal/hw/testdata's recorded outputs).
func TestGPUName(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ raw, want string }{
		{"NVIDIA GeForce RTX 4090", "RTX 4090"},
		{"NVIDIA GeForce RTX 3090", "RTX 3090"},
		{"rtx 3090", "RTX 3090"},
		{"NVIDIA H100 80GB HBM3", "H100 SXM"},
		{"NVIDIA H200", "H200"},
		// A name that begins several catalog GPUs' names stays as written.
		{"H100", "H100"},
		{"NVIDIA A100", "NVIDIA A100"},
		{"NVIDIA H100 PCIe", "H100 PCIe"},
		{"AMD Radeon RX 7900 XTX", "Radeon RX 7900 XTX"},
		{"AMD Instinct MI300X", "MI300X"},
		{" Emulated (perf:h200/qwen3.8-27b) ", "Emulated (perf:h200/qwen3.8-27b)"},
		{"Some Future GPU 9000", "Some Future GPU 9000"},
	} {
		if got := c.GPUName(tt.raw); got != tt.want {
			t.Errorf("GPUName(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}

// TestQuantWidthAloneSuggests: "4bit" names no one format; the error offers those of
// that width the calculator models.
func TestQuantWidthAloneSuggests(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"4bit", "4-bit", "8 bit"} {
		_, err := c.Quant(name)
		var nf *NotFoundError
		if !errors.As(err, &nf) || len(nf.Closest) == 0 {
			t.Errorf("Quant(%q): %v, want not found with the formats of that width", name, err)
			continue
		}
		for _, id := range nf.Closest {
			q, _ := c.Quant(id)
			if want := name[0] - '0'; int(q.Bits) != int(want) {
				t.Errorf("Quant(%q) suggests %s of %.3g bits", name, id, q.Bits)
			}
		}
	}
}
