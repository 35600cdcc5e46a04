package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Observer is told what a session does, for a terminal (or a test) to show: the
// measurement's steps, tokens and log lines (measure.Progress, and
// measure.PlanProgress where it implements it), and the lines around them.
type Observer interface {
	measure.Progress
	// Say is a line of the run's own output: which server is measured.
	Say(line string)
	// Note is a line beside it: a warning, a note, what is being waited for.
	Note(line string)
}

// Session is one run: its document, the server (the user's, one it launched, or the
// built-in emulator), what that server is, and the meter. Open prepares it, Run
// measures, Close releases what Open started.
type Session struct {
	cfg Config
	obs Observer

	doc           *rundoc.Run
	emulated      bool
	apiKeyFlag    bool
	base          string
	preLaunchPIDs []int
	client        *openai.Client
	discovery     engine.Doer
	info          *engine.Info
	events        *measure.EventLog
	meter         *energySetup
	loaded        *loaded
	closers       []func()
	failed        bool
}

// Open reads the run to resume or makes a new document, starts the emulator or the
// --launch server, probes the server and checks the model, plans the run against its
// limits, describes the hardware, starts the meter and prices the machine, and writes
// the document with every measurement pending. A dry run stops once the plan is
// made: nothing is metered or written. On failure everything started is released.
func Open(ctx context.Context, cfg Config, obs Observer) (*Session, error) {
	s := &Session{cfg: cfg, obs: obs, apiKeyFlag: cfg.APIKey != ""}
	if err := s.open(ctx); err != nil {
		s.failed = true
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Session) open(ctx context.Context) error {
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
	if s.cfg.DryRun {
		return nil
	}
	return s.prepare(ctx)
}

// Close releases what the session started: the meter, the events log, the launched
// server, the emulator. A run that failed before anything was measured leaves no
// document: a file of pending cells records nothing and would be mistaken for a run.
// An interrupted run keeps its file (--resume finishes it), and so does a run whose
// cells were marked failed with a reason (the server does not stream): that is a
// finding.
func (s *Session) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
	if s.failed {
		s.failed = false
		s.discard()
	}
}

// discard removes the document when every planned measurement is still pending.
func (s *Session) discard() {
	out := s.cfg.Out
	if s.cfg.Resume != "" || out == "" {
		return
	}
	doc, err := rundoc.ReadFile(out)
	if err != nil || !nothingMeasured(doc) {
		return
	}
	if os.Remove(out) == nil {
		s.obs.Note(fmt.Sprintf("Nothing was measured, so %s was removed.", out))
	}
}

// nothingMeasured reports whether every planned measurement of doc is still pending.
func nothingMeasured(doc *rundoc.Run) bool {
	if doc.FinishedAt != nil {
		return false
	}
	for _, p := range doc.Prefill {
		if p.Status != rundoc.StatusPending && p.Status != rundoc.StatusOverCapacity {
			return false
		}
	}
	for _, c := range doc.Decode {
		if c.Status != rundoc.StatusPending && c.Status != rundoc.StatusOverCapacity {
			return false
		}
	}
	for _, c := range doc.Rate {
		if c.Status != rundoc.StatusPending {
			return false
		}
	}
	return true
}

// Doc is the run document.
func (s *Session) Doc() *rundoc.Run { return s.doc }

// Out is the file the document is written to.
func (s *Session) Out() string { return s.cfg.Out }

// DryRun is what a dry run prints: the server and the plan.
func (s *Session) DryRun() string { return DryRunText(s.doc, s.info, s.cfg.Model) }

// ResumeHint is the command that finishes this run after an interrupt.
func (s *Session) ResumeHint() string { return ResumeHint(s.cfg, s.apiKeyFlag) }

// noteWriter gives the observer's notes to the helpers that print to a writer, a line
// a write.
type noteWriter struct{ obs Observer }

func (w noteWriter) Write(p []byte) (int, error) {
	w.obs.Note(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// errDryRun is Run's answer for a session opened to plan only.
var errDryRun = errors.New("a dry run measures nothing")
