package calc

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/wire"
)

func TestCalculatorPredictsAValidSubmission(t *testing.T) {
	p, err := NewPerf()
	if err != nil {
		t.Fatal(err)
	}
	// The seed's own names, as a reader picks them from the site's runs.
	pred, err := p.Predict(context.Background(), Input{GPU: "RTX 3090", Model: "RedHatAI/Qwen3.8-27B-INT4", Quant: "INT4 W4A16 g128", KVDtype: "fp8"})
	if err != nil {
		t.Fatalf("Predict: %v", err)
	}
	run := pred.Run
	if run.Kind() != rundoc.RunPredicted {
		t.Errorf("a prediction has kind %q, want predicted", run.Kind())
	}
	b, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	if _, ferr := guard.ValidateRun(b); ferr != nil {
		t.Errorf("the calculator's document is not a valid submission: %v", ferr)
	}
	if c := run.Cell(0, 1); c == nil || c.DecodeFigures == nil || c.TotalTokS <= 0 {
		t.Errorf("no single-stream decode figure predicted at context 0")
	}
	if _, err := p.Predict(context.Background(), Input{GPU: "No Such GPU", Model: "qwen3.8-27b"}); err == nil {
		t.Errorf("an unknown GPU gave no error")
	}
	if !p.SameGPU("RTX 3090", "rtx-3090") || p.SameGPU("RTX 3090", "RTX 4090") {
		t.Errorf("SameGPU does not tell names of one GPU from another GPU")
	}
	specs, ok := p.GPUSpecs("RTX 3090")
	if !ok || !strings.Contains(specsText(specs), "GB/s") {
		t.Errorf("GPUSpecs(RTX 3090) = %v, %v", specs, ok)
	}
	if _, ok := p.ModelSpecs("RedHatAI/Qwen3.8-27B-INT4"); !ok {
		t.Errorf("the seed's model is not found in the catalog")
	}
}

// TestCalculatorRefusesWhatTheServerRefuses checks the site's calculator gives the
// engine's refusal, as calc does: vLLM does not start tp=3 on 64 attention heads.
func TestCalculatorRefusesWhatTheServerRefuses(t *testing.T) {
	p, err := NewPerf()
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Predict(context.Background(), Input{GPU: "h100-sxm", GPUs: 3, Model: "qwen3-32b"})
	if err == nil || !strings.Contains(err.Error(), "does not divide Qwen3 32B's 64 attention heads") {
		t.Errorf("tp=3 on Qwen3 32B: %v; want the refusal", err)
	}
	if _, err := p.Predict(context.Background(), Input{GPU: "h100-sxm", GPUs: 4, Model: "qwen3-32b"}); err != nil {
		t.Errorf("tp=4 on Qwen3 32B: %v", err)
	}
}

func specsText(ss []wire.Spec) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s.Label + "=" + s.Value + ";")
	}
	return b.String()
}

// TestCalculatorReadsNamesAsToolsPrintThem: an Ollama tag and nvidia-smi's GPU name
// are the catalog's model and GPU on the site too (issue 24 item 3): the model page
// has its specs, the calculator predicts it with the tag's weight format, and a run
// under the tag is the same model as the catalog's; an alias for another model is not.
func TestCalculatorReadsNamesAsToolsPrintThem(t *testing.T) {
	p, err := NewPerf()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.ModelSpecs("qwen3.8:27b-q4_K_M"); !ok {
		t.Error("the Ollama tag qwen3.8:27b-q4_K_M is not found in the catalog")
	}
	pred, err := p.Predict(context.Background(), Input{GPU: "NVIDIA GeForce RTX 4090", Model: "qwen3.8:27b-q4_K_M"})
	if err != nil {
		t.Fatalf("Predict: %v", err)
	}
	if q := pred.Run.Engine.Quantization; q != "GGUF Q4_K_M" {
		t.Errorf("predicted with weights %q, want the tag's GGUF Q4_K_M", q)
	}
	if !p.SameModel("qwen3.8:27b-q4_K_M", "qwen3.8-27b") || !p.SameModel("RedHatAI/Qwen3.8-27B-INT4", "qwen3.8:27b-q4_K_M") {
		t.Error("an Ollama tag and the catalog's id are not the same model")
	}
	if p.SameModel("llama-3-8b", "llama-3.1-8b") {
		t.Error("llama-3-8b, a stand-in for Llama 3.1 8B, counted as the same model: its runs are not Llama 3.1's")
	}
	if !p.SameGPU("NVIDIA GeForce RTX 4090", "RTX 4090") {
		t.Error("nvidia-smi's name and the catalog's are not the same GPU")
	}
}

// TestCalculatorErrorsNameTheirField: the site's calculator reads a setup as calc does
// (perf.Resolve) and points at the field of a name it does not know, with the closest
// names; a format the model's name states that the catalog lacks is the quant field's;
// an input without a GPU or model name (a run that names none) is the catalog's
// empty-name error for that field; without a format the name's, else bf16, is taken.
func TestCalculatorErrorsNameTheirField(t *testing.T) {
	p, err := NewPerf()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		in                   Input
		field, value, reason string
		unknown              bool
		closest              string
	}{
		{Input{GPU: "rtx 3091", Model: "qwen3-32b"}, "gpu", "rtx 3091", "", true, "rtx-3090"},
		{Input{GPU: "rtx-3090", Model: "qwen-3-32"}, "model", "qwen-3-32", "", true, "qwen3-32b"},
		{Input{GPU: "rtx-4090", Model: "mlx-community/Qwen3-32B-4bit"}, "quant", "4bit", "", true, "w4a16-g128"},
		{Input{GPU: "rtx-3090", Model: "qwen3-8b", Quant: "awq-9"}, "quant", "awq-9", "", true, ""},
		{Input{GPU: "rtx-3090", Model: "qwen3-8b", KVDtype: "q9"}, "kv_dtype", "q9", "", true, ""},
		{Input{GPU: "rtx-3090", Model: "qwen3-8b", Engine: "vllx"}, "engine", "vllx", "", true, "vllm"},
		{Input{Model: "qwen3-8b"}, "gpu", "", "empty gpu name", false, ""},
		{Input{GPU: "rtx-3090"}, "model", "", "empty model name", false, ""},
		{Input{GPU: "rtx 3091"}, "gpu", "rtx 3091", "", true, "rtx-3090"},
	} {
		for name, call := range map[string]func() error{
			"Predict":  func() error { _, err := p.Predict(ctx, tc.in); return err },
			"Capacity": func() error { _, err := p.Capacity(ctx, tc.in); return err },
		} {
			var ce *Error
			if err := call(); !errors.As(err, &ce) || ce.Field != tc.field || ce.Value != tc.value || ce.Reason != tc.reason || ce.Unknown != tc.unknown ||
				(tc.closest != "" && !slices.Contains(ce.Closest, tc.closest)) {
				t.Errorf("%s(%+v): %#v; want field %q, value %q, reason %q, unknown %v, closest with %q", name, tc.in, ce, tc.field, tc.value, tc.reason, tc.unknown, tc.closest)
			}
		}
	}
	for _, tc := range []struct{ model, weights string }{{"qwen3-32b", "BF16"}, {"Qwen/Qwen3-32B-AWQ", "AWQ INT4 g128"}} {
		pred, err := p.Predict(ctx, Input{GPU: "h100-sxm", Model: tc.model})
		if err != nil || pred.Run.Engine.Quantization != tc.weights || len(pred.Run.Notes) == 0 || strings.Contains(strings.Join(pred.Run.Notes, " "), "from the name") {
			t.Errorf("%s without a format: %v; want weights %s and none of calc's notes on the name", tc.model, err, tc.weights)
		}
	}
	mem, err := p.Capacity(ctx, Input{GPU: "rtx-3090", Model: "qwen3.8-27b", Quant: "int4", KVDtype: "fp8", MemoryUtilization: 0.94, MaxModelLen: 65536, MaxNumSeqs: 53})
	if err != nil || mem.MaxModelLen != 65536 || mem.MaxNumSeqs != 53 || mem.Utilization != 0.94 || mem.KVTokens <= 0 {
		t.Errorf("the seed's launch: %+v, %v", mem, err)
	}
}

// TestCalculatorReadsOllamaTagsAndSiteLabels: the site's calculator, on the site's own
// label of a GPU ("RTX 4090 24 GB"), reads a bare Ollama tag as Ollama's Q4_K_M served
// by Ollama, so Qwen3 32B fits one RTX 4090 (issue 37 item 7: it was BF16 on vLLM, "does
// not fit"); deepseek-r1:32b is the Qwen2.5 32B distill, not DeepSeek-V3; "h100 80gb"
// is the H100 that "h100" is, not an A100.
func TestCalculatorReadsOllamaTagsAndSiteLabels(t *testing.T) {
	p, err := NewPerf()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct{ model, served string }{
		{"qwen3:32b", "qwen3-32b"}, {"llama3.1:8b", "llama-3.1-8b"}, {"gemma3:27b", "gemma-3-27b"}, {"deepseek-r1:32b", "qwen2.5-32b"},
	} {
		pred, err := p.Predict(ctx, Input{GPU: "RTX 4090 24 GB", Model: tc.model})
		if err != nil {
			t.Errorf("%s on RTX 4090 24 GB: %v", tc.model, err)
			continue
		}
		r := pred.Run
		if r.Engine.Name != "ollama" || r.Engine.Quantization != "GGUF Q4_K_M" || r.Model.ServedName != tc.served || r.Hardware.GPUs[0].Name != "RTX 4090" {
			t.Errorf("%s: %s %s %s on %s; want ollama GGUF Q4_K_M %s on RTX 4090", tc.model, r.Engine.Name, r.Engine.Quantization, r.Model.ServedName, r.Hardware.GPUs[0].Name, tc.served)
		}
		if len(r.Decode) == 0 || r.Decode[0].Status != rundoc.StatusPredicted {
			t.Errorf("%s: the 0 × 1 cell is %v; want it predicted (the model fits)", tc.model, r.Decode[0].Status)
		}
	}
	pred, err := p.Predict(ctx, Input{GPU: "h100 80gb", Model: "qwen3-8b"})
	if err != nil || pred.Run.Hardware.GPUs[0].Name != "H100 SXM" {
		t.Errorf("h100 80gb: %v; want the H100 SXM", err)
	}
}
