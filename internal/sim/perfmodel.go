package sim

import (
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/perf"
)

// PerfCost is the GPU + model roofline of internal/perf as the emulator's cost model:
// each step's time is perf's prediction for the same prefill chunks and decode
// contexts, so an emulated engine runs at the speed calc predicts for that setup.
type PerfCost struct {
	Setup perf.Setup
}

// StepTime implements CostModel.
func (p PerfCost) StepTime(s Step) time.Duration {
	chunks := make([]perf.Chunk, len(s.PrefillChunks))
	for i, c := range s.PrefillChunks {
		chunks[i] = perf.Chunk{Start: c.Start, Tokens: c.Tokens}
	}
	return time.Duration(p.Setup.StepSeconds(chunks, s.DecodeContexts) * float64(time.Second))
}

// perfBlockSize is vLLM's default KV block size.
const perfBlockSize = 16

// perfMaxNumSeqs is vLLM's default max_num_seqs.
const perfMaxNumSeqs = 256

// PerfConfig builds an emulator configuration for a catalog setup — one GPU with
// vLLM's defaults (--gpu-memory-utilization 0.9, max_num_seqs 256, the chunked-prefill
// budget vLLM picks for that GPU): the KV cache perf predicts, in blocks of 16 tokens
// (a hybrid model: vLLM's own blocks, and its recurrent state's blocks held by every
// running request); max_model_len the model's context, capped to what the cache holds;
// step times from the roofline (PerfCost).
func PerfConfig(gpu, model, quant, kvDtype string) (Config, error) {
	c, err := perf.Load()
	if err != nil {
		return Config{}, err
	}
	var s perf.Setup
	if s.GPU, err = c.GPU(gpu); err != nil {
		return Config{}, err
	}
	if s.Model, err = c.Model(model); err != nil {
		return Config{}, err
	}
	if s.Quant, err = c.Quant(quant); err != nil {
		return Config{}, err
	}
	if kvDtype == "" {
		kvDtype = "fp16"
	}
	if s.KV, err = c.KVDtype(kvDtype); err != nil {
		return Config{}, err
	}
	if s.Engine, err = c.Engine("vllm"); err != nil {
		return Config{}, err
	}
	if s.Eff, err = c.Efficiency(s.Engine.Family(s.GPU.Vendor)); err != nil {
		return Config{}, err
	}
	s.GPUs, s.MemoryUtilization, s.MaxNumSeqs = 1, 0.9, perfMaxNumSeqs
	s.MaxModelLen = int64(s.Model.Context)
	mem, err := s.Memory()
	if err != nil {
		return Config{}, fmt.Errorf("emulating %s on %s: %w", s.Model.Name, s.GPU.Name, err)
	}
	if h := mem.Hybrid; h != nil && int64(s.MaxNumSeqs) > h.NumBlocks {
		// vLLM refuses a hybrid model more sequences than recurrent-state blocks and
		// says to lower max_num_seqs to the block count; do what a user then does. The
		// smaller sampler warm-up leaves more blocks, so the limit still holds.
		s.MaxNumSeqs = int(h.NumBlocks)
		if mem, err = s.Memory(); err != nil {
			return Config{}, fmt.Errorf("emulating %s on %s: %w", s.Model.Name, s.GPU.Name, err)
		}
	}
	// max_model_len is the model's context unless the cache cannot hold one such
	// request; then the longest that fits, as a user would set it.
	maxLen, blockSize, blocks, stateBlocks := s.Model.Context, perfBlockSize, int(mem.KVTokens/perfBlockSize), 0
	if h := mem.Hybrid; h != nil {
		// A hybrid model is laid out as vLLM lays it out: its blocks (one page per
		// layer group), the attention block size raised to hold a recurrent state, and
		// every running request holding its state's blocks besides its tokens'.
		blockSize, blocks = h.BlockSize, int(h.NumBlocks)
		stateBlocks = int(h.StateBlocksPerRequest)
		if h.AttentionGroups != 1 {
			return Config{}, fmt.Errorf("emulating %s: %d attention layer groups; the emulator models one", s.Model.Name, h.AttentionGroups)
		}
	}
	if room := (blocks - stateBlocks) * blockSize; maxLen <= 0 || maxLen > room {
		maxLen = room
	}
	if maxLen < 1 {
		return Config{}, fmt.Errorf("emulating %s on %s: the predicted KV cache (%d blocks of %d tokens) cannot hold one request", s.Model.Name, s.GPU.Name, blocks, blockSize)
	}
	// The setup the steps are timed with runs at the max_model_len the emulator serves
	// (for a hybrid model perf's reported capacity depends on it).
	s.MaxModelLen = int64(maxLen)
	cfg := Config{
		Preset:            fmt.Sprintf("perf:%s/%s/%s/%s", s.GPU.ID, s.Model.ID, s.Quant.ID, s.KV.ID),
		ServedModel:       s.Model.ID,
		Root:              "llmbench-sim/" + s.Model.ID + "-" + s.Quant.ID,
		NumBlocks:         blocks,
		BlockSize:         blockSize,
		StateBlocksPerSeq: stateBlocks,
		MaxNumSeqs:        s.MaxNumSeqs,
		MaxModelLen:       maxLen,
		MaxBatchedTokens:  s.ChunkFor(),
		PrefixCaching:     true,
		CacheDtype:        s.KV.ID,
		Cost:              PerfCost{Setup: s},
		Speed:             1,
		Seed:              1,
		EOSProbability:    0.002,
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, fmt.Errorf("emulating %s on %s: %w", s.Model.Name, s.GPU.Name, err)
	}
	return cfg, nil
}
