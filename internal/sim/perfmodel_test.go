package sim

import (
	"errors"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/perf"
)

func TestPerfConfig(t *testing.T) {
	cfg, err := PerfConfig("rtx-3090", "qwen3.8-27b", "w4a16-g128", "fp8")
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config does not validate: %v", err)
	}
	pc, ok := cfg.Cost.(PerfCost)
	if !ok {
		t.Fatalf("cost model is %T, want PerfCost", cfg.Cost)
	}
	want, err := pc.Setup.KVCacheTokens()
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(cfg.KVCacheTokens()); got > want || want-got >= perfBlockSize {
		t.Errorf("emulated KV cache %d tokens, perf predicts %d", got, want)
	}
	if cfg.MaxModelLen > cfg.KVCacheTokens() {
		t.Errorf("max_model_len %d exceeds the KV cache %d", cfg.MaxModelLen, cfg.KVCacheTokens())
	}
	// One decode step at batch 1 runs at the predicted time between tokens.
	step := cfg.Cost.StepTime(Step{DecodeContexts: []int{1000}})
	predicted := time.Duration(pc.Setup.DecodeStepSeconds(1000, 1) * float64(time.Second))
	if step != predicted {
		t.Errorf("step %v, perf predicts %v", step, predicted)
	}
	// A prefill chunk of 2048 tokens takes longer than a decode step of 8, and
	// decoding 8 sequences takes less than 8 single steps (batching).
	prefill := cfg.Cost.StepTime(Step{PrefillChunks: []PrefillChunk{{Start: 0, Tokens: 2048}}})
	batch := cfg.Cost.StepTime(Step{DecodeContexts: []int{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}})
	if !(prefill > batch && batch < 8*step && batch > step) {
		t.Errorf("prefill %v, batch-8 decode %v, batch-1 decode %v: not the roofline's shape", prefill, batch, step)
	}
	if cfg.Cost.StepTime(Step{}) != 0 {
		t.Errorf("an empty step takes time")
	}
}

func TestPerfConfigErrors(t *testing.T) {
	var nf *perf.NotFoundError
	if _, err := PerfConfig("rtx-3091", "qwen3-32b", "awq", "fp8"); !errors.As(err, &nf) {
		t.Errorf("unknown GPU: err = %v, want a NotFoundError", err)
	}
	if _, err := PerfConfig("rtx-3090", "llama-3.1-70b", "bf16", "fp16"); !errors.Is(err, perf.ErrNoRoom) {
		t.Errorf("70B BF16 on one 24 GB GPU: err = %v, want ErrNoRoom", err)
	}
}

// TestPerfConfigHybridFits: a hybrid model whose full context does not fit gets the
// longest max_model_len that does, and a KV figure counted at that length.
func TestPerfConfigHybridFits(t *testing.T) {
	cfg, err := PerfConfig("rtx-3090", "qwen3.8-27b", "w4a16-g128", "fp8")
	if err != nil {
		t.Fatal(err)
	}
	// vLLM refuses more sequences than recurrent-state blocks; the emulator serves what
	// a user then sets, and its state blocks still fit that many sequences' states.
	if cfg.StateBlocksPerSeq == 0 || cfg.MaxNumSeqs > cfg.NumBlocks || cfg.MaxNumSeqs >= perfMaxNumSeqs {
		t.Errorf("hybrid emulation: %d state blocks per sequence, max_num_seqs %d, %d blocks; want state blocks and max_num_seqs lowered to at most the blocks", cfg.StateBlocksPerSeq, cfg.MaxNumSeqs, cfg.NumBlocks)
	}
	if cfg.MaxModelLen > cfg.KVCacheTokens() || cfg.MaxModelLen < cfg.KVCacheTokens()-perfBlockSize {
		t.Errorf("max_model_len %d with a %d-token cache: want the longest request that fits", cfg.MaxModelLen, cfg.KVCacheTokens())
	}
	if err := cfg.Validate(); err != nil {
		t.Error(err)
	}
}
