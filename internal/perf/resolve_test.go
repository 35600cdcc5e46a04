package perf

import (
	"errors"
	"fmt"
	"strings"
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
		// A tag that names no format is Ollama's Q4_K_M (issue 37 item 7; before, no
		// format, so the site predicted BF16).
		{"qwen3:30b-a3b", "qwen3-30b-a3b", "q4_k_m", false},
		{"qwen3:32b", "qwen3-32b", "q4_k_m", false},
		{"llama3.1:8b", "llama-3.1-8b", "q4_k_m", false},
		{"Qwen/Qwen3-30B-A3B-GPTQ-Int4", "qwen3-30b-a3b", "w4a16-g128", false},
		{"Qwen3-32B-Q4_K_M.gguf", "qwen3-32b", "q4_k_m", false},
		{"qwen3.8:27b-q4_K_M", "qwen3.8-27b", "q4_k_m", false},
		{"RedHatAI/Qwen3.8-27B-INT4", "qwen3.8-27b", "w4a16-g128", false},
		{"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b", "", false},
		{"Meta-Llama-3.1-8B-Instruct-Q8_0.gguf", "llama-3.1-8b", "q8_0", false},
		{"llama3.1:8b-instruct-q8_0", "llama-3.1-8b", "q8_0", false},
		{"google/gemma-3-27b-it", "gemma-3-27b", "", false},
		{"gemma3:27b", "gemma-3-27b", "q4_k_m", false},
		// Aliases for another model: predicted, and said so.
		{"llama-3-8b", "llama-3.1-8b", "", true},
		{"Qwen/Qwen2-7B-Instruct", "qwen2.5-7b", "", true},
		{"deepseek-r1", "deepseek-v3", "", true},
		// DeepSeek-R1's distills are the models they were distilled into (issue 37
		// item 7: deepseek-r1:32b suggested deepseek-v3, the 671B model).
		{"deepseek-r1:32b", "qwen2.5-32b", "q4_k_m", true},
		{"deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "qwen2.5-32b", "", true},
		{"deepseek-r1:14b", "qwen2.5-14b", "q4_k_m", true},
		{"deepseek-r1:70b", "llama-3.1-70b", "q4_k_m", true},
		{"deepseek-r1:671b", "deepseek-v3", "q4_k_m", true},
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
		// Labelled with its memory, as the site's pages write a run's GPU (issue 37 item 7).
		{"RTX 4090 24 GB", "RTX 4090"},
		{"NVIDIA GeForce RTX 3090 24GB", "RTX 3090"},
		{"H100 80GB", "H100 80GB"}, // H100 still begins two
		{"RTX 4090 48 GB", "RTX 4090 48 GB"},
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

// TestGPULabelledWithMemory: every catalog GPU as the site labels a run's GPU (its
// name and memory, "RTX 4090 24 GB": site's gpuLabel) is that GPU, and "h100 80gb" is
// the H100 that "h100" is (issue 37 item 7: it suggested A100s); a size that is not
// the GPU's is another card, an error that says so, never the catalog's.
func TestGPULabelledWithMemory(t *testing.T) {
	c := MustLoad()
	for _, g := range c.GPUs {
		label := fmt.Sprintf("%s %.0f GB", g.Name, g.VRAMGiB)
		if got, err := c.GPU(label); err != nil || got.ID != g.ID {
			t.Errorf("GPU(%q) = %s, %v; want %s", label, got.ID, err, g.ID)
		}
	}
	for _, name := range []string{"h100 80gb", "H100 80GB HBM3", "h100-80gb"} {
		if got, err := c.GPU(name); err != nil || got.ID != "h100-sxm" {
			t.Errorf("GPU(%q) = %s, %v; want h100-sxm, as for \"h100\"", name, got.ID, err)
		}
	}
	_, err := c.GPU("RTX 4090 48 GB")
	var nf *NotFoundError
	if err == nil || errors.As(err, &nf) || !strings.Contains(err.Error(), "has 24 GB, not 48") {
		t.Errorf("GPU(RTX 4090 48 GB): %v; want an error saying the catalog's has 24 GB", err)
	}
}

// TestResolveOllamaTagsOnOllama: a bare Ollama tag is Ollama's default Q4_K_M served by
// Ollama, so Qwen3 32B fits one RTX 4090 as the site labels it (issue 37 item 7: the
// site's calculator read it as BF16 on vLLM and said it did not fit); a named engine
// or format still wins, and a name that is not a tag keeps vLLM.
func TestResolveOllamaTagsOnOllama(t *testing.T) {
	c := MustLoad()
	for _, tc := range []struct {
		model, engine, quant string
		wantEngine, wantQ    string
	}{
		{"qwen3:32b", "", "", "ollama", "q4_k_m"},
		{"llama3.1:8b", "", "", "ollama", "q4_k_m"},
		{"gemma3:27b", "", "", "ollama", "q4_k_m"},
		{"deepseek-r1:32b", "", "", "ollama", "q4_k_m"},
		{"qwen3:32b-q8_0", "", "", "ollama", "q8_0"},
		{"qwen3:32b", "llama.cpp", "", "llama.cpp", "q4_k_m"},
		{"qwen3:32b", "", "q4_0", "ollama", "q4_0"},
		{"Qwen/Qwen3-32B-AWQ", "", "", "vllm", "awq"},
		{"qwen3-8b", "", "", "vllm", "bf16"},
	} {
		q := with(func(q *Query) {
			q.GPU, q.Model, q.Engine, q.Quant, q.DefaultQuant = "RTX 4090 24 GB", tc.model, tc.engine, tc.quant, "bf16"
		})
		r, err := c.Resolve(q)
		if err != nil {
			t.Errorf("%s (engine %q, quant %q): %v", tc.model, tc.engine, tc.quant, err)
			continue
		}
		if s := r.Setup; s.Engine.ID != tc.wantEngine || s.Quant.ID != tc.wantQ || s.GPU.ID != "rtx-4090" {
			t.Errorf("%s (engine %q, quant %q): %s, %s on %s; want %s, %s on rtx-4090", tc.model, tc.engine, tc.quant, s.Engine.ID, s.Quant.ID, s.GPU.ID, tc.wantEngine, tc.wantQ)
		}
		if _, err := r.Setup.Memory(); tc.wantQ == "q4_k_m" && err != nil {
			t.Errorf("%s in Q4_K_M on one RTX 4090: %v; want it to fit", tc.model, err)
		}
	}
}

// TestQuantName: the labels runs and tools write for one weight format are one name
// (issue 37 item 9: "Q4_K_M" and "GGUF Q4_K_M" were two quantizations on the site, and
// so were "AWQ" and "AWQ INT4 g128"); a label that could be several formats, names no
// format, or is not in the catalog stays as written.
func TestQuantName(t *testing.T) {
	c := MustLoad()
	for _, tt := range []struct{ label, want string }{
		{"Q4_K_M", "GGUF Q4_K_M"}, // Ollama's /api/show quantization_level
		{"GGUF Q4_K_M", "GGUF Q4_K_M"},
		{"q4_k_m", "GGUF Q4_K_M"},
		{"AWQ", "AWQ INT4 g128"},
		{"awq", "AWQ INT4 g128"},
		{"AWQ INT4 g128", "AWQ INT4 g128"},
		{"INT4 W4A16 g128", "INT4 W4A16 g128"},
		{"Q8_0", "GGUF Q8_0"},
		{"bf16", "BF16"},
		{"fp8", "FP8 W8A8"},
		// Several formats, no format, not in the catalog: as written.
		{"int8", "int8"},
		{"q4", "q4"},
		{"GPTQ", "GPTQ"},
		{"auto", "auto"},
		{" Q4_K_S ", "Q4_K_S"},
		{"awq_marlin", "awq_marlin"},
		{"", ""},
	} {
		if got := c.QuantName(tt.label); got != tt.want {
			t.Errorf("QuantName(%q) = %q, want %q", tt.label, got, tt.want)
		}
	}
}
