package perf

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestHybridKVSeed recomputes, from the catalog's Qwen3.8-27B geometry, the layout vLLM
// gives the seed's launch (RTX 3090, --gpu-memory-utilization 0.94, --kv-cache-dtype
// fp8, --max-model-len 65536, prefix caching on), step by step as docs/calc.md derives
// it from vLLM's source: a 3,207,168-byte recurrent page (61,440 B of BF16 conv window
// + 3,145,728 B of FP32 temporal state), attention blocks of 1,568 tokens (page
// 3,211,264 B), 1 attention + 3 GDN groups of 16 layers, 42 + 6 = 48 blocks per
// 65,536-token request, and — with the 4.19 GiB the memory model leaves at the seed's
// --max-num-seqs 53 — 87 blocks, reported as int(87 / 48 × 65,536) = 118,784 tokens.
func TestHybridKVSeed(t *testing.T) {
	s := setupFor(t, "rtx-3090", "qwen3.8-27b", "w4a16-g128", "fp8", "vllm", 0.94)
	s.MaxModelLen, s.MaxNumSeqs = 65536, 53
	mem, err := s.Memory()
	if err != nil {
		t.Fatal(err)
	}
	if mem.Hybrid == nil {
		t.Fatal("vLLM with a Gated DeltaNet model: no hybrid layout")
	}
	want := HybridKV{
		MambaPageBytes:         61_440 + 3_145_728,
		AttentionBytesPerToken: 2 * 4 * 256 * 1,
		BlockSize:              1568,
		PageBytes:              1568 * 2048,
		GroupSize:              16,
		AttentionGroups:        1,
		LinearGroups:           3,
		NumBlocks:              87,
		MaxModelLen:            65536,
		PrefixCaching:          true,
		StateBlocksPerRequest:  3 * 2,
		BlocksPerRequest:       42 + 3*2,
		Tokens:                 118_784,
	}
	if d := cmp.Diff(want, *mem.Hybrid); d != "" {
		t.Errorf("hybrid layout (-want +got):\n%s", d)
	}
	if mem.KVTokens != want.Tokens {
		t.Errorf("Memory reports %d KV tokens, want the hybrid count %d", mem.KVTokens, want.Tokens)
	}
	// The 87 blocks are the pool bytes over 16 tensors of 3,211,264-byte pages.
	if got := int64(mem.KVBytes) / (16 * 3_211_264); got != 87 {
		t.Errorf("%.3f GiB of KV cache is %d blocks of 16 × 3,211,264 B, want 87", mem.KVBytes/GiB, got)
	}
}

// TestHybridKVMatchesBootLog checks the hybrid count against a real vLLM boot log of
// the seed's checkpoint on one RTX 3090 (vLLM 0.27.1; RedHatAI/Qwen3.8-27B-INT4, fp8 KV,
// --mamba-ssm-cache-dtype float16, prefix caching in "align" mode, max_model_len -1;
// Starwaves1/vllm-gsqrco-exl3 cloud/results/models/runs/official-nomtp/server.log):
//
//	Setting attention block size to 800 tokens to ensure that attention page size is >= mamba page size.
//	Padding mamba page size by 0.25% ...
//	Available KV cache memory: 4.34 GiB
//	Auto-fit max_model_len: reduced from 262144 to 136800 ...
//	GPU KV cache size: 136,800 tokens
//	Maximum concurrency for 136,800 tokens per request: 1.00x
//
// From the logged 4.34 GiB (a rounded figure: 4.335–4.345 GiB) the layout must give
// 800-token blocks, a 0.25 % mamba padding, 177 blocks, and at max_model_len 136,800 =
// 171 × 800 exactly one request (171 attention + 3 × 2 state blocks = 177) and 136,800
// tokens. calc's whole prediction for that boot (memory included) is checked in
// cmd/llmbench TestCalcReproducesVLLMBootLog.
func TestHybridKVMatchesBootLog(t *testing.T) {
	s := setupFor(t, "rtx-3090", "qwen3.8-27b", "w4a16-g128", "fp8", "vllm", 0.94)
	s.MambaSSMBytes, s.MaxNumSeqs = 2, 8 // --mamba-ssm-cache-dtype float16 --max-num-seqs 8
	for _, gib := range []float64{4.335, 4.34, 4.345} {
		s.MaxModelLen = 136_800
		h := s.hybridKV(gib * GiB)
		if h == nil {
			t.Fatal("no hybrid layout")
		}
		padding := float64(h.PageBytes)/float64(h.MambaPageBytes) - 1
		if h.BlockSize != 800 || h.NumBlocks != 177 || h.BlocksPerRequest != 177 || h.Tokens != 136_800 || padding < 0.0025 || padding >= 0.0026 {
			t.Errorf("%.3f GiB: block %d, %d blocks, %d per request, %d tokens, mamba padding %.3f%%; vLLM logged 800, 177 (derived), 177, 136,800, 0.25%%",
				gib, h.BlockSize, h.NumBlocks, h.BlocksPerRequest, h.Tokens, padding*100)
		}
		// vLLM's auto-fit picked the longest max_model_len whose one request fits: one
		// more 800-token block would not.
		s.MaxModelLen = 136_800 + 800
		if h := s.hybridKV(gib * GiB); h.BlocksPerRequest <= h.NumBlocks {
			t.Errorf("%.3f GiB: a %d-token request (%d blocks) still fits %d blocks; vLLM's auto-fit stopped at 136,800", gib, s.MaxModelLen, h.BlocksPerRequest, h.NumBlocks)
		}
	}
}

// TestHybridKVVariants checks the inputs that move vLLM's count: the KV dtype (BF16
// doubles the attention bytes per token, so the block that matches the same recurrent
// page halves to 784 tokens), prefix caching (1 block per GDN group without it: 42 + 3 = 45) and the
// engine and model (other engines and pure-attention models keep bytes per token).
func TestHybridKVVariants(t *testing.T) {
	t.Run("bf16 KV", func(t *testing.T) {
		s := setupFor(t, "rtx-3090", "qwen3.8-27b", "w4a16-g128", "bf16", "vllm", 0.94)
		s.MaxModelLen = 65536
		mem, err := s.Memory()
		if err != nil || mem.Hybrid == nil {
			t.Fatalf("no hybrid layout: %v", err)
		}
		if h := mem.Hybrid; h.BlockSize != 784 || h.PageBytes != 784*4096 || h.MambaPageBytes != 3_207_168 {
			t.Errorf("BF16 KV: block %d tokens, page %d B, mamba page %d B; want 784, %d, 3207168 (the KV dtype does not change the recurrent state)",
				h.BlockSize, h.PageBytes, h.MambaPageBytes, 784*4096)
		}
	})
	t.Run("no prefix caching", func(t *testing.T) {
		s := setupFor(t, "rtx-3090", "qwen3.8-27b", "w4a16-g128", "fp8", "vllm", 0.94)
		s.MaxModelLen, s.NoPrefixCaching, s.MaxNumSeqs = 65536, true, 53
		mem, err := s.Memory()
		if err != nil || mem.Hybrid == nil {
			t.Fatalf("no hybrid layout: %v", err)
		}
		if h := mem.Hybrid; h.BlocksPerRequest != 45 || h.Tokens != 87*65536/45 {
			t.Errorf("without prefix caching: %d blocks per request, %d tokens; want 45 and %d", h.BlocksPerRequest, h.Tokens, 87*65536/45)
		}
	})
	t.Run("llama.cpp keeps bytes per token", func(t *testing.T) {
		s := setupFor(t, "rtx-3090", "qwen3.8-27b", "w4a16-g128", "fp8", "llama.cpp", 0.94)
		s.MaxModelLen = 65536
		mem, err := s.Memory()
		if err != nil {
			t.Fatal(err)
		}
		if mem.Hybrid != nil || mem.KVTokens != int64(mem.KVBytes/s.KVBytesPerToken()) {
			t.Errorf("llama.cpp: hybrid %v, %d tokens; want the bytes-per-token count %d", mem.Hybrid != nil, mem.KVTokens, int64(mem.KVBytes/s.KVBytesPerToken()))
		}
	})
	t.Run("pure attention keeps bytes per token", func(t *testing.T) {
		s := setupFor(t, "h100-sxm", "llama-3.1-8b", "bf16", "bf16", "vllm", 0.9)
		mem, err := s.Memory()
		if err != nil {
			t.Fatal(err)
		}
		// vLLM reports whole 16-token blocks.
		if want := int64(mem.KVBytes/s.KVBytesPerToken()) / 16 * 16; mem.Hybrid != nil || mem.KVTokens != want {
			t.Errorf("Llama 3.1 8B: hybrid %v, %d tokens; want the bytes-per-token count in 16-token blocks, %d", mem.Hybrid != nil, mem.KVTokens, want)
		}
	})
	t.Run("tensor parallel splits both pages", func(t *testing.T) {
		s := setupFor(t, "rtx-3090", "qwen3.8-27b", "w4a16-g128", "fp8", "vllm", 0.94)
		s.GPUs, s.MaxModelLen = 2, 65536
		mem, err := s.Memory()
		if err != nil || mem.Hybrid == nil {
			t.Fatalf("no hybrid layout: %v", err)
		}
		// Halving both the recurrent state and the KV heads keeps the block at 1,568.
		if h := mem.Hybrid; h.MambaPageBytes != 3_207_168/2 || h.AttentionBytesPerToken != 1024 || h.BlockSize != 1568 {
			t.Errorf("TP=2: mamba page %d B, %d B per token, block %d; want %d, 1024, 1568", h.MambaPageBytes, h.AttentionBytesPerToken, h.BlockSize, 3_207_168/2)
		}
	})
}

// TestLinearStateBytes checks the recurrent state of one sequence, all 48 GDN layers:
// the conv window in BF16, the temporal state in FP32.
func TestLinearStateBytes(t *testing.T) {
	m := MustLoad()
	model, err := m.Model("qwen3.8-27b")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := model.LinearState.BytesPerSequence(), int64(48*(61_440+3_145_728)); got != want {
		t.Errorf("recurrent state per sequence %d B, want %d", got, want)
	}
}

// TestHybridMaxModelLen checks that the capacity is counted in requests of the plan's
// max_model_len, the model's context when the plan has none, and that a pool too small
// for one such request says vLLM would not start.
func TestHybridMaxModelLen(t *testing.T) {
	s := setupFor(t, "rtx-3090", "qwen3.8-27b", "w4a16-g128", "fp8", "vllm", 0.94)
	s.MaxNumSeqs = 53
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		maxLen     int64
		wantTokens int64 // 87 blocks / blocks per request × max_model_len
		wantRefuse bool
	}{
		{65536, 87 * 65536 / 48, false},
		{0, 87 * 262144 / (168 + 6), true}, // the model's context: 174 blocks per request, more than 87
	} {
		p := DefaultPlan()
		p.MaxModelLen = tc.maxLen
		run, err := s.PredictRun(p, now)
		if err != nil {
			t.Fatal(err)
		}
		if got := *run.Engine.KVCacheTokens; got != tc.wantTokens {
			t.Errorf("max_model_len %d: %d KV tokens, want %d", tc.maxLen, got, tc.wantTokens)
		}
		refuse := slices.ContainsFunc(run.Notes, func(n string) bool { return strings.Contains(n, "refuse to start") })
		if refuse != tc.wantRefuse {
			t.Errorf("max_model_len %d: note that vLLM refuses to start %v, want %v; notes %q", tc.maxLen, refuse, tc.wantRefuse, run.Notes)
		}
	}
}
