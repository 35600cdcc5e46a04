package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/calibrate"
	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/hw"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/report"
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
	settle, drainTimeout            time.Duration
	noCalibrate                     bool   // calibrate.go
	telemetry, telemetryToken       string // run_energy.go
	price                           string
	rate                            rateFlags
}

func newRunCmd() *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Measure the speed test matrix of an OpenAI-compatible server",
		Long: `Measure prefill (prompt tok/s and time to first token by context length) and
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
stops cleanly and --resume FILE finishes the run later. Sizes take K = 1024.`,
		Example: `  # Try it: the built-in emulator, a small matrix in about a minute
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
  llmbench run --quick --rate 1,2,4,8`,
		Args: goodputArgs(&f.rate),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCleanly(func() error { return runRun(cmd, f) }, f, cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
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
	fl.DurationVar(&f.drainTimeout, "settle-timeout", time.Minute, "after a cell, wait at most this long for the server's running gauge to reach 0")
	fl.BoolVar(&f.noCalibrate, "no-calibrate", false, "do not measure the client's own ceiling before the first cell (a few seconds; the report then shows no client headroom)")
	addEnergyFlags(fl, f)
	f.rate.register(cmd)
	fl.SetNormalizeFunc(aliasFlags)
	return cmd
}

// planFlags are the flags that define the plan; they cannot change on --resume.
var planFlags = append([]string{"contexts", "concurrency", "prefill", "duration", "max-output", "prefill-mode", "api", "seed", "quick", "kv-capacity", "fit", "repeat"}, rateFlagNames...)

func runRun(cmd *cobra.Command, f *runFlags) error {
	ctx := cmd.Context()
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := f.resolveEndpoint(stderr); err != nil {
		return err
	}

	var doc *bench.Run
	var err error
	if f.resume != "" {
		for _, name := range planFlags {
			if cmd.Flags().Changed(name) && !(name == "target" && f.rate.targetURL != "") {
				return fmt.Errorf("--%s cannot be combined with --resume: the plan comes from %s", name, f.resume)
			}
		}
		if doc, err = bench.ReadFile(f.resume); err != nil {
			return err
		}
		if f.out == "" {
			f.out = f.resume
		}
		if err := resumeTarget(cmd, f, doc); err != nil {
			return err
		}
	} else {
		if err := checkRateFlags(cmd, &f.rate); err != nil {
			return err
		}
		if doc, err = newRunDocument(cmd, f); err != nil {
			return err
		}
	}
	apiKeyFlag := f.apiKey != ""
	if f.apiKey == "" {
		f.apiKey = os.Getenv("OPENAI_API_KEY")
	}

	// The server: the user's, or the built-in emulator.
	emulated := f.endpoint == ""
	if emulated {
		base, shutdown, err := sim.StartLocal(ctx, f.preset, 1)
		if err != nil {
			return fmt.Errorf("starting the built-in emulator: %w", err)
		}
		defer shutdown(context.Background())
		verb := "measuring"
		if f.dryRun {
			verb = "planning for"
		}
		fmt.Fprintf(stdout, "No --endpoint given (nor $%s): %s llmbench's built-in emulated engine (preset %s) at %s. Its numbers are emulated, not a GPU's.\n", baseURLEnv, verb, f.preset, base)
		if c, err := sim.PresetConfig(f.preset); err == nil && f.model == "" {
			fmt.Fprintf(stdout, "The emulator serves one model, named %q: the run and its document are named after it.\n", c.ServedModel)
		}
		f.endpoint = base
	}
	base, err := serverBase(f.endpoint, stderr)
	if err != nil {
		return err
	}
	var preLaunchPIDs []int
	if f.launch != "" {
		if emulated {
			return errors.New("--launch needs --endpoint: the URL the launched server will answer on")
		}
		preLaunchPIDs = gpuPIDsBeforeLaunch(ctx, f)
		fmt.Fprintf(stderr, "Launching: %s\n(waiting up to %s for %s to be healthy)\n", f.launch, f.launchTimeout, base)
		logf, err := os.CreateTemp("", "llmbench-launch-*.log")
		if err != nil {
			return fmt.Errorf("creating the launch log: %w", err)
		}
		defer logf.Close()
		launched, err := engine.Launch(ctx, f.launch, base, f.launchTimeout, logf)
		if err != nil {
			return fmt.Errorf("launching the server (log: %s): %w", logf.Name(), err)
		}
		defer launched.Stop(context.Background())
		if f.resume == "" {
			doc.LaunchCommand = f.launch
			if launched.Image != "" && doc.Engine.Build == "" {
				doc.Engine.Build = launched.Image
			}
		}
	}
	maxConc := slices.Max(append([]int{1}, doc.Config.Concurrency...))
	if doc.Config.Rate != nil {
		// Open loop: as many requests in flight as the schedule and the server make.
		maxConc = max(1024, doc.Config.Rate.MaxConcurrency)
	}
	need := sysutil.FilesForStreams(maxConc, emulated)
	if !f.noCalibrate {
		need = max(need, sysutil.FilesForStreams(calibrate.DefaultStreams, true))
	}
	ensureFileLimit(stderr, need)
	client := openai.NewClient(base+"/v1", f.apiKey, maxConc)

	// Discovery and metrics requests carry the API key too.
	discovery := engine.WithAPIKey(client.HTTP, f.apiKey)
	probeCtx, cancel := context.WithTimeout(ctx, time.Minute)
	info, err := engine.Probe(probeCtx, discovery, base)
	cancel()
	if err != nil {
		return explainServerError(fmt.Errorf("probing %s: %w", base, err), base, f.apiKey != "")
	}
	if f.model == "" {
		if info.ServedModel == nil {
			return fmt.Errorf("%s lists no model on /v1/models: name one with --model", base)
		}
		f.model = *info.ServedModel
	} else if len(info.Models) > 0 && !slices.Contains(info.Models, f.model) {
		// Ollama lists "llama3:latest" and answers to "llama3" too.
		if !slices.Contains(info.Models, f.model+":latest") {
			return fmt.Errorf("model %q is not served by %s; it serves: %s", f.model, base, strings.Join(info.Models, ", "))
		}
	}

	if f.resume != "" {
		if err := sameServer(doc, info, base); err != nil {
			return err
		}
		if !emulated {
			recordEndpoint(doc, base)
		}
	}
	if f.resume == "" {
		fillFromProbe(doc, info, f.model, emulated, base)
		kv := doc.Config.KVCapacity
		doc.Capacity = &bench.Capacity{KVCacheTokens: kv, MaxModelLen: info.MaxModelLen, Source: "flag"}
		if kv == nil {
			kv = info.KVCacheTokens
			doc.Capacity.KVCacheTokens, doc.Capacity.Source = kv, "server"
		}
		if kv == nil {
			doc.Capacity.Source = "unknown"
			doc.Notes = append(doc.Notes, "The server's KV cache size is unknown (give it with --kv-capacity): every cell was run.")
			fmt.Fprintln(stderr, "warning: the server's KV cache size is unknown, so no cell is skipped as over capacity; give it with --kv-capacity")
		} else if doc.Config.KVCapacity == nil && info.KVCacheTokensIfSplit != nil {
			doc.Notes = append(doc.Notes, fmt.Sprintf("llama.cpp does not say whether its KV cache is unified: the plan took the smaller size, %d tokens; a cache split per slot holds %d (--kv-capacity %d).", *kv, *info.KVCacheTokensIfSplit, *info.KVCacheTokensIfSplit))
		}
		if doc.Config.Rate != nil {
			if err := notePlanLimits(doc, info.MaxModelLen); err != nil {
				return err
			}
			bench.PlanRates(doc)
		} else if err := planToFit(doc, kv, info.MaxModelLen, f.fit, stderr); err != nil {
			return err
		}
		if err := describeHardware(ctx, doc, f.hardware, base, doc.Status == bench.RunEmulated); err != nil {
			return err
		}
		fillTitle(doc, f.model)
	}
	if f.dryRun {
		printDryRun(stdout, doc, info, f.model)
		return nil
	}
	if f.out == "" {
		f.out = defaultOutName(f.model, doc.CreatedAt)
	}
	if err := bench.WriteFile(f.out, doc); err != nil {
		return err
	}

	srv := &bench.Server{
		Client: client, Model: f.model, API: prompt.API(doc.Config.API),
		// Sent unless the server is known not to take it (harmless where unknown)...
		IgnoreEOS: info.IgnoreEOS == nil || *info.IgnoreEOS,
		// ...but an early end invalidates a cell only where it is known to work.
		IgnoreEOSKnown: info.IgnoreEOS != nil && *info.IgnoreEOS,
		// Per-chunk counts are asked for wherever the server may give them: where it is
		// unknown, the run's first request shows whether it refuses the field.
		ContinuousUsage: info.ChunkUsage == nil || *info.ChunkUsage,
		TimingsPerToken: info.TimingsPerToken != nil && *info.TimingsPerToken,
		Local:           isLocal(base),
	}
	counting := prompt.NewCounting(client, f.model, srv.API, tokenizeRoute(info, base))
	srv.Counter, srv.Exact, srv.Tokenizer = counting.Counter, counting.Exact, counting.Tokenizer
	srv.TextTokenizer = counting.TextTokenizer

	var events *bench.EventLog
	if f.events != "" {
		ef, err := os.OpenFile(f.events, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("opening events log: %w", err)
		}
		defer ef.Close()
		events = bench.NewEventLog(ef)
		defer events.Flush()
	}

	meter, err := setupEnergy(ctx, stderr, f, doc, base, preLaunchPIDs)
	if err != nil {
		return err
	}
	defer meter.close()
	if err := bench.WriteFile(f.out, doc); err != nil {
		return err
	}

	progress := newProgress(stderr, f.noProgress)
	defer progress.Close()
	runner := &bench.Runner{Server: srv, Opts: bench.Options{
		StartTimeout: f.startTimeout,
		Events:       events,
		Progress:     progress,
		Nonce:        doc.ID + "-" + randomHex(4),
		Telemetry:    meter.telemetry(),
		Price:        doc.Energy.PriceOrNil(),
		Checkpoint: func(r *bench.Run) error {
			if err := events.Flush(); err != nil {
				return fmt.Errorf("writing events log: %w", err)
			}
			return bench.WriteFile(f.out, r)
		},
		NewMonitor: func() bench.Monitor {
			s := engine.NewSampler(discovery, base, info)
			if s == nil {
				return nil
			}
			return s
		},
		Running:      engine.RunningGauge(discovery, base, info),
		Settle:       f.settle,
		DrainTimeout: f.drainTimeout,
	}}
	progress.Log(fmt.Sprintf("%s %s · %s · writing %s", info.Engine, deref(info.Version), f.model, f.out))
	if recordCeiling(ctx, doc, f.noCalibrate, progress.Log) {
		if err := bench.WriteFile(f.out, doc); err != nil {
			return err
		}
	}
	var runErr error
	if doc.Config.Rate != nil {
		runErr = (&bench.RateRunner{Server: srv, Opts: runner.Opts}).Run(ctx, doc)
	} else {
		runErr = runner.Run(ctx, doc)
	}
	if runErr == nil {
		now := time.Now().UTC()
		doc.FinishedAt = &now
		if err := bench.WriteFile(f.out, doc); err != nil {
			return err
		}
	}
	progress.Close()
	if errors.Is(runErr, bench.ErrNotStreaming) {
		return fmt.Errorf("%s answered stream:true with one JSON body: it does not stream, so no token's arrival can be timed and nothing was measured (the run document %s says so)", base, f.out)
	}
	if errors.Is(runErr, bench.ErrCannotGenerate) {
		return fmt.Errorf("%s: %w; nothing was measured: run again once the server answers", base, runErr)
	}
	if errors.Is(runErr, bench.ErrInterrupted) {
		fmt.Fprintf(stderr, "\nInterrupted. Every finished cell is saved in %s; finish the run with:\n  %s\n", f.out, resumeHint(cmd, f, apiKeyFlag))
		return &exitError{code: 130, err: errors.New("interrupted")}
	}
	if runErr != nil {
		return runErr
	}
	if f.format != "none" {
		fmt.Fprintln(stdout)
		if err := report.Write(stdout, doc, report.Options{Format: f.format, Width: terminalWidth(os.Stdout)}); err != nil {
			return err
		}
	}
	nextSteps(stdout, f.out)
	return nil
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
func newRunDocument(cmd *cobra.Command, f *runFlags) (*bench.Run, error) {
	changed := cmd.Flags().Changed
	if f.rate.active() {
		if f.repeat != 1 {
			return nil, errors.New("--repeat measures the decode matrix and prefill rows; an open-loop run (--rate) gets its intervals from its requests")
		}
		return newRateDocument(cmd, f)
	}
	if f.quick {
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
	contexts, err := bench.ParseTokenList(f.contexts)
	if err != nil {
		return nil, fmt.Errorf("--contexts: %w", err)
	}
	concurrency, err := bench.ParseIntList(f.concurrency)
	if err != nil {
		return nil, fmt.Errorf("--concurrency: %w", err)
	}
	prefill, err := bench.ParseTokenList(f.prefill)
	if err != nil {
		return nil, fmt.Errorf("--prefill: %w", err)
	}
	if len(contexts) == 0 && len(prefill) == 0 {
		return nil, errors.New("nothing to measure: --contexts and --prefill are both empty")
	}
	if len(contexts) > 0 && len(concurrency) == 0 {
		return nil, errors.New("--concurrency is empty")
	}
	if f.duration < time.Second {
		return nil, fmt.Errorf("--duration %s is too short: a window under a second measures noise", f.duration)
	}
	if f.maxOutput < 1 {
		return nil, fmt.Errorf("--max-output must be at least 1")
	}
	if f.repeat < 1 || f.repeat > 100 {
		return nil, fmt.Errorf("--repeat %d: give 1 to 100 measurements per cell", f.repeat)
	}
	if f.api != "chat" && f.api != "completions" {
		return nil, fmt.Errorf("--api %q: use chat or completions", f.api)
	}
	if f.prefillMode != "decode-warmup" && f.prefillMode != "separate" {
		return nil, fmt.Errorf("--prefill-mode %q: use decode-warmup or separate", f.prefillMode)
	}
	if f.format != "text" && f.format != "md" && f.format != "none" {
		return nil, fmt.Errorf("--format %q: use text, md or none", f.format)
	}
	now := time.Now().UTC().Truncate(time.Second)
	seed := f.seed
	doc := &bench.Run{
		SchemaVersion: bench.SchemaVersion,
		ID:            now.Format("20060102-150405") + "-" + randomHex(3),
		Submitter:     f.submitter,
		CreatedAt:     now,
		Tool:          bench.Tool{Name: "llmbench", Version: toolVersion()},
		LaunchCommand: f.launchCommand,
		Title:         f.title,
		Config: bench.Config{
			Contexts: contexts, Concurrency: concurrency, PrefillContexts: prefill,
			DurationS: f.duration.Seconds(), MaxOutputTokens: f.maxOutput,
			DecodeTest: "fixed-duration", PrefillMode: f.prefillMode, API: f.api,
			Seed: &seed, Quick: f.quick,
		},
		Client: &bench.Client{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()},
	}
	if f.repeat > 1 {
		doc.Config.Repeat = f.repeat
	}
	if f.kvCapacity != "" {
		kv, err := bench.ParseTokens(f.kvCapacity)
		if err != nil || kv <= 0 {
			return nil, fmt.Errorf("--kv-capacity %q: give a positive token count", f.kvCapacity)
		}
		v := int64(kv)
		doc.Config.KVCapacity = &v
	}
	return doc, nil
}

// fillFromProbe writes what discovery learned into the document's engine and model
// blocks, and names an emulated run as such.
func fillFromProbe(doc *bench.Run, info *engine.Info, model string, emulated bool, base string) {
	info.ApplyTo(&doc.Engine, &doc.Model)
	doc.Model.ServedName = model
	if emulated || info.Engine == engine.Sim {
		doc.Status = bench.RunEmulated
		doc.Hardware.Type = "emulated"
	}
	if !emulated {
		doc.Config.Endpoint = base
	}
}

// fillTitle names the run as the seed page does: "{model} on {GPU} {VRAM}".
func fillTitle(doc *bench.Run, model string) {
	if doc.Title == "" {
		on := "an unknown GPU"
		switch {
		case doc.Status == bench.RunEmulated:
			on = "llmbench-sim"
			if doc.Engine.Preset != "" {
				on += " (" + doc.Engine.Preset + ")"
			}
		case len(doc.Hardware.GPUs) > 0:
			g := doc.Hardware.GPUs[0]
			on = g.Name
			if g.Count > 1 {
				on = fmt.Sprintf("%d× %s", g.Count, g.Name)
			}
			if g.VRAMBytes > 0 {
				on += fmt.Sprintf(" %.0fGB", float64(g.VRAMBytes)/(1<<30))
			}
		}
		doc.Title = model + " on " + on
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func defaultOutName(model string, t time.Time) string {
	name := model
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Trim(unsafeName.ReplaceAllString(name, "-"), "-.")
	if name == "" {
		name = "run"
	}
	return name + "-" + t.Format("20060102-150405") + ".json"
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

// describeHardware fills the hardware block: from --hardware, or detected when the
// server runs on this machine. A remote server's machine cannot be seen from here.
func describeHardware(ctx context.Context, doc *bench.Run, file, base string, emulated bool) error {
	if file != "" {
		h, err := hw.ReadHardwareFile(file)
		if err != nil {
			return err
		}
		doc.Hardware = h
		return nil
	}
	if emulated {
		return nil
	}
	if !isLocal(base) {
		doc.Notes = append(doc.Notes, "The server is remote: its hardware was not detected (describe it with --hardware FILE).")
		return nil
	}
	h, err := hw.Detect(ctx, "/", hw.ExecRunner{})
	if err != nil {
		doc.Notes = append(doc.Notes, "Hardware detection failed: "+err.Error())
		return nil
	}
	doc.Hardware = h
	return nil
}

// planToFit checks the planned document against the server's limits. A plan with
// nothing the server can run, or mostly over capacity because max_model_len is
// small, stops the run before anything is measured, with the flags that would fit;
// with --fit the plan is shrunk to them instead.
func planToFit(doc *bench.Run, kv, maxModelLen *int64, fit bool, stderr io.Writer) error {
	bench.Plan(doc, kv, maxModelLen)
	pf := bench.CheckPlan(doc)
	if !pf.TooSmall() {
		return nil
	}
	fitted, changes := bench.FitPlan(doc.Config, kv, maxModelLen)
	limits := describeLimits(kv, maxModelLen)
	if !fit || len(changes) == 0 {
		msg := fmt.Sprintf("the plan does not fit this server (%s): %d of %d measurements can run, %d are over capacity because context + max output exceeds max_model_len", limits, pf.Runnable, pf.Total, pf.ByLength)
		if len(changes) > 0 {
			msg += ".\nFlags that fit it: " + strings.Join(changes, " ") + "\nor run again with --fit to shrink the plan to these"
		}
		return errors.New(msg)
	}
	doc.Config = fitted
	bench.Plan(doc, kv, maxModelLen)
	note := fmt.Sprintf("--fit shrank the plan to the server (%s): %s.", limits, strings.Join(changes, ", "))
	doc.Notes = append(doc.Notes, note)
	fmt.Fprintln(stderr, note)
	return nil
}

func describeLimits(kv, maxModelLen *int64) string {
	var parts []string
	if maxModelLen != nil {
		parts = append(parts, fmt.Sprintf("max_model_len %d", *maxModelLen))
	}
	if kv != nil {
		parts = append(parts, fmt.Sprintf("KV cache %d tokens", *kv))
	}
	if len(parts) == 0 {
		return "no known limits"
	}
	return strings.Join(parts, ", ")
}

// tokenizeRoute says how the discovered engine counts tokens.
func tokenizeRoute(info *engine.Info, base string) prompt.Route {
	if info.Tokenize == nil {
		return prompt.Route{}
	}
	r := prompt.Route{URL: base + *info.Tokenize, TokenIDPrompts: info.TokenIDPrompts != nil && *info.TokenIDPrompts}
	switch info.Engine {
	case engine.VLLM, engine.Sim:
		r.Style = "vllm"
		if info.TokenIDPrompts == nil {
			r.TokenIDPrompts = true // vLLM's /v1/completions takes list[int] prompts
		}
	case engine.SGLang:
		r.Style = "sglang"
	case engine.LlamaCpp:
		r.Style = "llamacpp"
	case engine.TGI:
		r.Style = "tgi"
	}
	return r
}
