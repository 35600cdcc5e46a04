package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/sim"
)

func init() { commands = append(commands, newSimCmd) }

func newSimCmd() *cobra.Command {
	var o sim.Options
	var addr string
	cmd := &cobra.Command{
		Use:     "sim",
		Short:   "Run an emulated inference engine with vLLM's API (no GPU needed)",
		Long:    simLong + sim.PresetHelp() + simLongSetup,
		Example: simExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.PresetSet, o.SeedSet = cmd.Flags().Changed("preset"), cmd.Flags().Changed("seed")
			cfg, err := o.Config()
			if err != nil {
				return err
			}
			return sim.Run(cmd.Context(), cmd.OutOrStdout(), addr, cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8000", "address to listen on")
	f.StringVar(&o.Preset, "preset", sim.DefaultPreset, "engine preset: "+strings.Join(sim.PresetNames(), ", "))
	f.Float64Var(&o.Speed, "speed", 1, "time scale: step times are divided by this")
	f.Uint64Var(&o.Seed, "seed", 1, "seed for generated tokens and EOS draws")
	f.StringVar(&o.ServedModel, "served-model", "", "model name to serve (default: the preset's)")
	f.StringVar(&o.GPU, "gpu", "", "emulate this catalog GPU (with --model and --quant) instead of a preset")
	f.StringVar(&o.Model, "model", "", "catalog model to emulate (with --gpu)")
	f.StringVar(&o.Quant, "quant", "", "catalog quantization to emulate (with --gpu)")
	f.StringVar(&o.KVDtype, "kv-dtype", "", "KV cache dtype to emulate (with --gpu; default fp16)")
	return cmd
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

const simLongSetup = `
--speed divides every step's time: --speed 10 runs ten times faster than modelled.

Instead of a preset, --gpu, --model and --quant (and optionally --kv-dtype) emulate a
setup of the performance model's catalog (the same one "llmbench calc" predicts): its
KV cache, vLLM's defaults and the roofline's step times.`

const simExample = `  llmbench sim                                       # the default preset on 127.0.0.1:8000
  llmbench sim --addr 127.0.0.1:9000 --preset tiny --speed 10
  llmbench sim --gpu rtx-3090 --model qwen3.8-27b --quant w4a16-g128 --kv-dtype fp8
  llmbench run --endpoint http://127.0.0.1:8000       # benchmark it from another shell`
