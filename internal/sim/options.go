package sim

import (
	"fmt"
	"strings"
)

// Options are what "llmbench sim" is asked for: a preset, or a setup of the
// performance model's catalog (GPU, Model, Quant, KVDtype), and what overrides either.
type Options struct {
	Preset, ServedModel        string
	Speed                      float64
	Reasoning                  int // ReasoningTokens
	Seed                       uint64
	GPU, Model, Quant, KVDtype string
	PresetSet, SeedSet         bool // --preset and --seed were given
}

// Config is the emulator the options describe. A catalog setup cannot be combined
// with a preset that was asked for, and needs its GPU, model and quantization.
func (o Options) Config() (Config, error) {
	var cfg Config
	var err error
	if o.GPU != "" || o.Model != "" || o.Quant != "" || o.KVDtype != "" {
		if o.PresetSet {
			return cfg, fmt.Errorf("--preset cannot be combined with --gpu/--model/--quant/--kv-dtype")
		}
		if o.GPU == "" || o.Model == "" || o.Quant == "" {
			return cfg, fmt.Errorf("emulating a catalog setup needs --gpu, --model and --quant (got %q, %q, %q)", o.GPU, o.Model, o.Quant)
		}
		cfg, err = PerfConfig(o.GPU, o.Model, o.Quant, o.KVDtype)
	} else {
		cfg, err = PresetConfig(o.Preset)
	}
	if err != nil {
		return cfg, err
	}
	cfg.Speed = o.Speed
	if o.Reasoning < 0 {
		return cfg, fmt.Errorf("--reasoning %d: a number of tokens, 0 or more", o.Reasoning)
	}
	cfg.ReasoningTokens = o.Reasoning
	if o.SeedSet {
		cfg.Seed = o.Seed
	}
	if o.ServedModel != "" {
		cfg.ServedModel = o.ServedModel
	}
	return cfg, nil
}

// PresetHelp lists every preset with its KV cache, limits and model, a line each, for
// the command's help.
func PresetHelp() string {
	var b strings.Builder
	for _, name := range PresetNames() {
		c, err := PresetConfig(name)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "  %-18s KV %d tokens, max_num_seqs %d, max_model_len %d, model %q\n",
			name, c.KVCacheTokens(), c.MaxNumSeqs, c.MaxModelLen, c.ServedModel)
	}
	return b.String()
}
