package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/hw"
)

func init() { commands = append(commands, newTelemetryCmd) }

func newTelemetryCmd() *cobra.Command {
	var c hw.AgentConfig
	cmd := &cobra.Command{
		Use:     "telemetry",
		Short:   "Serve this machine's power telemetry to a run measuring it from elsewhere",
		Long:    helpLong("telemetry"),
		Example: helpExamples("telemetry"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			run := c
			if run.Token == "" {
				run.Token = os.Getenv("LLMBENCH_TELEMETRY_TOKEN")
			}
			return hw.ServeAgent(cmd.Context(), cmd.OutOrStdout(), run)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&c.Listen, "listen", "", "address to serve on, e.g. :9109 or 10.0.0.5:9109 (required)")
	fl.StringVar(&c.Token, "token", "", "the token runs must send (default: $LLMBENCH_TELEMETRY_TOKEN, else a random one, printed)")
	fl.StringVar(&c.Source, "source", "auto", "what to sample: auto, nvidia-smi, amd-smi, rapl or powermetrics")
	fl.DurationVar(&c.Interval, "interval", hw.DefaultInterval, "sampling interval")
	return cmd
}
