package measure

import (
	"context"
	"errors"
	"time"

	"github.com/llmbench/llmbench/internal/power"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Options are what a run's load shape reads of the run beside the server: where its
// document and events go, what is told of its progress, the server's gauges, the retry
// policy and the meter. One set serves every shape; the fields only the matrix reads
// say so.
type Options struct {
	// Checkpoint is called after every measurement with the document so far.
	Checkpoint func(*rundoc.Run) error
	// Events, if set, receives every request and what scoring each measurement needs.
	Events *EventLog
	// Progress, if set, is told what is happening.
	Progress Progress
	// NewMonitor, if set, makes a server-metrics sampler for each cell.
	NewMonitor func() Monitor
	// Nonce is the run's unique id (the matrix makes its contexts unique with it, so
	// they are cold on first use); Attempt names this run invocation in the events log
	// (default: Nonce).
	Nonce   string
	Attempt string
	// Retry is the policy for requests that do not succeed (default
	// DefaultRetryPolicy); an open-loop cell's requests are never retried, its stream
	// check is.
	Retry *RetryPolicy
	// Telemetry, if set, meters the server's machine over every measurement; Price, if
	// set, is what the machine costs (energy.go).
	Telemetry power.Telemetry
	Price     *rundoc.Price
	// Timeslice is the slice of every measurement's series (--timeslice; 0:
	// DefaultTimeslice, SliceNs).
	Timeslice time.Duration
	// Workload, if set, is what the run sends besides random words (dataset.go).
	Workload *Workload
	// Document, if set, is real text as the matrix's contexts' filler in place of
	// random words (--prompt-text).
	Document *prompt.Document

	// The matrix's alone. StartTimeout bounds how long a cell waits for all its
	// streams' first tokens. Running reads the server's running-requests gauge, where
	// it has one: after a cell, the next measurement waits until it reads 0 (for at
	// most SettleTimeout, default a minute). Settle is how long to wait after a cell
	// where the server has no running gauge.
	StartTimeout  time.Duration
	Running       func(ctx context.Context) (float64, bool)
	SettleTimeout time.Duration
	Settle        time.Duration
}

// RetryPolicy is the run's retry policy.
func (o *Options) RetryPolicy() RetryPolicy {
	if o.Retry != nil {
		return *o.Retry
	}
	return DefaultRetryPolicy
}

// AttemptID names this run invocation in the events log: Attempt, else Nonce.
func (o *Options) AttemptID() string {
	if o.Attempt != "" {
		return o.Attempt
	}
	return o.Nonce
}

// Save checkpoints the document, where the run asked for it.
func (o *Options) Save(doc *rundoc.Run) error {
	if o.Checkpoint == nil {
		return nil
	}
	return o.Checkpoint(doc)
}

// ErrInterrupted is returned by a run when its context was cancelled.
var ErrInterrupted = errors.New("run interrupted")

// StatusDone reports whether a cell or row has its outcome (it need not run again).
func StatusDone(s rundoc.Status) bool {
	switch s {
	case rundoc.StatusPending, rundoc.StatusInterrupted, "":
		return false
	}
	return true
}

// Monitor samples the server's own metrics during a cell (engine discovery provides
// one where the server exposes metrics).
type Monitor interface {
	Start(ctx context.Context, interval time.Duration)
	Stop() *rundoc.ServerMetrics
}

// prefixCacheReporter is a Monitor that also counts the server's prefix-cache hits.
type prefixCacheReporter interface {
	PrefixCache() (queries, hits float64, ok bool)
}

// StopMonitor stops a monitor and adds its prefix-cache counters where it has them.
func StopMonitor(m Monitor) *rundoc.ServerMetrics {
	metrics := m.Stop()
	if pc, ok := m.(prefixCacheReporter); ok && metrics != nil {
		if q, h, ok := pc.PrefixCache(); ok {
			metrics.PrefixCacheQueries, metrics.PrefixCacheHits = &q, &h
		}
	}
	return metrics
}

// Progress is told what a run is doing, for a live display.
type Progress interface {
	// Step says what runs now: done of total work items (prefill rows and cells).
	Step(desc string, done, total int, expect time.Duration)
	// Tokens counts tokens as they stream in.
	Tokens(n int)
	// Log prints a line above the live display.
	Log(line string)
}

// PlanProgress is a Progress that also wants, at every step, the time the plan's
// work still needs by its own durations: an ETA from the first second, before any
// cell has finished to time.
type PlanProgress interface {
	Progress
	Left(PlanLeft)
}

// PlanLeft is what the plan still needs as a step starts.
type PlanLeft struct {
	// Windows is a window of the plan's duration for each cell measurement left, the
	// current one included.
	Windows time.Duration
	// Cold is the predicted time of the cold prompt reads left (each row's prefill or
	// warm-up request, the current one included), at the prompt rate the last one
	// read; ColdUnknown says some remain and none has been timed yet.
	Cold        time.Duration
	ColdUnknown bool
	// ColdSpent is the time the cold reads so far took, which the windows do not
	// account for.
	ColdSpent time.Duration
}

// TokenObserver feeds a live display with tokens as they stream in, for requests
// whose first token nothing waits on.
type TokenObserver struct{ Progress Progress }

// FirstToken is the openai.Observer's; nothing waits on it.
func (o TokenObserver) FirstToken(time.Time) {}

// Tokens counts n tokens on the display.
func (o TokenObserver) Tokens(_ time.Time, n int) {
	if o.Progress != nil {
		o.Progress.Tokens(n)
	}
}
