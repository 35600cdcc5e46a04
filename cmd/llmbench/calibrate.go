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
		Use:     "calibrate",
		Short:   "Measure this machine's client ceiling: how many tok/s llmbench itself can take in",
		Long:    helpLong("calibrate"),
		Example: helpExamples("calibrate"),
		Args:    cobra.NoArgs,
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
