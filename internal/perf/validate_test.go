package perf

import (
	"errors"
	"strings"
	"testing"
)

// TestValidateRefusesWhatTheServerRefuses checks the setups vLLM and llama.cpp refuse
// at startup are refused, with the reason, and that their valid neighbours pass.
func TestValidateRefusesWhatTheServerRefuses(t *testing.T) {
	c := MustLoad()
	setup := func(gpu, model, quant, kv, engine string, tp, pp int) Setup {
		t.Helper()
		g, err := c.GPU(gpu)
		if err != nil {
			t.Fatal(err)
		}
		m, err := c.Model(model)
		if err != nil {
			t.Fatal(err)
		}
		q, err := c.Quant(quant)
		if err != nil {
			t.Fatal(err)
		}
		k, err := c.KVDtype(kv)
		if err != nil {
			t.Fatal(err)
		}
		e, err := c.Engine(engine)
		if err != nil {
			t.Fatal(err)
		}
		return Setup{GPU: g, GPUs: tp, PipelineStages: pp, Model: m, Quant: q, KV: k, Engine: e, MemoryUtilization: 0.9}
	}
	for _, tc := range []struct {
		name string
		s    Setup
		want string // "" = accepted
	}{
		// Qwen3 32B has 64 attention heads and 8 KV heads: vLLM refuses tp=3.
		{"tp3 64/8 heads", setup("h100-sxm", "qwen3-32b", "bf16", "fp16", "vllm", 3, 1), "does not divide Qwen3 32B's 64 attention heads"},
		{"tp2", setup("h100-sxm", "qwen3-32b", "bf16", "fp16", "vllm", 2, 1), ""},
		{"tp8", setup("h100-sxm", "qwen3-32b", "bf16", "fp16", "vllm", 8, 1), ""},
		// Llama 3.1 8B: 32 heads, 8 KV heads; tp=16 replicates KV heads (16 % 8 == 0).
		{"tp16 replicated kv", setup("h100-sxm", "llama-3.1-8b", "bf16", "fp16", "vllm", 16, 1), ""},
		{"pp5 of 64 layers", setup("h100-sxm", "qwen3-32b", "bf16", "fp16", "vllm", 1, 5), "5 pipeline stages do not divide"},
		{"pp4 of 64 layers", setup("h100-sxm", "qwen3-32b", "bf16", "fp16", "vllm", 1, 4), ""},
		{"llama.cpp awq", setup("rtx-3090", "qwen3-8b", "awq", "fp16", "llama.cpp", 1, 1), "llama.cpp does not run AWQ"},
		{"llama.cpp fp8 kv", setup("rtx-3090", "qwen3-8b", "q4_k_m", "fp8", "llama.cpp", 1, 1), "KV cache (it offers fp16, bf16, q8_0, q4_0)"},
		{"vllm q8_0 kv", setup("rtx-3090", "qwen3-8b", "awq", "q8_0", "vllm", 1, 1), "vLLM has no"},
		{"llama.cpp tp3 no head rule", setup("rtx-3090", "qwen3-32b", "q4_k_m", "q8_0", "llama.cpp", 3, 1), ""},
	} {
		err := tc.s.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want != "" && err == nil:
			t.Errorf("%s: accepted, want a refusal saying %q", tc.name, tc.want)
		case tc.want != "" && (!errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v; want ErrRefused saying %q", tc.name, err, tc.want)
		}
	}
	// PredictRun refuses too, so every caller (calc, the site's API) does.
	if _, err := setup("h100-sxm", "qwen3-32b", "bf16", "fp16", "vllm", 3, 1).PredictRun(DefaultPlan(), testNow); !errors.Is(err, ErrRefused) {
		t.Errorf("PredictRun of tp=3 on 64 heads: %v, want ErrRefused", err)
	}
}

// TestHostResidentExperts checks experts kept in host memory leave the GPU's memory
// and add their reading at the host's bandwidth to a step, by the bytes routed to.
func TestHostResidentExperts(t *testing.T) {
	c := MustLoad()
	g, _ := c.GPU("rtx-4090")
	m, err := c.Model("qwen3-30b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	q, _ := c.Quant("q4_k_m")
	kv, _ := c.KVDtype("fp16")
	e, _ := c.Engine("llama.cpp")
	eff, _ := c.Efficiency(e.Family(g.Vendor))
	s := Setup{GPU: g, Model: m, Quant: q, KV: kv, Engine: e, Eff: eff, MemoryUtilization: 0.9}
	off := s
	off.HostExpertLayers, off.HostBandwidthGBps = m.Layers/2, 80
	if err := off.Validate(); err != nil {
		t.Fatal(err)
	}
	a, _ := s.Memory()
	b, _ := off.Memory()
	half := m.ExpertParamsB * 1e9 * q.Bits / 8 / 2
	if d := a.WeightBytes - b.WeightBytes; d < half*0.999 || d > half*1.001 {
		t.Errorf("half the experts offloaded frees %.3g B of GPU memory, want %.3g", d, half)
	}
	// Batch 1: k of E experts' bytes per layer; half of them read by the CPU at 80 GB/s.
	host := half * float64(m.ExpertsPerToken) / float64(m.Experts) / 80e9
	dt := off.DecodeStepSeconds(0, 1) - s.DecodeStepSeconds(0, 1)
	gpuSaved := half * float64(m.ExpertsPerToken) / float64(m.Experts) / (g.BandwidthGBps * 1e9) / eff.Bandwidth
	if want := host - gpuSaved; dt < want*0.9 || dt > want*1.1 {
		t.Errorf("a batch-1 step takes %.3g s longer with half the experts in host memory, want %.3g", dt, want)
	}
	off.Engine, _ = c.Engine("vllm")
	off.Quant, _ = c.Quant("awq")
	if err := off.Validate(); err == nil || !strings.Contains(err.Error(), "keeps no experts in host memory") {
		t.Errorf("vLLM with host experts: %v", err)
	}
}

// TestExplicitBitsRunOnEveryEngine: bits per weight given as a number describe any mix
// (a GGUF Q4_K_M is about 4.8), so no engine refuses them, while a named format an
// engine does not run is still refused (issue 34: every --weight-bits with llama.cpp or
// Ollama was refused, calc --help's own MoE example included).
func TestExplicitBitsRunOnEveryEngine(t *testing.T) {
	c := MustLoad()
	for _, e := range c.Engines {
		for _, bits := range []float64{4, 4.5, 4.82, 8.5, 16} {
			r, err := c.Resolve(with(func(q *Query) {
				q.GPU, q.Model, q.WeightBits, q.KVDtype, q.Engine = "rtx-3090", "qwen3-8b", bits, "fp16", e.ID
			}))
			if err != nil {
				t.Errorf("%s, %g bits: %v", e.ID, bits, err)
				continue
			}
			if err := r.Setup.Validate(); err != nil {
				t.Errorf("%s, %g bits: refused: %v", e.ID, bits, err)
			}
		}
	}
	r, err := c.Resolve(with(func(q *Query) {
		q.GPU, q.Model, q.Quant, q.KVDtype, q.Engine = "rtx-3090", "qwen3-8b", "awq", "fp16", "llama.cpp"
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Setup.Validate(); !errors.Is(err, ErrRefused) {
		t.Errorf("named AWQ on llama.cpp: %v, want ErrRefused", err)
	}
}
