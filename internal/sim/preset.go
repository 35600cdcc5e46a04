package sim

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// DefaultPreset is the preset `llmbench sim` and the embedded default of `llmbench run`
// use: the seed page's RTX 3090 with a 27B INT4 model.
const DefaultPreset = "rtx3090-27b-int4"

// Version is the emulator's version, reported by /version.
const Version = "0.1.0"

// Config is everything that shapes one emulated engine.
type Config struct {
	// Preset names where the values came from ("custom" when hand-built).
	Preset string
	// ServedModel is the model id clients send and /v1/models lists.
	ServedModel string
	// Root is the model path /v1/models reports as root.
	Root string
	// NumBlocks × BlockSize is the KV cache, in tokens.
	NumBlocks int
	BlockSize int
	// StateBlocksPerSeq is how many blocks of the pool every running request holds
	// besides those of its tokens: a hybrid model's recurrent state under vLLM (2 per
	// Gated-DeltaNet layer group with prefix caching). 0 for a pure-attention model.
	StateBlocksPerSeq int
	// MaxNumSeqs is the most requests running (batched) at once; more wait.
	MaxNumSeqs int
	// MaxModelLen bounds prompt + output tokens of one request.
	MaxModelLen int
	// MaxBatchedTokens is the per-step token budget; longer prompts are prefilled in
	// chunks (vLLM's max_num_batched_tokens).
	MaxBatchedTokens int
	// PrefixCaching keeps freed full blocks findable by their hash.
	PrefixCaching bool
	// CacheDtype is reported in vllm:cache_config_info (it does not change the model).
	CacheDtype string
	// Cost gives each step's duration at Speed 1.
	Cost CostModel
	// Speed divides every step's duration: 10 runs ten times faster than modelled.
	Speed float64
	// Seed makes token choices and EOS draws reproducible.
	Seed uint64
	// EOSProbability is the chance that each generated token (past min_tokens) is EOS,
	// when the request does not set ignore_eos.
	EOSProbability float64
	// ReasoningTokens makes the emulator a reasoning model: the first this many tokens
	// of every streamed chat answer come as delta.reasoning_content (vLLM's reasoning
	// parser's field), the rest as content.
	ReasoningTokens int
}

// KVCacheTokens is the KV cache size in tokens as vLLM reports it: the blocks × their
// size, or for a hybrid model (StateBlocksPerSeq > 0) how many max_model_len requests
// the pool holds, in tokens (vLLM's kv_cache_size_tokens).
func (c Config) KVCacheTokens() int {
	if c.StateBlocksPerSeq > 0 && c.MaxModelLen > 0 {
		return int(int64(c.NumBlocks) * int64(c.MaxModelLen) / int64(c.blocksPerMaxRequest()))
	}
	return c.NumBlocks * c.BlockSize
}

// blocksPerMaxRequest is what one max_model_len request holds: its tokens' blocks and
// its recurrent state's.
func (c Config) blocksPerMaxRequest() int {
	return (c.MaxModelLen+c.BlockSize-1)/c.BlockSize + c.StateBlocksPerSeq
}

// Validate reports the first thing that would make an engine with c misbehave.
func (c Config) Validate() error {
	switch {
	case c.NumBlocks <= 0:
		return errors.New("KV cache needs at least one block")
	case c.BlockSize <= 0:
		return errors.New("block size must be positive")
	case c.MaxNumSeqs <= 0:
		return errors.New("max_num_seqs must be positive")
	case c.MaxModelLen <= 0:
		return errors.New("max_model_len must be positive")
	case c.StateBlocksPerSeq < 0:
		return errors.New("state blocks per sequence cannot be negative")
	case c.blocksPerMaxRequest() > c.NumBlocks:
		// vLLM refuses to start in this case too: one maximal request must fit.
		return fmt.Errorf("KV cache of %d blocks cannot hold one request of max_model_len %d (%d blocks)", c.NumBlocks, c.MaxModelLen, c.blocksPerMaxRequest())
	case c.MaxBatchedTokens <= 0:
		return errors.New("max_num_batched_tokens must be positive")
	case c.Cost == nil:
		return errors.New("no cost model")
	case !(c.Speed > 0):
		return fmt.Errorf("speed must be > 0, got %v", c.Speed)
	case c.EOSProbability < 0 || c.EOSProbability > 1:
		return fmt.Errorf("EOS probability must be in [0, 1], got %v", c.EOSProbability)
	case c.ServedModel == "":
		return errors.New("served model name is empty")
	}
	return nil
}

// rtx3090Cost is fitted to the seed page (RTX 3090, Qwen3.8-27B INT4, fp8 KV): see
// docs/sim.md for the fit and TestPresetMatchesSeed for its error.
var rtx3090Cost = Parametric{
	WeightsRead:           20906600 * time.Nanosecond,
	BatchLog:              1143400 * time.Nanosecond,
	KVReadPerToken:        35.830,
	ComputeTokensPerSec:   2263.38,
	AttentionPerTokenPair: 5.5961,
}

var presets = map[string]Config{
	DefaultPreset: {
		Preset:           DefaultPreset,
		ServedModel:      "bench",
		Root:             "llmbench-sim/qwen3.8-27b-int4",
		NumBlocks:        4500, // 72,000 tokens: fits 8 × 8K and 2 × (16K + 8K), not 16 × 8K
		BlockSize:        16,
		MaxNumSeqs:       53,
		MaxModelLen:      65536,
		MaxBatchedTokens: 2048,
		PrefixCaching:    true,
		CacheDtype:       "fp8",
		Cost:             rtx3090Cost,
		Speed:            1,
		Seed:             1,
		EOSProbability:   0.002,
	},
	// h100-8b-fp16: an 8B model in fp16 on one H100 80GB — not fitted to a measurement;
	// shaped from bandwidth (16 GB of weights at ~3 TB/s) and compute (~10K tok/s).
	"h100-8b-fp16": {
		Preset:           "h100-8b-fp16",
		ServedModel:      "bench",
		Root:             "llmbench-sim/llama-8b-fp16",
		NumBlocks:        28000, // 448,000 tokens
		BlockSize:        16,
		MaxNumSeqs:       256,
		MaxModelLen:      131072,
		MaxBatchedTokens: 8192,
		PrefixCaching:    true,
		CacheDtype:       "auto",
		Cost: Parametric{
			StepOverhead:          300 * time.Microsecond,
			WeightsRead:           5600 * time.Microsecond,
			BatchLog:              250 * time.Microsecond,
			KVReadPerToken:        43, // 128 KB of fp16 KV per token at ~3 TB/s
			ComputeTokensPerSec:   11000,
			AttentionPerTokenPair: 0.9,
		},
		Speed:          1,
		Seed:           1,
		EOSProbability: 0.002,
	},
	// tiny is for tests and demos: a small cache that fills fast and short steps.
	"tiny": {
		Preset:           "tiny",
		ServedModel:      "tiny",
		Root:             "llmbench-sim/tiny",
		NumBlocks:        64, // 1,024 tokens
		BlockSize:        16,
		MaxNumSeqs:       4,
		MaxModelLen:      512,
		MaxBatchedTokens: 128,
		PrefixCaching:    true,
		CacheDtype:       "auto",
		Cost: Parametric{
			WeightsRead:           2 * time.Millisecond,
			BatchLog:              200 * time.Microsecond,
			KVReadPerToken:        200,
			ComputeTokensPerSec:   20000,
			AttentionPerTokenPair: 10,
		},
		Speed:          1,
		Seed:           1,
		EOSProbability: 0.01,
	},
}

// PresetNames lists the presets, the default first.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		if n != DefaultPreset {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return append([]string{DefaultPreset}, names...)
}

// PresetConfig returns a copy of a preset's configuration.
func PresetConfig(name string) (Config, error) {
	c, ok := presets[name]
	if !ok {
		return Config{}, fmt.Errorf("unknown emulator preset %q (known: %v)", name, PresetNames())
	}
	return c, nil
}
