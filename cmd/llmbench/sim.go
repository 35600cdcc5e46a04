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
		Long:    strings.Replace(helpLong("sim"), "{{presets}}", sim.PresetHelp(), 1),
		Example: helpExamples("sim"),
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
	f.IntVar(&o.Reasoning, "reasoning", 0, "stream the first N tokens of every chat answer as reasoning_content (a reasoning model)")
	f.StringVar(&o.ServedModel, "served-model", "", "model name to serve (default: the preset's)")
	f.StringVar(&o.GPU, "gpu", "", "emulate this catalog GPU (with --model and --quant) instead of a preset")
	f.StringVar(&o.Model, "model", "", "catalog model to emulate (with --gpu)")
	f.StringVar(&o.Quant, "quant", "", "catalog quantization to emulate (with --gpu)")
	f.StringVar(&o.KVDtype, "kv-dtype", "", "KV cache dtype to emulate (with --gpu; default fp16)")
	return cmd
}
