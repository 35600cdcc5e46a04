package perf

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
	seedcopy "github.com/llmbench/llmbench/internal/seed"
)

func setupFor(t *testing.T, gpu, model, quant, kv, engine string, util float64) Setup {
	t.Helper()
	c := MustLoad()
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
	eff, err := c.Efficiency(e.Family(g.Vendor))
	if err != nil {
		t.Fatal(err)
	}
	return Setup{GPU: g, GPUs: 1, Model: m, Quant: q, KV: k, Engine: e, Eff: eff, MemoryUtilization: util}
}

func TestCatalogEntriesHaveSources(t *testing.T) {
	c := MustLoad()
	for _, g := range c.GPUs {
		if g.Source == "" || g.BandwidthGBps <= 0 || g.VRAMGiB <= 0 || g.FP16TFLOPS <= 0 {
			t.Errorf("GPU %s: missing source or figures: %+v", g.ID, g)
		}
	}
	for _, m := range c.Models {
		if m.Source == "" || m.ParamsB <= 0 || m.Layers <= 0 || m.Hidden <= 0 || m.Heads <= 0 || m.KVHeads <= 0 || m.HeadDim <= 0 {
			t.Errorf("model %s: missing source or figures", m.ID)
		}
		if m.Experts > 0 && (m.ActiveParamsB <= 0 || m.ExpertParamsB <= 0 || m.ExpertsPerToken <= 0) {
			t.Errorf("MoE model %s lacks active/expert parameters", m.ID)
		}
	}
	for _, q := range c.Quants {
		if q.Source == "" || q.Bits <= 0 || q.EmbeddingBits <= 0 {
			t.Errorf("quant %s: missing source or bits", q.ID)
		}
	}
	for _, m := range c.Measurements {
		if m.Source == "" || m.Value() <= 0 {
			t.Errorf("measurement %+v: missing source or value", m)
		}
	}
	for _, want := range []string{"rtx-3090", "rtx-4090", "rtx-5090", "a10", "l4", "l40s", "a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h200", "b200", "mi300x", "m2-max", "m2-ultra", "m3-max", "m3-ultra", "m4-max"} {
		if _, err := c.GPU(want); err != nil {
			t.Errorf("catalog lacks GPU %s: %v", want, err)
		}
	}
}

func TestLookupIsForgiving(t *testing.T) {
	c := MustLoad()
	for _, tc := range []struct{ name, want string }{
		{"rtx-3090", "rtx-3090"}, {"RTX 3090", "rtx-3090"}, {"NVIDIA GeForce RTX 3090", "rtx-3090"},
		{"h100-sxm", "h100-sxm"}, {"H100 SXM", "h100-sxm"}, {"h100", "h100-sxm"}, {"M3 Ultra", "m3-ultra"},
	} {
		g, err := c.GPU(tc.name)
		if err != nil || g.ID != tc.want {
			t.Errorf("GPU(%q) = %q, %v; want %q", tc.name, g.ID, err, tc.want)
		}
	}
	for _, tc := range []struct{ name, want string }{
		{"Qwen/Qwen3-32B", "qwen3-32b"}, {"llama 3 8b", "llama-3.1-8b"}, {"RedHatAI/Qwen3.8-27B-INT4", "qwen3.8-27b"},
	} {
		m, err := c.Model(tc.name)
		if err != nil || m.ID != tc.want {
			t.Errorf("Model(%q) = %q, %v; want %q", tc.name, m.ID, err, tc.want)
		}
	}
	q, err := c.Quant("INT4 W4A16 g128")
	if err != nil || q.ID != "w4a16-g128" {
		t.Errorf("Quant(seed's quantization string) = %q, %v", q.ID, err)
	}
	_, err = c.GPU("rtx 3091")
	var nf *NotFoundError
	if !errors.As(err, &nf) || len(nf.Closest) == 0 || nf.Closest[0] != "rtx-3090" {
		t.Errorf("GPU(rtx 3091) error = %v; want a NotFoundError suggesting rtx-3090 first", err)
	}
	if err != nil && !strings.Contains(err.Error(), "--list gpus") {
		t.Errorf("error %q does not point at --list gpus", err)
	}
}

func TestSizes(t *testing.T) {
	for _, tc := range []struct {
		name                string
		model, quant, kv    string
		wantWeightGiB, tol  float64 // published file size
		wantKVBytesPerToken float64
	}{
		// XiongjieDai's table: Llama 3 8B Q4_K_M 4.58 GB, F16 14.96 GB (GiB as llama.cpp prints them).
		{"llama3-8b q4_k_m", "llama-3.1-8b", "q4_k_m", "fp16", 4.58, 0.03, 32 * 2 * 8 * 128 * 2},
		{"llama3-8b f16", "llama-3.1-8b", "f16", "fp16", 14.96, 0.01, 32 * 2 * 8 * 128 * 2},
		// MLA: 61 layers × (512 + 64) latent values × 2 bytes.
		{"deepseek-v3 fp8", "deepseek-v3", "fp8", "bf16", 0, 0, 61 * 576 * 2},
		// Gemma 3: only the 10 global layers grow with the context.
		{"gemma-3-27b", "gemma-3-27b", "bf16", "fp16", 0, 0, 10 * 2 * 16 * 128 * 2},
		// Qwen3.8: 16 full-attention layers, fp8.
		{"qwen3.8-27b", "qwen3.8-27b", "w4a16-g128", "fp8", 0, 0, 16 * 2 * 4 * 256},
		{"q8_0 kv", "llama-3.1-8b", "f16", "q8_0", 0, 0, 32 * 2 * 8 * 128 * 8.5 / 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := setupFor(t, "h100-sxm", tc.model, tc.quant, tc.kv, "vllm", 0.9)
			if tc.wantWeightGiB > 0 {
				got := s.WeightBytes() / GiB
				if math.Abs(got-tc.wantWeightGiB)/tc.wantWeightGiB > tc.tol {
					t.Errorf("weights %.2f GiB, published %.2f GiB", got, tc.wantWeightGiB)
				}
			}
			if got := s.KVBytesPerToken(); math.Abs(got-tc.wantKVBytesPerToken) > 1e-6 {
				t.Errorf("KV bytes per token %.1f, want %.1f", got, tc.wantKVBytesPerToken)
			}
		})
	}
}

func TestDecodeShape(t *testing.T) {
	s := setupFor(t, "rtx-4090", "qwen2.5-7b", "w4a16-g128", "fp16", "vllm", 0.9)
	p := DefaultPlan()
	prev := s.DecodeFigures(0, 1, p)
	for _, c := range []int{2, 4, 8, 16, 32} {
		f := s.DecodeFigures(0, c, p)
		if !(f.TotalTokS > prev.TotalTokS) {
			t.Errorf("total tok/s does not grow with concurrency: %d → %.1f after %.1f", c, f.TotalTokS, prev.TotalTokS)
		}
		if f.TBTMs < prev.TBTMs {
			t.Errorf("time between tokens falls with concurrency at %d", c)
		}
		prev = f
	}
	short, long := s.DecodeFigures(0, 4, p), s.DecodeFigures(16*1024, 4, p)
	if !(long.TBTMs > short.TBTMs) {
		t.Errorf("a longer context does not slow decode: %v vs %v", short, long)
	}
	p8, p32 := s.PrefillFigures(8*1024), s.PrefillFigures(32*1024)
	if !(p32.PromptTokS < p8.PromptTokS) || !(p32.TTFTMs > 3*p8.TTFTMs) {
		t.Errorf("prefill does not slow with context (attention): 8K %+v, 32K %+v", p8, p32)
	}
}

func TestTensorParallel(t *testing.T) {
	one := setupFor(t, "h200", "llama-3.1-70b", "fp8", "fp8", "vllm", 0.9)
	two := one
	two.GPUs = 2
	k1, err := one.KVCacheTokens()
	if err != nil {
		t.Fatal(err)
	}
	k2, err := two.KVCacheTokens()
	if err != nil {
		t.Fatal(err)
	}
	if k2 < 2*k1 {
		t.Errorf("TP=2 KV cache %d tokens is not over twice TP=1's %d (weights split too)", k2, k1)
	}
	s1, s2 := one.DecodeStepSeconds(1024, 1), two.DecodeStepSeconds(1024, 1)
	if !(s2 < s1 && s2 > s1/2) {
		t.Errorf("TP=2 step %.2f ms vs TP=1 %.2f ms: want faster, but less than 2x (communication)", s2*1000, s1*1000)
	}
}

func TestMoEReadsOnlyRoutedExperts(t *testing.T) {
	s := setupFor(t, "h100-sxm", "qwen3-30b-a3b", "bf16", "bf16", "vllm", 0.9)
	if one, all := s.weightBytesRead(1), s.WeightBytes(); !(one < 0.2*all) {
		t.Errorf("batch 1 reads %.1f GB of %.1f GB: an MoE token touches 8 of 128 experts", one/1e9, all/1e9)
	}
	// Every weight but the input embedding, which a step only looks rows up in.
	all := s.WeightBytes() - s.Model.lookupOnlyParams()*1e9*s.Quant.EmbeddingBits/8
	if many := s.weightBytesRead(512); math.Abs(many-all)/all > 0.01 {
		t.Errorf("512 tokens read %.1f GB, want ≈ all %.1f GB", many/1e9, all/1e9)
	}
}

func TestWeightsTooBig(t *testing.T) {
	s := setupFor(t, "rtx-3090", "llama-3.1-70b", "bf16", "fp16", "vllm", 0.9)
	if _, err := s.KVCacheTokens(); !errors.Is(err, ErrNoRoom) {
		t.Errorf("70B BF16 on 24 GB: err = %v, want ErrNoRoom", err)
	}
}

// TestSeedOverCapacityPattern checks the prediction from the seed page's launch flags
// (vllm serve RedHatAI/Qwen3.8-27B-INT4 --gpu-memory-utilization 0.94 --kv-cache-dtype
// fp8 --max-model-len 65536 on one RTX 3090, 8,192 output tokens) against the cells the
// seed ran. The seed ran 8 of 32 cells, which takes a KV cache of 65,536 to 81,919
// tokens (8 × 8K fits; 2 × (32K + 8K) = 81,920 does not).
//
// The prediction — weights at 4.125 bits except the 16-bit embeddings, 94 % of the
// 23.56 GiB CUDA reports on an RTX 3090, vLLM's single-GPU reserve from a boot log of
// this very checkpoint on an RTX 3090 with the sampler warm-up of the seed's 53
// sequences (engines.json), counted the way vLLM counts a hybrid model's cache (87
// blocks of 1,568 tokens, 48 blocks per 65,536-token request: 118,784 tokens;
// TestHybridKVSeed) — gives a larger cache than that: every cell the
// seed ran fits, every cell the seed skipped at concurrency ≥ 8 or beyond max_model_len
// is over capacity, and exactly two cells the seed skipped — 16K × 4 and 32K × 2 — are
// predicted to fit: 10 cells, not the seed's 8. No parameter is tuned to reach 8. The
// published boot log itself (4.34 GiB of KV cache for this checkpoint, GPU and
// utilization at 8 sequences) says the same: vLLM's own cache holds those two cells. docs/calc.md has
// the evidence; the test pins the result so that a change that moves it is seen, and
// TestSeedPatternIsMaxModelLen shows which capacity does give the seed's 8 cells.
func TestSeedOverCapacityPattern(t *testing.T) {
	s := setupFor(t, "RTX 3090", "RedHatAI/Qwen3.8-27B-INT4", "INT4 W4A16 g128", "fp8", "vllm", 0.94)
	s.MaxNumSeqs = 53 // the seed's --max-num-seqs
	p := DefaultPlan()
	p.MaxModelLen = 65536
	run, err := s.PredictRun(p, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	kv := *run.Engine.KVCacheTokens
	const seedMin, seedMax = 65536, 81919
	s.MaxModelLen = p.MaxModelLen
	mem, err := s.Memory()
	if err != nil || mem.Hybrid == nil {
		t.Fatalf("the seed's setup is not counted the hybrid way: %v", err)
	}
	if kv != mem.KVTokens || kv != 118_784 {
		t.Errorf("run reports %d KV tokens, Memory %d; want vLLM's hybrid count 118,784", kv, mem.KVTokens)
	}
	// The most blocks that still report ≤ seedMax tokens, and the pool bytes that give
	// one block more: the KV cache the seed's engine must have had less than.
	h := mem.Hybrid
	seedBlocks := seedMax * h.BlocksPerRequest / h.MaxModelLen
	gap := (mem.KVBytes - float64((seedBlocks+1)*int64(h.GroupSize)*h.PageBytes)) / GiB
	t.Logf("predicted KV cache: %d tokens (%d blocks); the seed's pattern needs %d–%d tokens (at most %d blocks): at least %.2f GiB less KV cache than predicted",
		kv, h.NumBlocks, seedMin, seedMax, seedBlocks, gap)
	for _, n := range run.Notes {
		t.Log(n)
	}
	const k = rundoc.K
	seedRan := map[[2]int]bool{
		{0, 1}: true, {0, 2}: true, {0, 4}: true, {0, 8}: true,
		{16 * k, 1}: true, {16 * k, 2}: true, {32 * k, 1}: true, {56 * k, 1}: true,
	}
	knownExtra := map[[2]int]bool{{16 * k, 4}: true, {32 * k, 2}: true}
	if len(run.Decode) != 32 {
		t.Fatalf("%d decode cells, want 32", len(run.Decode))
	}
	for _, c := range run.Decode {
		cell := [2]int{c.Context, c.Concurrency}
		want := rundoc.StatusOverCapacity
		if seedRan[cell] || knownExtra[cell] {
			want = rundoc.StatusPredicted
		}
		if c.Status != want {
			t.Errorf("cell %s × %d: predicted %s, want %s (seed ran it: %v)", rundoc.FormatTokens(c.Context), c.Concurrency, c.Status, want, seedRan[cell])
		}
	}
	if kv < seedMin {
		t.Errorf("predicted KV cache %d tokens is below the seed's %d: a cell the seed ran would be over capacity", kv, seedMin)
	}
	// calc says both: vLLM's own cache runs 10 cells, the capacity = max_model_len
	// rule the seed's tool evidently used runs the seed's 8.
	both := false
	for _, n := range run.Notes {
		both = both || strings.Contains(n, "118,784 tokens, what the cells above use) 10 of 32") && strings.Contains(n, "(65,536 tokens), as the seed page's tool evidently did, 8 run")
	}
	if !both {
		t.Errorf("notes do not give both capacities (vLLM's cache: 10 cells; max_model_len: the seed's 8): %q", run.Notes)
	}
	if run.Status != rundoc.RunPredicted || run.Kind() != rundoc.RunPredicted {
		t.Errorf("run status %q, want predicted", run.Status)
	}
}

// TestSeedPatternIsMaxModelLen: the seed's 32 statuses are exactly the over-capacity rule
// with a capacity of 65,536 tokens — its --max-model-len — and with any capacity up to
// 81,919, but not with 81,920 or more, which takes 60 blocks or more; the 4.34 GiB of
// KV cache a published boot log shows for the same setup is 90 blocks, and the model
// predicts 87 for the seed's 53 sequences. Whatever capacity the seed's tool used, it was not vLLM's
// reported cache for these flags.
func TestSeedPatternIsMaxModelLen(t *testing.T) {
	raw, err := os.ReadFile(seedcopy.RunPath())
	if err != nil {
		t.Fatal(err)
	}
	var seed rundoc.Run
	if err := json.Unmarshal(raw, &seed); err != nil {
		t.Fatal(err)
	}
	maxLen := *seed.Engine.MaxModelLen
	statuses := func(kv int64) (differ []string) {
		for _, c := range seed.Decode {
			fits, _ := rundoc.Fit(c.Context, c.Concurrency, seed.Config.MaxOutputTokens, &kv, &maxLen)
			if fits != (c.Status != rundoc.StatusOverCapacity) {
				differ = append(differ, fmt.Sprintf("%s×%d", rundoc.FormatTokens(c.Context), c.Concurrency))
			}
		}
		return differ
	}
	for _, kv := range []int64{maxLen, 81_919} {
		if d := statuses(kv); len(d) > 0 {
			t.Errorf("capacity %d tokens: cells %v differ from the seed", kv, d)
		}
	}
	for _, kv := range []int64{81_920, 118_784, 122_880} {
		if d := statuses(kv); len(d) == 0 {
			t.Errorf("capacity %d tokens reproduces the seed; the seed's pattern should bound it below 81,920", kv)
		}
	}
}

// BenchmarkPredictRun is calc's whole matrix (32 cells, 4 prefill rows).
func BenchmarkPredictRun(b *testing.B) {
	c := MustLoad()
	g, _ := c.GPU("rtx-3090")
	m, _ := c.Model("qwen3.8-27b")
	q, _ := c.Quant("w4a16-g128")
	kv, _ := c.KVDtype("fp8")
	e, _ := c.Engine("vllm")
	s := Setup{GPU: g, Model: m, Quant: q, KV: kv, Engine: e, Eff: c.Efficiencies["vllm"], MemoryUtilization: 0.94}
	now := time.Now()
	for b.Loop() {
		if _, err := s.PredictRun(DefaultPlan(), now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStepSeconds is one emulator step of 64 decoding sequences: the emulator
// calls it once per engine step.
func BenchmarkStepSeconds(b *testing.B) {
	c := MustLoad()
	g, _ := c.GPU("h100-sxm")
	m, _ := c.Model("llama-3.1-8b")
	q, _ := c.Quant("bf16")
	kv, _ := c.KVDtype("bf16")
	e, _ := c.Engine("vllm")
	s := Setup{GPU: g, Model: m, Quant: q, KV: kv, Engine: e, Eff: c.Efficiencies["vllm"], MemoryUtilization: 0.9}
	ctxs := make([]int, 64)
	for i := range ctxs {
		ctxs[i] = 1000 + i*100
	}
	for b.Loop() {
		s.StepSeconds(nil, ctxs)
	}
}
