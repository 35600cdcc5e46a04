package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openloop"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Run calibrates the client and runs the plan, closed or open loop, writing the
// document after each cell and when it is done. It returns measure.ErrInterrupted
// when ctx is cancelled (every finished cell is saved: ResumeHint finishes it).
func (s *Session) Run(ctx context.Context) error {
	if s.cfg.DryRun {
		return errDryRun
	}
	err := s.measure(ctx)
	if err != nil && !errors.Is(err, measure.ErrInterrupted) {
		s.failed = true
	}
	return s.explain(err)
}

func (s *Session) measure(ctx context.Context) error {
	doc, c := s.doc, &s.cfg
	srv := s.benchServer()
	opts := s.options()
	s.obs.Log(fmt.Sprintf("%s %s · %s · writing %s", s.info.Engine, deref(s.info.Version), c.Model, c.Out))
	if recordCeiling(ctx, doc, c.NoCalibrate, s.obs.Log) {
		if err := rundoc.WriteFile(c.Out, doc); err != nil {
			return err
		}
	}
	var err error
	if doc.Config.Rate != nil {
		err = (&openloop.Runner{Server: srv, Opts: opts}).Run(ctx, doc)
	} else {
		err = (&bench.Runner{Server: srv, Opts: opts}).Run(ctx, doc)
	}
	if err == nil {
		now := time.Now().UTC()
		doc.FinishedAt = &now
		err = rundoc.WriteFile(c.Out, doc)
	}
	return err
}

// explain says what a failed measurement means.
func (s *Session) explain(err error) error {
	switch {
	case errors.Is(err, measure.ErrNotStreaming):
		return fmt.Errorf("%s answered stream:true with one JSON body: it does not stream, so no token's arrival can be timed and nothing was measured (the run document %s says so)", s.base, s.cfg.Out)
	case errors.Is(err, measure.ErrCannotGenerate):
		return fmt.Errorf("%s: %w; nothing was measured: run again once the server answers", s.base, err)
	}
	return err
}

// benchServer is what the runner needs to know of the server, from the probe.
func (s *Session) benchServer() *measure.Server {
	info := s.info
	srv := &measure.Server{
		Client: s.client, Model: s.cfg.Model, API: prompt.API(s.doc.Config.API),
		// Sent unless the server is known not to take it (harmless where unknown)...
		IgnoreEOS: info.IgnoreEOS == nil || *info.IgnoreEOS,
		// ...but an early end invalidates a cell only where it is known to work.
		IgnoreEOSKnown: info.IgnoreEOS != nil && *info.IgnoreEOS,
		// Per-chunk counts are asked for wherever the server may give them: where it is
		// unknown, the run's first request shows whether it refuses the field.
		ContinuousUsage: info.ChunkUsage == nil || *info.ChunkUsage,
		TimingsPerToken: info.TimingsPerToken != nil && *info.TimingsPerToken,
		Local:           IsLocal(s.base),
	}
	// llama-server and Ollama's runner keep a prompt cache per slot (server-context.cpp
	// get_available_slot; Ollama's runner/llamarunner/cache.go): a cell warms every slot
	// it will use. llama-server says how many it has and takes a slot by name; Ollama
	// does neither.
	switch info.Engine {
	case engine.LlamaCpp:
		srv.SlotCaches, srv.PinSlots = -1, true
		if info.Slots != nil {
			srv.SlotCaches = int(*info.Slots)
		}
	case engine.Ollama:
		srv.SlotCaches = -1
	}
	counting := prompt.NewCounting(s.client, s.cfg.Model, srv.API, TokenizeRoute(info, s.base))
	srv.Counter, srv.Exact, srv.Tokenizer = counting.Counter, counting.Exact, counting.Tokenizer
	srv.TextTokenizer = counting.TextTokenizer
	return srv
}

// options are the load shape's: progress, events, power, the checkpoint after each
// cell, and the matrix's start timeout and settle.
func (s *Session) options() measure.Options {
	c, base, info, events := &s.cfg, s.base, s.info, s.events
	return measure.Options{
		StartTimeout: c.StartTimeout,
		Events:       events,
		Progress:     s.obs,
		Nonce:        s.doc.ID + "-" + randomHex(4),
		Telemetry:    s.meter.telemetry(),
		Price:        s.doc.Energy.PriceOrNil(),
		Checkpoint: func(r *rundoc.Run) error {
			if err := events.Flush(); err != nil {
				return fmt.Errorf("writing events log: %w", err)
			}
			return rundoc.WriteFile(c.Out, r)
		},
		NewMonitor: func() measure.Monitor {
			if m := engine.NewSampler(s.discovery, base, info); m != nil {
				return m
			}
			return nil
		},
		Running:       engine.RunningGauge(s.discovery, base, info),
		Workload:      s.loaded.runWorkload(s.doc.Config.Workload),
		Document:      s.loaded.document,
		Settle:        c.Settle,
		SettleTimeout: c.SettleTimeout,
		Timeslice:     c.Timeslice,
	}
}

func deref(s *string) string {
	if s == nil {
		return "(version unknown)"
	}
	return *s
}
