package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/calibrate"
	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/hw"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/sysutil"
)

// startServer starts the built-in emulator when no endpoint is given, or the server
// --launch names, and sets the base URL.
func (s *Session) startServer(ctx context.Context) error {
	c := &s.cfg
	if c.APIKey == "" {
		c.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	s.emulated = c.Endpoint == ""
	if s.emulated {
		if err := s.startEmulator(ctx); err != nil {
			return err
		}
	}
	base, err := ServerBase(c.Endpoint, noteWriter{s.obs})
	if err != nil {
		return err
	}
	s.base = base
	if c.Launch == "" {
		return nil
	}
	if s.emulated {
		return errors.New("--launch needs --endpoint: the URL the launched server will answer on")
	}
	return s.launch(ctx)
}

func (s *Session) startEmulator(ctx context.Context) error {
	c := &s.cfg
	base, shutdown, err := sim.StartLocal(ctx, c.Preset, 1)
	if err != nil {
		return fmt.Errorf("starting the built-in emulator: %w", err)
	}
	s.closers = append(s.closers, func() { shutdown(context.Background()) })
	verb := "measuring"
	if c.DryRun {
		verb = "planning for"
	}
	s.obs.Say(fmt.Sprintf("No --endpoint given (nor $%s): %s llmbench's built-in emulated engine (preset %s) at %s. Its numbers are emulated, not a GPU's.", BaseURLEnv, verb, c.Preset, base))
	if p, err := sim.PresetConfig(c.Preset); err == nil && c.Model == "" {
		s.obs.Say(fmt.Sprintf("The emulator serves one model, named %q: the run and its document are named after it.", p.ServedModel))
	}
	c.Endpoint = base
	return nil
}

func (s *Session) launch(ctx context.Context) error {
	c := &s.cfg
	s.preLaunchPIDs = gpuPIDsBeforeLaunch(ctx, c)
	s.obs.Note(fmt.Sprintf("Launching: %s\n(waiting up to %s for %s to be healthy)", c.Launch, c.LaunchTimeout, s.base))
	logf, err := os.CreateTemp("", "llmbench-launch-*.log")
	if err != nil {
		return fmt.Errorf("creating the launch log: %w", err)
	}
	s.closers = append(s.closers, func() { logf.Close() })
	launched, err := engine.Launch(ctx, c.Launch, s.base, c.LaunchTimeout, logf)
	if err != nil {
		return fmt.Errorf("launching the server (log: %s): %w", logf.Name(), err)
	}
	s.closers = append(s.closers, func() { launched.Stop(context.Background()) })
	if c.Resume == "" {
		s.doc.LaunchCommand = c.Launch
		if launched.Image != "" && s.doc.Engine.Build == "" {
			s.doc.Engine.Build = launched.Image
		}
	}
	return nil
}

// gpuPIDsBeforeLaunch lists the GPUs' compute processes before --launch starts the
// server: whatever runs there then is not the server.
func gpuPIDsBeforeLaunch(ctx context.Context, c *Config) []int {
	if c.Telemetry != "auto" && c.Telemetry != hw.SourceNvidia {
		return nil
	}
	return hw.NvidiaComputePIDs(ctx)
}

// connect makes the client, with room for the largest cell's streams.
func (s *Session) connect() {
	doc := s.doc
	maxConc := slices.Max(append([]int{1}, doc.Config.Concurrency...))
	if doc.Config.Rate != nil {
		// Open loop: as many requests in flight as the schedule and the server make.
		maxConc = max(1024, doc.Config.Rate.MaxConcurrency)
	}
	need := sysutil.FilesForStreams(maxConc, s.emulated)
	if !s.cfg.NoCalibrate {
		need = max(need, sysutil.FilesForStreams(calibrate.DefaultStreams, true))
	}
	EnsureFileLimit(noteWriter{s.obs}, need)
	s.client = openai.NewClient(s.base+"/v1", s.cfg.APIKey, maxConc)
	// Discovery and metrics requests carry the API key too.
	s.discovery = engine.WithAPIKey(s.client.HTTP, s.cfg.APIKey)
}

// EnsureFileLimit raises the soft open-file limit to need (sysutil.FilesForStreams:
// every stream of the largest cell its connection, and a server in this process its
// side of it), and warns when even the hard limit is too low: those cells would fail
// with "too many open files".
func EnsureFileLimit(stderr io.Writer, need uint64) {
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

// probe asks the server what it is, checks the model, and for a resumed run that it
// is the same server.
func (s *Session) probe(ctx context.Context) error {
	c := &s.cfg
	probeCtx, cancel := context.WithTimeout(ctx, time.Minute)
	info, err := engine.Probe(probeCtx, s.discovery, s.base)
	cancel()
	if err != nil {
		return ExplainServerError(fmt.Errorf("probing %s: %w", s.base, err), s.base, c.APIKey != "")
	}
	s.info = info
	if err := checkModel(c, info, s.base); err != nil {
		return err
	}
	if c.Resume == "" {
		return nil
	}
	if err := SameServer(s.doc, info, s.base); err != nil {
		return err
	}
	if !s.emulated {
		RecordEndpoint(s.doc, s.base)
	}
	return nil
}

// checkModel takes the model the server lists when none is named, and refuses one it
// does not serve.
func checkModel(c *Config, info *engine.Info, base string) error {
	if c.Model == "" {
		if info.ServedModel == nil {
			return fmt.Errorf("%s lists no model on /v1/models: name one with --model", base)
		}
		c.Model = *info.ServedModel
	} else if len(info.Models) > 0 && !slices.Contains(info.Models, c.Model) {
		// Ollama lists "llama3:latest" and answers to "llama3" too.
		if slices.Contains(info.Models, c.Model+":latest") {
			return nil
		}
		// A resumed run's document records a path-named model by its file's name: the
		// requests name it as the server lists it.
		if listed := listedAs(info.Models, c.Model); listed != "" {
			c.Model = listed
			return nil
		}
		return fmt.Errorf("model %q is not served by %s; it serves: %s", c.Model, base, strings.Join(info.Models, ", "))
	}
	return nil
}

// listedAs is the listed model a document records as name (rundoc.ModelName), "" when
// none is.
func listedAs(models []string, name string) string {
	for _, m := range models {
		if recorded, _ := rundoc.ModelName(m); recorded == name {
			return m
		}
	}
	return ""
}
