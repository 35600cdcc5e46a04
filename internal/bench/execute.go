package bench

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
)

// cellSpec is what one cell runs: its place in the plan and its row's shared context.
type cellSpec struct {
	context, concurrency int
	duration             time.Duration
	maxOutput            int
	pctx                 *prompt.Context
	// reqIndex numbers the row's requests, so that every one has a unique tail.
	reqIndex *atomic.Int64
	// ceiling is the client's measured ceiling (0: none), which the cell's scoring
	// compares its rate with.
	ceiling float64
	// send is what the streams send (workload.go): the row's context, or the
	// workload's requests.
	send source
}

// cellObserver opens the window when every stream has its first token and feeds the
// live display.
type cellObserver struct {
	started  atomic.Int64 // streams that have had a first token
	n        int64
	opened   chan time.Time
	progress measure.Progress
}

type streamObserver struct {
	cell  *cellObserver
	first *atomic.Bool // this stream has had its first token
}

func (o *streamObserver) FirstToken(at time.Time) {
	if o.first.CompareAndSwap(false, true) {
		if o.cell.started.Add(1) == o.cell.n {
			o.cell.opened <- at
		}
	}
}

func (o *streamObserver) Tokens(_ time.Time, n int) {
	if o.cell.progress != nil {
		o.cell.progress.Tokens(n)
	}
}

// executeCell runs one sustained-decode cell: N streams in a closed loop, the window
// opening when all N have their first token and lasting the configured duration. A
// request that does not succeed is followed by the retry policy's wait; a stream that
// has not had its first token after the policy's budget gives the cell up. It returns
// what happened, unscored, or nil when ctx was cancelled (the run was stopped).
func (r *Runner) executeCell(ctx context.Context, spec cellSpec) *CellRun {
	run := &CellRun{
		Context: spec.context, Concurrency: spec.concurrency, DurationS: spec.duration.Seconds(),
		MaxOutput: spec.maxOutput, PromptTokens: spec.pctx.Actual, PromptTarget: spec.pctx.Target,
		IgnoreEOSKnown: r.Server.IgnoreEOSKnown, CPUs: runtime.NumCPU(), CeilingTokS: spec.ceiling,
		PromptSource: r.builder.Source(), SliceNs: measure.SliceNs(r.Opts.Timeslice),
	}
	if w := r.Opts.Workload; w != nil {
		run.PromptSource = w.PromptSource() // the workload's prompts, not the row's
	}
	keepText := r.Server.KeepsText(r.check)
	cellCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	obs := &cellObserver{n: int64(spec.concurrency), opened: make(chan time.Time, 1), progress: r.Opts.Progress}
	streams := r.startStreams(cellCtx, cancel, spec, obs, keepText)
	var monitor measure.Monitor
	if r.Opts.NewMonitor != nil {
		monitor = r.Opts.NewMonitor()
	}
	monitor = r.window(cellCtx, run, spec, obs, streams, monitor)
	cancel()
	streams.wg.Wait()
	if monitor != nil {
		run.Server = monitor.Stop()
	}
	if ctx.Err() != nil {
		return nil // the caller marks the cell interrupted
	}
	sent := streams.results
	slices.SortStableFunc(sent, func(a, b streamResult) int { return a.res.Sent.Compare(b.res.Sent) })
	results := make([]*openai.StreamResult, len(sent))
	run.Requests = make([]measure.Request, len(sent))
	for i, sr := range sent {
		results[i] = sr.res
		run.Requests[i] = measure.RecordOf(sr.res, r.clock)
		run.Requests[i].Stream = sr.stream
		if sr.stamp != nil {
			sr.stamp(&run.Requests[i])
		}
	}
	r.countText(ctx, run, results)
	r.calibrateChunks(ctx, spec, run, keepText)
	return run
}

// cellStreams are a cell's N closed-loop streams: each sends its next request as its
// last ends, and retries under the policy.
type cellStreams struct {
	mu      sync.Mutex
	results []streamResult
	gaveUp  atomic.Bool
	wg      sync.WaitGroup
}

// streamResult is one request's result, the stream (from 1) that sent it, and what
// its record carries of the workload (nil: nothing).
type streamResult struct {
	stream int
	res    *openai.StreamResult
	stamp  func(*measure.Request)
}

// startStreams starts the cell's streams. A stream that has no success before its
// first token within the retry budget gives up and cancels the cell: the window needs
// all N streams.
func (r *Runner) startStreams(ctx context.Context, cancel context.CancelFunc, spec cellSpec, obs *cellObserver, keepText bool) *cellStreams {
	cs := &cellStreams{}
	policy := r.Opts.RetryPolicy()
	started := time.Now()
	for stream := 1; stream <= spec.concurrency; stream++ {
		cs.wg.Add(1)
		go func() {
			defer cs.wg.Done()
			so := &streamObserver{cell: obs, first: new(atomic.Bool)}
			failures := 0
			for ctx.Err() == nil {
				res, stamp := spec.send(ctx, stream, so, keepText)
				if res == nil {
					return
				}
				cs.mu.Lock()
				cs.results = append(cs.results, streamResult{stream, res, stamp})
				cs.mu.Unlock()
				if res.Outcome.Success() {
					failures = 0
					continue
				}
				failures++
				if !so.first.Load() && time.Since(started) > policy.Budget {
					cs.gaveUp.Store(true)
					cancel()
					return
				}
				if !policy.Wait(ctx, failures, res.RetryAfter) {
					return
				}
			}
		}()
	}
	return cs
}

// window waits for every stream's first token, then measures the window: its open and
// close on the run's clock, the client's and the machine's CPU, the server's gauges
// inside it (the ramp-up, where requests wait a step to be admitted, is not queueing).
// It returns the monitor if it is still running (the window never opened).
func (r *Runner) window(ctx context.Context, run *CellRun, spec cellSpec, obs *cellObserver, cs *cellStreams, monitor measure.Monitor) measure.Monitor {
	startTimeout := r.Opts.StartTimeout
	if startTimeout == 0 {
		startTimeout = 5 * time.Minute
	}
	select {
	case open := <-obs.opened:
		cpuOpen, machineOpen := measure.CPUTime(), r.machineCPU()
		if monitor != nil {
			monitor.Start(ctx, 500*time.Millisecond)
		}
		timer := time.NewTimer(time.Until(open.Add(spec.duration)))
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
		}
		closeAt := time.Now()
		run.Open, run.Close = r.clock.NS(open), r.clock.NS(closeAt)
		run.ClientCPUNs = int64(measure.CPUTime() - cpuOpen)
		run.MachineCPU = machineOpen.BusySince(r.machineCPU())
		if monitor != nil {
			// The closing scrape closes the counters at the window's end, before the
			// streams are cancelled.
			run.Server = measure.StopMonitor(monitor)
		}
		return nil
	case <-time.After(startTimeout):
		run.Failed = fmt.Sprintf("only %d of %d streams had a first token after %s", obs.started.Load(), spec.concurrency, startTimeout)
	case <-ctx.Done():
		run.Failed = "streams could not start"
		if cs.gaveUp.Load() {
			run.Failed = fmt.Sprintf("a stream had no success for %s (the retry budget) before its first token", r.Opts.RetryPolicy().Budget)
		}
	}
	return monitor
}

// countText asks the server's tokenize route how many tokens the text of each request
// held whose tokens the server did not count: those it did not finish (cancelled at
// the window's end, or broken). Finished requests have their usage.
func (r *Runner) countText(ctx context.Context, run *CellRun, results []*openai.StreamResult) {
	tok := r.Server.TextTokenizer
	if tok == nil {
		return
	}
	for i, res := range results {
		q := &run.Requests[i]
		if len(res.Text) == 0 || res.ChunkUsage || (res.Finished() && res.Usage != nil) {
			continue
		}
		ids, err := tok.Tokenize(ctx, string(res.Text))
		if err != nil {
			continue // uncounted: the cell falls back to the ratio of finished requests
		}
		q.TextTokens = openai.Ptr(len(ids))
	}
}

// machineCPU reads the machine's CPU counters when the server is on this machine.
func (r *Runner) machineCPU() measure.MachineTicks {
	if !r.Server.Local {
		return measure.MachineTicks{}
	}
	return measure.ReadMachineTicks()
}
