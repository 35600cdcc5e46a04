package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/calibrate"
	"github.com/llmbench/llmbench/internal/session"
	"github.com/llmbench/llmbench/internal/sysutil"
)

func init() { commands = append(commands, newCalibrateCmd) }

func newCalibrateCmd() *cobra.Command {
	var (
		streams  int
		duration time.Duration
		format   string
	)
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure this machine's client ceiling: how many tok/s llmbench itself can take in",
		Long: `calibrate measures how many streamed tokens per second llmbench's own client can
take in on this machine. It runs the same decode-cell code as "llmbench run" for a few
seconds against a zero-compute server inside this process (every stream gets a token
as fast as the client reads), takes the server's CPU time out of the process's, and
prints:

  ceiling    tokens per client CPU-second × the cores the client may use (GOMAXPROCS):
             the rate at which the client alone would keep those cores busy
  cores      the CPUs the client may use

A cell whose tok/s comes near this figure measures the client rather than the server.
The figure is an upper bound for a server on another machine; a server on this machine
shares the cores, and the client then has less.

"llmbench run" measures the same figure before its first cell (--no-calibrate skips it,
--resume keeps the one measured first), records it in the run document
(client.ceiling_tok_s, client.cores), flags every cell faster than half of it
client_near_ceiling, and every report shows the run's client headroom: the ceiling over
its fastest cell.`,
		Example: `  llmbench calibrate
  llmbench calibrate --streams 1024 --duration 5s
  llmbench calibrate --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return fmt.Errorf("--format %q: use text or json", format)
			}
			if streams < 1 {
				return fmt.Errorf("--streams must be at least 1")
			}
			session.EnsureFileLimit(cmd.ErrOrStderr(), sysutil.FilesForStreams(streams, true))
			c, err := calibrate.Measure(cmd.Context(), calibrate.Options{Streams: streams, Duration: duration})
			if err != nil {
				return fmt.Errorf("calibrating the client: %w", err)
			}
			return writeCeiling(cmd.OutOrStdout(), c, format)
		},
	}
	cmd.Flags().IntVar(&streams, "streams", 256, "concurrent streams")
	cmd.Flags().DurationVar(&duration, "duration", 3*time.Second, "measurement window")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

func writeCeiling(w io.Writer, c calibrate.Ceiling, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	}
	fmt.Fprintf(w, "client ceiling  %.0f tok/s\n", c.TokS)
	fmt.Fprintf(w, "cores           %d\n", c.Cores)
	fmt.Fprintf(w, "per CPU-second  %.0f tokens\n", c.TokPerCPUSecond)
	fmt.Fprintf(w, "measured        %d tokens in %.1f s over %d streams (%.0f tok/s read): client CPU %.2f s, in-process server %.2f s\n",
		c.Tokens, c.WindowS, c.Streams, c.ReadTokS, c.ClientCPUS, c.ServerCPUS)
	return nil
}
