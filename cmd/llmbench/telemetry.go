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
		Use:   "telemetry",
		Short: "Serve this machine's power telemetry to a run measuring it from elsewhere",
		Long: `telemetry runs on the machine of an inference server that llmbench measures from
another machine. It samples this machine's power (nvidia-smi, amd-smi, RAPL or
powermetrics, 5 times a second) and serves the samples over HTTP to
"llmbench run --telemetry http://HOST:PORT", which asks for each measurement
window after it closes. Every request needs the token (Authorization: Bearer);
one is made up and printed unless --token or $LLMBENCH_TELEMETRY_TOKEN gives it.
The two machines' clocks are aligned by exchanging timestamps before every window,
so they need not agree. Stop it with Ctrl-C.`,
		Example: `  # On the GPU server:
  llmbench telemetry --listen :9109
  # On the measuring machine, with the token it printed:
  llmbench run --endpoint http://gpu-box:8000 --telemetry http://gpu-box:9109 --telemetry-token TOKEN`,
		Args: cobra.NoArgs,
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
