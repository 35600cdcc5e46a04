package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/session"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/sysutil"
)

func init() { commands = append(commands, newRunCmd) }

// The seed page's plan, and the quick plan a new user sees in about a minute.
const (
	defaultContexts    = "0,16K,32K,56K"
	defaultConcurrency = "1,2,4,8,16,32,64,128"
	defaultPrefill     = "8K,16K,32K,56K"
	quickContexts      = "0,8K,16K"
	quickConcurrency   = "1,2,4,8,16"
	quickPrefill       = "4K,8K,16K"
	quickDuration      = 3 * time.Second
)

type runFlags struct {
	endpoint, model, apiKey, api    string
	contexts, concurrency, prefill  string
	duration                        time.Duration
	maxOutput                       int
	prefillMode                     string
	kvCapacity                      string
	out, resume, events             string
	seed                            int64
	quick                           bool
	preset                          string
	startTimeout                    time.Duration
	submitter, launchCommand, title string
	launch, hardware                string
	launchTimeout                   time.Duration
	format                          string
	noProgress                      bool
	repeat                          int
	fit                             bool
	dryRun                          bool
	settle, settleTimeout           time.Duration
	noCalibrate                     bool   // calibrate.go
	telemetry, telemetryToken       string // run_energy.go
	price                           string
	rate                            rateFlags
}

func newRunCmd() *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:     "run",
		Short:   "Measure the speed test matrix of an OpenAI-compatible server",
		Long:    runLong,
		Example: runExample,
		Args:    goodputArgs(&f.rate),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCleanly(func() error { return runRun(cmd, f) }, f, cmd.ErrOrStderr())
		},
	}
	addRunFlags(cmd.Flags(), f)
	f.rate.register(cmd)
	return cmd
}

const runLong = `Measure prefill (prompt tok/s and time to first token by context length) and
sustained decode (total tok/s for every context × concurrency cell) of an
OpenAI-compatible server, exactly as the seed page's "speed test matrix" does.

Cells that would not fit in the server's KV cache — concurrency × (context + max
output) > KV cache tokens, or context + max output > max_model_len — are marked
"Over capacity" and never sent. The KV cache size comes from the server (vLLM-style
/metrics, SGLang, llama.cpp, Ollama...) or from --kv-capacity.

With --rate (or --find-max-rate) it measures request rates instead of the matrix:
requests arrive on a seeded schedule (--arrival), every latency is timed from the
request's scheduled send time, and each cell reports TTFT, TPOT, ITL and E2E
percentiles, the achieved rate, saturation evidence and, with --slo, goodput.

Without --endpoint, llmbench starts its built-in emulated engine and measures it:
its numbers are emulated, not a GPU's, and every report says so.

Before the first cell it measures the client's own ceiling for a few seconds against
a zero-compute stream inside the process (as "llmbench calibrate" does; --no-calibrate
skips it, --resume keeps the first figure): a cell faster than half of it is flagged
client_near_ceiling, and every report shows the client headroom.

The run document (JSON) is written after every cell, so nothing is lost: Ctrl-C
stops cleanly and --resume FILE finishes the run later. Sizes take K = 1024.`

const runExample = `  # Try it: the built-in emulator, a small matrix in about a minute
  llmbench run --quick

  # A vLLM server, the seed page's full plan (about 30 s per cell)
  llmbench run --endpoint http://localhost:8000 --model my-model

  # A small matrix, 10 s per cell, completions API, KV size given by hand
  llmbench run --endpoint http://gpu-box:8080/v1 --contexts 0,8K --concurrency 1,4,16 \
      --prefill 8K --duration 10s --api completions --kv-capacity 120000

  # Power, J/token and $/Mtok: a local server is metered by nvidia-smi (or amd-smi, RAPL);
  # a server on another machine by the agent running there (llmbench telemetry --listen)
  llmbench run --endpoint http://localhost:8000 --price-per-hour 2.49
  llmbench run --endpoint http://gpu-box:8000 --telemetry http://gpu-box:9109 --telemetry-token TOKEN

  # A server with a small context (say max_model_len 4096): the default plan does not
  # fit it and run stops with the flags that would; --fit applies them
  llmbench run --endpoint http://localhost:8000 --fit

  # What a plan would measure and how long it takes, before starting it
  llmbench run --endpoint http://localhost:8000 --dry-run

  # Every cell three times, the plan run whole once per repeat: the median with a 95%
  # interval over the repeats, and "unstable" where the repeats disagree
  llmbench run --endpoint http://localhost:8000 --repeat 3

  # Finish an interrupted run
  llmbench run --resume qwen3-20261130-101500.json

  # Open loop: one cell per request rate, latencies timed from the scheduled send,
  # goodput against an SLO (see docs/run.md, "Request rates")
  llmbench run --endpoint http://localhost:8000 --rate 1,5,10 --slo ttft=500ms,tpot=50ms \
      --duration 60s --input-len 1024 --output-len 256

  # The highest rate at which 95% of requests meet the SLO
  llmbench run --endpoint http://localhost:8000 --find-max-rate --slo ttft=500ms,tpot=50ms

  # The emulator saturating, no GPU needed
  llmbench run --quick --rate 1,2,4,8`

// addRunFlags binds run's flags to f.
func addRunFlags(fl *pflag.FlagSet, f *runFlags) {
	fl.StringVar(&f.endpoint, "endpoint", "", "server root or its /v1 base URL; also --base-url or --target URL (default: $"+baseURLEnv+", else start the built-in emulator)")
	fl.StringVar(&f.model, "model", "", "model name to request (default: the first model /v1/models lists)")
	fl.StringVar(&f.apiKey, "api-key", "", "API key sent as a bearer token (default: $OPENAI_API_KEY)")
	fl.StringVar(&f.api, "api", "chat", "request API: chat or completions")
	fl.StringVar(&f.contexts, "contexts", defaultContexts, "decode rows: context lengths in tokens (K = 1024)")
	fl.StringVar(&f.concurrency, "concurrency", defaultConcurrency, "decode columns: simultaneous requests")
	fl.StringVar(&f.prefill, "prefill", defaultPrefill, "prefill rows: context lengths in tokens")
	fl.DurationVar(&f.duration, "duration", 30*time.Second, "measurement window of each decode cell")
	fl.IntVar(&f.maxOutput, "max-output", 8192, "max output tokens per request (also used by the over-capacity rule)")
	fl.StringVar(&f.prefillMode, "prefill-mode", "decode-warmup", "decode-warmup (prefill measured on each row's cold warm-up) or separate")
	fl.StringVar(&f.kvCapacity, "kv-capacity", "", "KV cache size in tokens, overriding what the server reports (e.g. 72000 or 70K)")
	fl.StringVarP(&f.out, "out", "o", "", "run document to write; also --output (default: <model>-<time>.json)")
	fl.StringVar(&f.resume, "resume", "", "finish the run in this document without redoing finished cells")
	fl.StringVar(&f.events, "events", "", "write every request's events (send, first token, each chunk, end, usage) to this NDJSON file")
	fl.Int64Var(&f.seed, "seed", 1, "seed of the prompt filler text")
	fl.BoolVar(&f.quick, "quick", false, "a small plan ("+quickContexts+" × "+quickConcurrency+", prefill "+quickPrefill+", 3 s cells): a whole matrix in about a minute")
	fl.StringVar(&f.preset, "preset", sim.DefaultPreset, "emulator preset when no --endpoint is given: "+strings.Join(sim.PresetNames(), ", "))
	fl.DurationVar(&f.startTimeout, "start-timeout", 5*time.Minute, "how long a cell waits for all its streams' first tokens")
	fl.StringVar(&f.submitter, "submitter", "", "who ran it, e.g. @name (shown on reports and the site)")
	fl.StringVar(&f.launchCommand, "launch-command", "", "how the server was started, recorded in the run document")
	fl.StringVar(&f.launch, "launch", "", "start the server with this shell command, wait until it is healthy, stop it at the end (needs --endpoint)")
	fl.DurationVar(&f.launchTimeout, "launch-timeout", 20*time.Minute, "how long --launch waits for the server to become healthy")
	fl.StringVar(&f.hardware, "hardware", "", "describe the server's machine from this YAML or JSON file (default: detect it when the server is on this machine)")
	fl.StringVar(&f.title, "title", "", "title (default: \"<model> on <GPU>\")")
	fl.StringVar(&f.format, "format", "text", "what to print at the end: text, md or none")
	fl.BoolVar(&f.noProgress, "no-progress", false, "print one line per cell instead of a live progress display")
	fl.IntVar(&f.repeat, "repeat", 1, "measure every decode cell and prefill row this many times, the whole plan once per repeat (interleaved, so drift shows): each cell publishes its median repeat with a 95% interval over the repeats and is flagged unstable when two repeats disagree beyond their intervals")
	fl.BoolVar(&f.dryRun, "dry-run", false, "probe the server and print the plan (measurements, over capacity, time), then stop: nothing is measured or written")
	fl.BoolVar(&f.fit, "fit", false, "shrink the plan to the server's limits (max output, contexts, prefill) when it does not fit them")
	fl.DurationVar(&f.settle, "settle", 2*time.Second, "after a cell, wait this long for the server to finish aborting its streams (when it has no running gauge to watch)")
	fl.DurationVar(&f.settleTimeout, "settle-timeout", time.Minute, "after a cell, wait at most this long for the server's running gauge to reach 0")
	fl.BoolVar(&f.noCalibrate, "no-calibrate", false, "do not measure the client's own ceiling before the first cell (a few seconds; the report then shows no client headroom)")
	addEnergyFlags(fl, f)
	fl.SetNormalizeFunc(aliasFlags)
}

// planFlags are the flags that define the plan; they cannot change on --resume.
var planFlags = append([]string{"contexts", "concurrency", "prefill", "duration", "max-output", "prefill-mode", "api", "seed", "quick", "kv-capacity", "fit", "repeat"}, rateFlagNames...)

func runRun(cmd *cobra.Command, f *runFlags) error {
	ctx := cmd.Context()
	s := &runSession{cmd: cmd, f: f, stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr()}
	defer s.close()
	if err := f.resolveEndpoint(s.stderr); err != nil {
		return err
	}
	if err := s.document(); err != nil {
		return err
	}
	if err := s.startServer(ctx); err != nil {
		return err
	}
	s.connect()
	if err := s.probe(ctx); err != nil {
		return err
	}
	if err := s.plan(ctx); err != nil {
		return err
	}
	if f.dryRun {
		printDryRun(s.stdout, s.doc, s.info, f.model)
		return nil
	}
	if f.out == "" {
		f.out = session.DefaultOutName(f.model, s.doc.CreatedAt)
	}
	if err := rundoc.WriteFile(f.out, s.doc); err != nil {
		return err
	}
	return s.finish(s.measure(ctx))
}

// ensureFileLimit raises the soft open-file limit to need (sysutil.FilesForStreams:
// every stream of the largest cell its connection, and a server in this process its
// side of it), and warns when even the hard limit is too low: those cells would fail
// with "too many open files".
func ensureFileLimit(stderr io.Writer, need uint64) {
	l, err := sysutil.RaiseFileLimit(need)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "warning: %v\n", err)
	case !l.Enough():
		fmt.Fprintf(stderr, "warning: %s\n", l)
	default:
		slog.Debug("open files", "limit", l.String())
	}
}

// newRunDocument builds a new run document's config from the flags.
func newRunDocument(cmd *cobra.Command, f *runFlags) (*rundoc.Run, error) {
	changed := cmd.Flags().Changed
	if f.rate.active() {
		if f.repeat != 1 {
			return nil, errors.New("--repeat measures the decode matrix and prefill rows; an open-loop run (--rate) gets its intervals from its requests")
		}
		return newRateDocument(cmd, f)
	}
	if f.quick {
		applyQuick(f, changed)
	}
	cfg, err := matrixConfig(f)
	if err != nil {
		return nil, err
	}
	if err := checkRequestFlags(f); err != nil {
		return nil, err
	}
	return newDocument(f, cfg), nil
}

// applyQuick is --quick's small plan, for the plan flags not given.
func applyQuick(f *runFlags, changed func(string) bool) {
	if !changed("contexts") {
		f.contexts = quickContexts
	}
	if !changed("concurrency") {
		f.concurrency = quickConcurrency
	}
	if !changed("prefill") {
		f.prefill = quickPrefill
	}
	if !changed("duration") {
		f.duration = quickDuration
	}
}

// matrixConfig is the closed-loop plan the flags ask for.
func matrixConfig(f *runFlags) (rundoc.Config, error) {
	var cfg rundoc.Config
	contexts, err := rundoc.ParseTokenList(f.contexts)
	if err != nil {
		return cfg, fmt.Errorf("--contexts: %w", err)
	}
	concurrency, err := rundoc.ParseIntList(f.concurrency)
	if err != nil {
		return cfg, fmt.Errorf("--concurrency: %w", err)
	}
	prefill, err := rundoc.ParseTokenList(f.prefill)
	if err != nil {
		return cfg, fmt.Errorf("--prefill: %w", err)
	}
	switch {
	case len(contexts) == 0 && len(prefill) == 0:
		return cfg, errors.New("nothing to measure: --contexts and --prefill are both empty")
	case len(contexts) > 0 && len(concurrency) == 0:
		return cfg, errors.New("--concurrency is empty")
	case f.duration < time.Second:
		return cfg, fmt.Errorf("--duration %s is too short: a window under a second measures noise", f.duration)
	case f.maxOutput < 1:
		return cfg, fmt.Errorf("--max-output must be at least 1")
	case f.repeat < 1 || f.repeat > 100:
		return cfg, fmt.Errorf("--repeat %d: give 1 to 100 measurements per cell", f.repeat)
	case f.prefillMode != "decode-warmup" && f.prefillMode != "separate":
		return cfg, fmt.Errorf("--prefill-mode %q: use decode-warmup or separate", f.prefillMode)
	}
	cfg = rundoc.Config{
		Contexts: contexts, Concurrency: concurrency, PrefillContexts: prefill,
		DurationS: f.duration.Seconds(), MaxOutputTokens: f.maxOutput,
		DecodeTest: "fixed-duration", PrefillMode: f.prefillMode,
	}
	if f.repeat > 1 {
		cfg.Repeat = f.repeat
	}
	if f.kvCapacity != "" {
		kv, err := rundoc.ParseTokens(f.kvCapacity)
		if err != nil || kv <= 0 {
			return cfg, fmt.Errorf("--kv-capacity %q: give a positive token count", f.kvCapacity)
		}
		v := int64(kv)
		cfg.KVCapacity = &v
	}
	return cfg, nil
}

// checkRequestFlags checks the flags both loops share.
func checkRequestFlags(f *runFlags) error {
	if f.api != "chat" && f.api != "completions" {
		return fmt.Errorf("--api %q: use chat or completions", f.api)
	}
	if f.format != "text" && f.format != "md" && f.format != "none" {
		return fmt.Errorf("--format %q: use text, md or none", f.format)
	}
	return nil
}

// newDocument is a new run document for cfg: its id, time, tool and client, and what
// the flags say of the run.
func newDocument(f *runFlags, cfg rundoc.Config) *rundoc.Run {
	now := time.Now().UTC().Truncate(time.Second)
	seed := f.seed
	cfg.API, cfg.Seed, cfg.Quick = f.api, &seed, f.quick
	return &rundoc.Run{
		SchemaVersion: rundoc.SchemaVersion,
		ID:            now.Format("20060102-150405") + "-" + randomHex(3),
		Submitter:     f.submitter,
		CreatedAt:     now,
		Tool:          rundoc.Tool{Name: "llmbench", Version: toolVersion()},
		LaunchCommand: f.launchCommand,
		Title:         f.title,
		Config:        cfg,
		Client:        &rundoc.Client{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()},
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func deref(s *string) string {
	if s == nil {
		return "(version unknown)"
	}
	return *s
}
