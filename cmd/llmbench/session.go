package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/openloop"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/session"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/calibrate"
	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/sysutil"
)

// runSession is one llmbench run, phase by phase: its document, the server (the
// user's, one it launches, or the built-in emulator), what that server is, the plan,
// and the measurement. runRun calls the phases in order; close releases what they
// started.
type runSession struct {
	cmd            *cobra.Command
	f              *runFlags
	stdout, stderr io.Writer

	doc           *rundoc.Run
	emulated      bool
	apiKeyFlag    bool
	base          string
	preLaunchPIDs []int
	client        *openai.Client
	discovery     engine.Doer
	info          *engine.Info
	closers       []func()
}

func (s *runSession) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// document reads the run to resume, or makes a new one from the flags.
func (s *runSession) document() error {
	cmd, f := s.cmd, s.f
	var err error
	if f.resume == "" {
		if err := checkRateFlags(cmd, &f.rate); err != nil {
			return err
		}
		s.doc, err = newRunDocument(cmd, f)
		return err
	}
	for _, name := range planFlags {
		if cmd.Flags().Changed(name) && !(name == "target" && f.rate.targetURL != "") {
			return fmt.Errorf("--%s cannot be combined with --resume: the plan comes from %s", name, f.resume)
		}
	}
	if s.doc, err = rundoc.ReadFile(f.resume); err != nil {
		return err
	}
	if f.out == "" {
		f.out = f.resume
	}
	return resumeTarget(cmd, f, s.doc)
}

// startServer starts the built-in emulator when no endpoint is given, or the server
// --launch names, and sets the base URL.
func (s *runSession) startServer(ctx context.Context) error {
	f := s.f
	s.apiKeyFlag = f.apiKey != ""
	if f.apiKey == "" {
		f.apiKey = os.Getenv("OPENAI_API_KEY")
	}
	s.emulated = f.endpoint == ""
	if s.emulated {
		if err := s.startEmulator(ctx); err != nil {
			return err
		}
	}
	base, err := serverBase(f.endpoint, s.stderr)
	if err != nil {
		return err
	}
	s.base = base
	if f.launch == "" {
		return nil
	}
	if s.emulated {
		return errors.New("--launch needs --endpoint: the URL the launched server will answer on")
	}
	return s.launch(ctx)
}

func (s *runSession) startEmulator(ctx context.Context) error {
	f := s.f
	base, shutdown, err := sim.StartLocal(ctx, f.preset, 1)
	if err != nil {
		return fmt.Errorf("starting the built-in emulator: %w", err)
	}
	s.closers = append(s.closers, func() { shutdown(context.Background()) })
	verb := "measuring"
	if f.dryRun {
		verb = "planning for"
	}
	fmt.Fprintf(s.stdout, "No --endpoint given (nor $%s): %s llmbench's built-in emulated engine (preset %s) at %s. Its numbers are emulated, not a GPU's.\n", baseURLEnv, verb, f.preset, base)
	if c, err := sim.PresetConfig(f.preset); err == nil && f.model == "" {
		fmt.Fprintf(s.stdout, "The emulator serves one model, named %q: the run and its document are named after it.\n", c.ServedModel)
	}
	f.endpoint = base
	return nil
}

func (s *runSession) launch(ctx context.Context) error {
	f := s.f
	s.preLaunchPIDs = gpuPIDsBeforeLaunch(ctx, f)
	fmt.Fprintf(s.stderr, "Launching: %s\n(waiting up to %s for %s to be healthy)\n", f.launch, f.launchTimeout, s.base)
	logf, err := os.CreateTemp("", "llmbench-launch-*.log")
	if err != nil {
		return fmt.Errorf("creating the launch log: %w", err)
	}
	s.closers = append(s.closers, func() { logf.Close() })
	launched, err := engine.Launch(ctx, f.launch, s.base, f.launchTimeout, logf)
	if err != nil {
		return fmt.Errorf("launching the server (log: %s): %w", logf.Name(), err)
	}
	s.closers = append(s.closers, func() { launched.Stop(context.Background()) })
	if f.resume == "" {
		s.doc.LaunchCommand = f.launch
		if launched.Image != "" && s.doc.Engine.Build == "" {
			s.doc.Engine.Build = launched.Image
		}
	}
	return nil
}

// connect makes the client, with room for the largest cell's streams.
func (s *runSession) connect() {
	doc := s.doc
	maxConc := slices.Max(append([]int{1}, doc.Config.Concurrency...))
	if doc.Config.Rate != nil {
		// Open loop: as many requests in flight as the schedule and the server make.
		maxConc = max(1024, doc.Config.Rate.MaxConcurrency)
	}
	need := sysutil.FilesForStreams(maxConc, s.emulated)
	if !s.f.noCalibrate {
		need = max(need, sysutil.FilesForStreams(calibrate.DefaultStreams, true))
	}
	ensureFileLimit(s.stderr, need)
	s.client = openai.NewClient(s.base+"/v1", s.f.apiKey, maxConc)
	// Discovery and metrics requests carry the API key too.
	s.discovery = engine.WithAPIKey(s.client.HTTP, s.f.apiKey)
}

// probe asks the server what it is, checks the model, and for a resumed run that it
// is the same server.
func (s *runSession) probe(ctx context.Context) error {
	f := s.f
	probeCtx, cancel := context.WithTimeout(ctx, time.Minute)
	info, err := engine.Probe(probeCtx, s.discovery, s.base)
	cancel()
	if err != nil {
		return explainServerError(fmt.Errorf("probing %s: %w", s.base, err), s.base, f.apiKey != "")
	}
	s.info = info
	if f.model == "" {
		if info.ServedModel == nil {
			return fmt.Errorf("%s lists no model on /v1/models: name one with --model", s.base)
		}
		f.model = *info.ServedModel
	} else if len(info.Models) > 0 && !slices.Contains(info.Models, f.model) {
		// Ollama lists "llama3:latest" and answers to "llama3" too.
		if !slices.Contains(info.Models, f.model+":latest") {
			return fmt.Errorf("model %q is not served by %s; it serves: %s", f.model, s.base, strings.Join(info.Models, ", "))
		}
	}
	if f.resume == "" {
		return nil
	}
	if err := session.SameServer(s.doc, info, s.base); err != nil {
		return err
	}
	if !s.emulated {
		session.RecordEndpoint(s.doc, s.base)
	}
	return nil
}

// plan fills a new document from the probe and plans it against the server's KV
// cache and max_model_len; a resumed one keeps its plan.
func (s *runSession) plan(ctx context.Context) error {
	doc, info, f := s.doc, s.info, s.f
	if f.resume != "" {
		return nil
	}
	session.FillFromProbe(doc, info, f.model, s.emulated, s.base)
	kv := s.capacity()
	if doc.Config.Rate != nil {
		if err := session.NotePlanLimits(doc, info.MaxModelLen); err != nil {
			return err
		}
		openloop.PlanRates(doc)
	} else if err := session.PlanToFit(doc, kv, info.MaxModelLen, f.fit, s.stderr); err != nil {
		return err
	}
	if err := session.DescribeHardware(ctx, doc, f.hardware, s.base, doc.Status == rundoc.RunEmulated); err != nil {
		return err
	}
	session.FillTitle(doc, f.model)
	return nil
}

// capacity records the KV cache size the plan uses (the flag's, or the server's) and
// returns it.
func (s *runSession) capacity() *int64 {
	doc, info := s.doc, s.info
	kv := doc.Config.KVCapacity
	doc.Capacity = &rundoc.Capacity{KVCacheTokens: kv, MaxModelLen: info.MaxModelLen, Source: "flag"}
	if kv == nil {
		kv = info.KVCacheTokens
		doc.Capacity.KVCacheTokens, doc.Capacity.Source = kv, "server"
	}
	switch {
	case kv == nil:
		doc.Capacity.Source = "unknown"
		doc.Notes = append(doc.Notes, "The server's KV cache size is unknown (give it with --kv-capacity): every cell was run.")
		fmt.Fprintln(s.stderr, "warning: the server's KV cache size is unknown, so no cell is skipped as over capacity; give it with --kv-capacity")
	case doc.Config.KVCapacity == nil && info.KVCacheTokensIfSplit != nil:
		doc.Notes = append(doc.Notes, fmt.Sprintf("llama.cpp does not say whether its KV cache is unified: the plan took the smaller size, %d tokens; a cache split per slot holds %d (--kv-capacity %d).", *kv, *info.KVCacheTokensIfSplit, *info.KVCacheTokensIfSplit))
	}
	return kv
}

// benchServer is what the runner needs to know of the server, from the probe.
func (s *runSession) benchServer() *bench.Server {
	info := s.info
	srv := &bench.Server{
		Client: s.client, Model: s.f.model, API: prompt.API(s.doc.Config.API),
		// Sent unless the server is known not to take it (harmless where unknown)...
		IgnoreEOS: info.IgnoreEOS == nil || *info.IgnoreEOS,
		// ...but an early end invalidates a cell only where it is known to work.
		IgnoreEOSKnown: info.IgnoreEOS != nil && *info.IgnoreEOS,
		// Per-chunk counts are asked for wherever the server may give them: where it is
		// unknown, the run's first request shows whether it refuses the field.
		ContinuousUsage: info.ChunkUsage == nil || *info.ChunkUsage,
		TimingsPerToken: info.TimingsPerToken != nil && *info.TimingsPerToken,
		Local:           session.IsLocal(s.base),
	}
	counting := prompt.NewCounting(s.client, s.f.model, srv.API, session.TokenizeRoute(info, s.base))
	srv.Counter, srv.Exact, srv.Tokenizer = counting.Counter, counting.Exact, counting.Tokenizer
	srv.TextTokenizer = counting.TextTokenizer
	return srv
}

// eventLog opens --events for appending, when given.
func (s *runSession) eventLog() (*bench.EventLog, error) {
	if s.f.events == "" {
		return nil, nil
	}
	ef, err := os.OpenFile(s.f.events, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening events log: %w", err)
	}
	events := bench.NewEventLog(ef)
	s.closers = append(s.closers, func() { events.Flush(); ef.Close() })
	return events, nil
}

// options are the runner's: progress, events, power, the checkpoint after each cell.
func (s *runSession) options(progress *progress, events *bench.EventLog, meter *energySetup) bench.Options {
	f, base, info := s.f, s.base, s.info
	return bench.Options{
		StartTimeout: f.startTimeout,
		Events:       events,
		Progress:     progress,
		Nonce:        s.doc.ID + "-" + randomHex(4),
		Telemetry:    meter.telemetry(),
		Price:        s.doc.Energy.PriceOrNil(),
		Checkpoint: func(r *rundoc.Run) error {
			if err := events.Flush(); err != nil {
				return fmt.Errorf("writing events log: %w", err)
			}
			return rundoc.WriteFile(f.out, r)
		},
		NewMonitor: func() bench.Monitor {
			if m := engine.NewSampler(s.discovery, base, info); m != nil {
				return m
			}
			return nil
		},
		Running:       engine.RunningGauge(s.discovery, base, info),
		Settle:        f.settle,
		SettleTimeout: f.settleTimeout,
	}
}

// openLoopOptions are the open loop's share of the runner's options: it opens no
// windows and settles nothing between its cells.
func openLoopOptions(o bench.Options) openloop.Options {
	return openloop.Options{
		Checkpoint: o.Checkpoint, Events: o.Events, Progress: o.Progress, NewMonitor: o.NewMonitor,
		Nonce: o.Nonce, Attempt: o.Attempt, Retry: o.Retry, Telemetry: o.Telemetry, Price: o.Price,
	}
}

// measure meters the server, calibrates the client and runs the plan, closed or
// open loop, writing the document after each cell and when it is done.
func (s *runSession) measure(ctx context.Context) error {
	doc, f := s.doc, s.f
	srv := s.benchServer()
	events, err := s.eventLog()
	if err != nil {
		return err
	}
	meter, err := setupEnergy(ctx, s.stderr, f, doc, s.base, s.preLaunchPIDs)
	if err != nil {
		return err
	}
	defer meter.close()
	if err := rundoc.WriteFile(f.out, doc); err != nil {
		return err
	}
	progress := newProgress(s.stderr, f.noProgress)
	defer progress.Close()
	opts := s.options(progress, events, meter)
	progress.Log(fmt.Sprintf("%s %s · %s · writing %s", s.info.Engine, deref(s.info.Version), f.model, f.out))
	if recordCeiling(ctx, doc, f.noCalibrate, progress.Log) {
		if err := rundoc.WriteFile(f.out, doc); err != nil {
			return err
		}
	}
	if doc.Config.Rate != nil {
		err = (&openloop.Runner{Server: srv, Opts: openLoopOptions(opts)}).Run(ctx, doc)
	} else {
		err = (&bench.Runner{Server: srv, Opts: opts}).Run(ctx, doc)
	}
	if err == nil {
		now := time.Now().UTC()
		doc.FinishedAt = &now
		err = rundoc.WriteFile(f.out, doc)
	}
	progress.Close()
	return err
}

// finish says how the measurement ended: what a failure means, the hint to resume
// after Ctrl-C, or the report and the next commands.
func (s *runSession) finish(runErr error) error {
	f, base := s.f, s.base
	switch {
	case errors.Is(runErr, bench.ErrNotStreaming):
		return fmt.Errorf("%s answered stream:true with one JSON body: it does not stream, so no token's arrival can be timed and nothing was measured (the run document %s says so)", base, f.out)
	case errors.Is(runErr, bench.ErrCannotGenerate):
		return fmt.Errorf("%s: %w; nothing was measured: run again once the server answers", base, runErr)
	case errors.Is(runErr, bench.ErrInterrupted):
		fmt.Fprintf(s.stderr, "\nInterrupted. Every finished cell is saved in %s; finish the run with:\n  %s\n", f.out, resumeHint(s.cmd, f, s.apiKeyFlag))
		return &exitError{code: 130, err: errors.New("interrupted")}
	case runErr != nil:
		return runErr
	}
	if f.format != "none" {
		fmt.Fprintln(s.stdout)
		if err := report.Write(s.stdout, s.doc, report.Options{Format: f.format, Width: terminalWidth(os.Stdout)}); err != nil {
			return err
		}
	}
	nextSteps(s.stdout, f.out)
	return nil
}
