package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/sim"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newSimCmd) }

func newSimCmd() *cobra.Command {
	var o simFlags
	cmd := &cobra.Command{
		Use:     "sim",
		Short:   "Run an emulated inference engine with vLLM's API (no GPU needed)",
		Long:    simLong + presetHelp() + simLongSetup,
		Example: simExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := o.config(cmd.Flags().Changed("preset"), cmd.Flags().Changed("seed"))
			if err != nil {
				return err
			}
			return runSim(cmd.Context(), cmd.OutOrStdout(), o.addr, cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:8000", "address to listen on")
	f.StringVar(&o.preset, "preset", sim.DefaultPreset, "engine preset: "+strings.Join(sim.PresetNames(), ", "))
	f.Float64Var(&o.speed, "speed", 1, "time scale: step times are divided by this")
	f.Uint64Var(&o.seed, "seed", 1, "seed for generated tokens and EOS draws")
	f.StringVar(&o.servedModel, "served-model", "", "model name to serve (default: the preset's)")
	f.StringVar(&o.gpu, "gpu", "", "emulate this catalog GPU (with --model and --quant) instead of a preset")
	f.StringVar(&o.model, "model", "", "catalog model to emulate (with --gpu)")
	f.StringVar(&o.quant, "quant", "", "catalog quantization to emulate (with --gpu)")
	f.StringVar(&o.kv, "kv-dtype", "", "KV cache dtype to emulate (with --gpu; default fp16)")
	return cmd
}

const simLongSetup = `
--speed divides every step's time: --speed 10 runs ten times faster than modelled.

Instead of a preset, --gpu, --model and --quant (and optionally --kv-dtype) emulate a
setup of the performance model's catalog (the same one "llmbench calc" predicts): its
KV cache, vLLM's defaults and the roofline's step times.`

type simFlags struct {
	addr, preset, servedModel string
	speed                     float64
	seed                      uint64
	gpu, model, quant, kv     string
}

// config is the emulator the flags describe: a preset, or a catalog setup (which
// cannot be combined with --preset). seedSet says --seed was given.
func (o simFlags) config(presetSet, seedSet bool) (sim.Config, error) {
	var cfg sim.Config
	var err error
	if o.gpu != "" || o.model != "" || o.quant != "" || o.kv != "" {
		if presetSet {
			return cfg, fmt.Errorf("--preset cannot be combined with --gpu/--model/--quant/--kv-dtype")
		}
		if o.gpu == "" || o.model == "" || o.quant == "" {
			return cfg, fmt.Errorf("emulating a catalog setup needs --gpu, --model and --quant (got %q, %q, %q)", o.gpu, o.model, o.quant)
		}
		cfg, err = sim.PerfConfig(o.gpu, o.model, o.quant, o.kv)
	} else {
		cfg, err = sim.PresetConfig(o.preset)
	}
	if err != nil {
		return cfg, err
	}
	cfg.Speed = o.speed
	if seedSet {
		cfg.Seed = o.seed
	}
	if o.servedModel != "" {
		cfg.ServedModel = o.servedModel
	}
	return cfg, nil
}

// runSim serves the emulator until ctx ends, then stops it.
func runSim(ctx context.Context, out io.Writer, addr string, cfg sim.Config) error {
	url, shutdown, err := sim.Serve(ctx, addr, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "llmbench sim %s: emulated engine %q serving model %q at %s/v1\n", sim.Version, cfg.Preset, cfg.ServedModel, url)
	fmt.Fprintf(out, "  KV cache %d tokens (%d blocks × %d), max_num_seqs %d, max_model_len %d, chunk budget %d tokens/step, prefix caching %v, speed ×%g\n",
		cfg.KVCacheTokens(), cfg.NumBlocks, cfg.BlockSize, cfg.MaxNumSeqs, cfg.MaxModelLen, cfg.MaxBatchedTokens, cfg.PrefixCaching, cfg.Speed)
	fmt.Fprintln(out, "  Ctrl-C to stop")
	<-ctx.Done()
	stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := shutdown(stopCtx); err != nil {
		return fmt.Errorf("stopping the emulator: %w", err)
	}
	fmt.Fprintln(out, "llmbench sim: stopped")
	return nil
}

const simLong = `sim serves an emulated continuous-batching engine on an OpenAI-compatible,
vLLM-flavoured HTTP API: /v1/chat/completions, /v1/completions (streaming or not),
/v1/models, /tokenize, /detokenize, /health, /version and /metrics with vLLM's metric
names. It has a finite paged KV cache (blocks of 16 tokens), a prefix cache, chunked
prefill, a waiting queue beyond max_num_seqs and preemption, and it emits tokens at the
rate its cost model gives for what is in each step. Every whitespace-separated word is
one token; see docs/sim.md.

Presets (--preset):
`

const simExample = `  llmbench sim                                       # the default preset on 127.0.0.1:8000
  llmbench sim --addr 127.0.0.1:9000 --preset tiny --speed 10
  llmbench sim --gpu rtx-3090 --model qwen3.8-27b --quant w4a16-g128 --kv-dtype fp8
  llmbench run --endpoint http://127.0.0.1:8000       # benchmark it from another shell`

func presetHelp() string {
	var b strings.Builder
	for _, name := range sim.PresetNames() {
		c, err := sim.PresetConfig(name)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "  %-18s KV %d tokens, max_num_seqs %d, max_model_len %d, model %q\n",
			name, c.KVCacheTokens(), c.MaxNumSeqs, c.MaxModelLen, c.ServedModel)
	}
	return b.String()
}
