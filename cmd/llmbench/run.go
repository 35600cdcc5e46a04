package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/progress"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/session"
	"github.com/llmbench/llmbench/internal/sim"
)

func init() { commands = append(commands, newRunCmd) }

func newRunCmd() *cobra.Command {
	c := &session.Config{}
	var noProgress bool
	var targets capacityFlag
	cmd := &cobra.Command{
		Use:     "run",
		Short:   "Measure the speed test matrix of an OpenAI-compatible server",
		Long:    helpLong("run"),
		Example: helpExamples("run"),
		Args:    goodputArgs(&c.Rate),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRun(cmd, c, noProgress, targets.targets())
		},
	}
	addRunFlags(cmd.Flags(), c, &noProgress)
	addCapacityFlag(cmd.Flags(), &targets)
	addRateFlags(cmd.Flags(), &c.Rate)
	addWorkloadFlags(cmd.Flags(), &c.Workload)
	return cmd
}

// addRunFlags binds run's flags to the session's config.
func addRunFlags(fl *pflag.FlagSet, c *session.Config, noProgress *bool) {
	fl.StringVar(&c.Endpoint, "endpoint", "", "server root or its /v1 base URL; also --base-url or --target URL (default: $"+baseURLEnv+", else start the built-in emulator)")
	fl.StringVar(&c.Model, "model", "", "model name to request (default: the first model /v1/models lists)")
	fl.StringVar(&c.APIKey, "api-key", "", "API key sent as a bearer token (default: $OPENAI_API_KEY)")
	fl.StringVar(&c.API, "api", "chat", "request API: chat or completions")
	fl.StringVar(&c.Contexts, "contexts", defaultContexts, "decode rows: context lengths in tokens (K = 1024)")
	fl.StringVar(&c.Concurrency, "concurrency", defaultConcurrency, "decode columns: simultaneous requests")
	fl.StringVar(&c.Prefill, "prefill", defaultPrefill, "prefill rows: context lengths in tokens")
	fl.DurationVar(&c.Duration, "duration", defaultDuration, "measurement window of each decode cell")
	fl.IntVar(&c.MaxOutput, "max-output", seedPlan.MaxOutputTokens, "max output tokens per request (also used by the over-capacity rule)")
	fl.StringVar(&c.PrefillMode, "prefill-mode", "decode-warmup", "decode-warmup (prefill measured on each row's cold warm-up) or separate")
	fl.StringVar(&c.KVCapacity, "kv-capacity", "", "KV cache size in tokens, overriding what the server reports (e.g. 72000 or 70K)")
	fl.StringVarP(&c.Out, "out", "o", "", "run document to write; also --output (default: <model>-<time>.json)")
	fl.StringVar(&c.Resume, "resume", "", "finish the run in this document without redoing finished cells")
	fl.StringVar(&c.Events, "events", "", "write every request's events (send, first token, each chunk, end, usage) to this NDJSON file")
	fl.Int64Var(&c.Seed, "seed", 1, "seed of the prompt filler text")
	fl.BoolVar(&c.Quick, "quick", false, "a small plan ("+session.QuickContexts+" × "+session.QuickConcurrency+", prefill "+session.QuickPrefill+", 3 s cells): a whole matrix in about a minute")
	fl.StringVar(&c.Preset, "preset", sim.DefaultPreset, "emulator preset when no --endpoint is given: "+strings.Join(sim.PresetNames(), ", "))
	fl.DurationVar(&c.StartTimeout, "start-timeout", 5*time.Minute, "how long a cell waits for all its streams' first tokens")
	fl.StringVar(&c.Submitter, "submitter", "", "who ran it, e.g. @name (shown on reports and the site)")
	fl.StringVar(&c.LaunchCommand, "launch-command", "", "how the server was started, recorded in the run document")
	fl.StringVar(&c.Launch, "launch", "", "start the server with this shell command, wait until it is healthy, stop it at the end (needs --endpoint)")
	fl.DurationVar(&c.LaunchTimeout, "launch-timeout", 20*time.Minute, "how long --launch waits for the server to become healthy")
	fl.StringVar(&c.Hardware, "hardware", "", "describe the server's machine from this YAML or JSON file (default: detect it when the server is on this machine)")
	fl.StringVar(&c.Title, "title", "", "title (default: \"<model> on <GPU>\")")
	fl.StringVar(&c.Format, "format", "text", "what to print at the end: text, md or none")
	fl.BoolVar(noProgress, "no-progress", false, "print one line per cell instead of a live progress display")
	fl.IntVar(&c.Repeat, "repeat", 1, "measure every decode cell and prefill row this many times, the whole plan once per repeat (interleaved, so drift shows): each cell publishes its median repeat with a 95% interval over the repeats and is flagged unstable when two repeats disagree beyond their intervals")
	fl.BoolVar(&c.DryRun, "dry-run", false, "probe the server and print the plan (measurements, over capacity, time), then stop: nothing is measured or written")
	fl.BoolVar(&c.Fit, "fit", false, "shrink the plan to the server's limits (max output, contexts, prefill) when it does not fit them")
	fl.DurationVar(&c.Settle, "settle", 2*time.Second, "after a cell, wait this long for the server to finish aborting its streams (when it has no running gauge to watch)")
	fl.DurationVar(&c.SettleTimeout, "settle-timeout", time.Minute, "after a cell, wait at most this long for the server's running gauge to reach 0")
	fl.DurationVar(&c.Timeslice, "timeslice", time.Second, "record every cell's series (tok/s, streams producing, TTFT) in slices of this length")
	fl.BoolVar(&c.NoCalibrate, "no-calibrate", false, "do not measure the client's own ceiling before the first cell (a few seconds; the report then shows no client headroom)")
	addEnergyFlags(fl, c)
	fl.SetNormalizeFunc(aliasFlags)
}

// runRun is llmbench run: the session the flags describe, opened, then its plan
// printed (--dry-run) or measured, and how the measurement ended.
func runRun(cmd *cobra.Command, c *session.Config, noProgress bool, targets capacity.Targets) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := c.ResolveEndpoint(stderr); err != nil {
		return err
	}
	if err := c.Given(cmd.Flags().Changed); err != nil {
		return err
	}
	c.ToolVersion = toolVersion()
	display := progress.New(stdout, stderr, noProgress)
	defer display.Close()
	s, err := session.Open(cmd.Context(), *c, display)
	if err != nil {
		return err
	}
	defer s.Close()
	if c.DryRun {
		fmt.Fprint(stdout, s.DryRun())
		return nil
	}
	err = s.Run(cmd.Context())
	display.Close()
	return finish(stdout, stderr, s, report.Options{Format: c.Format, Capacity: targets, CapacityLast: true}, err)
}

// finish says how the measurement ended: the hint to resume after Ctrl-C, or the
// report, the next commands and, last, how many users the server serves.
func finish(stdout, stderr io.Writer, s *session.Session, opts report.Options, runErr error) error {
	switch {
	case errors.Is(runErr, measure.ErrInterrupted):
		fmt.Fprintf(stderr, "\nInterrupted. Every finished cell is saved in %s; finish the run with:\n  %s\n", s.Out(), s.ResumeHint())
		return &exitError{code: 130, err: errors.New("interrupted")}
	case runErr != nil:
		return runErr
	}
	if opts.Format != "none" {
		fmt.Fprintln(stdout)
		opts.Width = report.TerminalWidth(os.Stdout)
		if err := report.Write(stdout, s.Doc(), opts); err != nil {
			return err
		}
	}
	fmt.Fprint(stdout, session.NextSteps(s.Out()))
	return report.WriteCapacity(stdout, s.Doc(), opts)
}
