package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/calibrate"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
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
			ensureFileLimit(cmd.ErrOrStderr(), sysutil.FilesForStreams(streams, true))
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

// recordCeiling measures the client's ceiling before the first cell and writes it into
// the run document's client block, unless the document has one (a resumed run keeps
// the figure measured when it started) or skip says not to. It reports whether it
// changed the document. A measurement that fails leaves a note, not a failed run.
func recordCeiling(ctx context.Context, doc *rundoc.Run, skip bool, log func(string)) bool {
	if doc.Client == nil {
		doc.Client = &rundoc.Client{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	}
	cl := doc.Client
	switch {
	case cl.CeilingTokS != nil:
		log(fmt.Sprintf("this client reads up to %s tok/s on %d cores (measured when the run started)", report.FormatNumber("en", *cl.CeilingTokS, 0), cl.Cores))
		return false
	case skip:
		log("client ceiling not measured (--no-calibrate): no cell is checked against it")
		return false
	}
	log("timing how fast this client can read streams, a few seconds (--no-calibrate skips it)")
	c, err := calibrate.Measure(ctx, calibrate.Options{})
	if err != nil {
		if ctx.Err() != nil {
			return false // interrupted: the runner says so
		}
		doc.Notes = append(doc.Notes, "The client's ceiling could not be measured ("+err.Error()+"): no cell was checked against it.")
		log("warning: the client's ceiling could not be measured: " + err.Error())
		return true
	}
	c.Record(cl)
	// The ceiling bounds what the client can measure: said before the cells so that
	// a server near it is not mistaken for a slow one.
	log(fmt.Sprintf("this client reads up to %s tok/s on %d cores: a cell above %s tok/s would be flagged client_near_ceiling",
		report.FormatNumber("en", c.TokS, 0), c.Cores, report.FormatNumber("en", c.TokS*bench.NearCeiling, 0)))
	return true
}
