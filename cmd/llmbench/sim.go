package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/sim"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newSimCmd) }

func newSimCmd() *cobra.Command {
	var (
		addr        string
		preset      string
		speed       float64
		seed        uint64
		servedModel string
		gpu, model  string
		quant, kv   string
	)
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Run an emulated inference engine with vLLM's API (no GPU needed)",
		Long: simLong + presetHelp() + `
--speed divides every step's time: --speed 10 runs ten times faster than modelled.

Instead of a preset, --gpu, --model and --quant (and optionally --kv-dtype) emulate a
setup of the performance model's catalog (the same one "llmbench calc" predicts): its
KV cache, vLLM's defaults and the roofline's step times.`,
		Example: simExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var cfg sim.Config
			var err error
			if gpu != "" || model != "" || quant != "" || kv != "" {
				if cmd.Flags().Changed("preset") {
					return fmt.Errorf("--preset cannot be combined with --gpu/--model/--quant/--kv-dtype")
				}
				if gpu == "" || model == "" || quant == "" {
					return fmt.Errorf("emulating a catalog setup needs --gpu, --model and --quant (got %q, %q, %q)", gpu, model, quant)
				}
				cfg, err = sim.PerfConfig(gpu, model, quant, kv)
			} else {
				cfg, err = sim.PresetConfig(preset)
			}
			if err != nil {
				return err
			}
			cfg.Speed = speed
			if cmd.Flags().Changed("seed") {
				cfg.Seed = seed
			}
			if servedModel != "" {
				cfg.ServedModel = servedModel
			}
			ctx := cmd.Context()
			url, shutdown, err := sim.Serve(ctx, addr, cfg)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
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
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8000", "address to listen on")
	f.StringVar(&preset, "preset", sim.DefaultPreset, "engine preset: "+strings.Join(sim.PresetNames(), ", "))
	f.Float64Var(&speed, "speed", 1, "time scale: step times are divided by this")
	f.Uint64Var(&seed, "seed", 1, "seed for generated tokens and EOS draws")
	f.StringVar(&servedModel, "served-model", "", "model name to serve (default: the preset's)")
	f.StringVar(&gpu, "gpu", "", "emulate this catalog GPU (with --model and --quant) instead of a preset")
	f.StringVar(&model, "model", "", "catalog model to emulate (with --gpu)")
	f.StringVar(&quant, "quant", "", "catalog quantization to emulate (with --gpu)")
	f.StringVar(&kv, "kv-dtype", "", "KV cache dtype to emulate (with --gpu; default fp16)")
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
