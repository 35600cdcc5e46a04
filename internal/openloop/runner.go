package openloop

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/prompt"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// Runner measures an open-loop run: a cell per rate of the document's plan, or a
// --find-max-rate search, each cell planned (schedule, lengths, prompts), executed
// open loop and scored by ScoreRate.
type Runner struct {
	Server *measure.Server
	Opts   measure.Options
	// Send, if set, replaces the executor's send (tests; a richer request executor).
	Send sendFunc

	// The invocation's clock and attempt id, which its events carry.
	clock   measure.Clock
	attempt string
}

// Run measures every pending cell of doc, checkpointing after each. On cancellation
// the cell in progress is marked interrupted and measure.ErrInterrupted returned.
func (r *Runner) Run(ctx context.Context, doc *rundoc.Run) error {
	cfg := doc.Config.Rate
	if cfg == nil {
		return fmt.Errorf("the run document has no rate plan")
	}
	builder := &prompt.Builder{API: r.Server.API, Counter: r.Server.Counter, Tokenizer: r.Server.Tokenizer}
	if doc.Config.Seed != nil {
		builder.Seed = *doc.Config.Seed
	}
	r.clock, r.attempt = measure.NewClock(), r.Opts.AttemptID()
	r.Opts.Events.Attempt(r.attempt, r.clock)
	checkpoint := func() error { return r.Opts.Save(doc) }
	if err := r.preflight(ctx, doc, builder); err != nil {
		return err
	}
	measureCell := func(i int) error {
		cell := &doc.Rate[i]
		if r.Opts.Progress != nil {
			total := len(doc.Rate)
			if cfg.Search != nil {
				total = max(total, cfg.Search.MaxSteps)
			}
			if pp, ok := r.Opts.Progress.(measure.PlanProgress); ok {
				pp.Left(measure.PlanLeft{Windows: time.Duration(total-i) * doc.Config.Duration()})
			}
			r.Opts.Progress.Step(fmt.Sprintf("rate %s req/s", cell.RateRPS), i, total, doc.Config.Duration())
		}
		r.measure(ctx, i+1, cell, doc, builder)
		if ctx.Err() != nil {
			cell.Status, cell.Reason, cell.RateFigures = rundoc.StatusInterrupted, "the run was stopped during this cell", nil
			if err := checkpoint(); err != nil {
				return err
			}
			return measure.ErrInterrupted
		}
		if r.Opts.Progress != nil {
			r.Opts.Progress.Log(rateLine(cell))
		}
		return checkpoint()
	}
	if cfg.Search != nil {
		for {
			var tried []rundoc.RateCell
			for _, c := range doc.Rate {
				if measure.StatusDone(c.Status) {
					tried = append(tried, c)
				}
			}
			// A cell interrupted mid-search is measured again.
			doc.Rate = slices.DeleteFunc(doc.Rate, func(c rundoc.RateCell) bool { return !measure.StatusDone(c.Status) })
			next, done, out := NextSearchRate(*cfg.Search, tried)
			doc.MaxRate = &out
			if done {
				break
			}
			if ctx.Err() != nil {
				return measure.ErrInterrupted
			}
			doc.Rate = append(doc.Rate, rundoc.RateCell{RateRPS: next, Arrival: cfg.Arrival, Status: rundoc.StatusPending, SearchStep: len(tried) + 1})
			if err := measureCell(len(doc.Rate) - 1); err != nil {
				return err
			}
		}
	} else {
		for i := range doc.Rate {
			if measure.StatusDone(doc.Rate[i].Status) {
				continue
			}
			if ctx.Err() != nil {
				return measure.ErrInterrupted
			}
			if err := measureCell(i); err != nil {
				return err
			}
		}
	}
	if r.Opts.Progress != nil {
		r.Opts.Progress.Step("done", len(doc.Rate), len(doc.Rate), 0)
	}
	return checkpoint()
}

func rateLine(c *rundoc.RateCell) string {
	label := fmt.Sprintf("rate %6s req/s", c.RateRPS)
	if c.RateRPS.IsInf() {
		label = "rate    inf      "
	}
	f := c.RateFigures
	if f == nil {
		return fmt.Sprintf("%s  %s: %s", label, c.Status, c.Reason)
	}
	s := fmt.Sprintf("%s  achieved %s  TTFT p50 %s  TPOT p50 %s  %8.1f tok/s  %s", label,
		fmtOpt(f.AchievedRPS, "%.2f/s"), fmtOpt(f.TTFTMs.P50, "%.0f ms"), fmtOpt(f.TPOTMs.P50, "%.1f ms"), f.TotalTokS, c.Status)
	if f.SLOMetRatio != nil {
		s += fmt.Sprintf("  SLO met %.1f%%", *f.SLOMetRatio*100)
	}
	if c.Saturated() {
		s += "  SATURATED"
	}
	if c.Reason != "" {
		s += ": " + c.Reason
	}
	return s
}

func fmtOpt(v *float64, format string) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf(format, *v)
}

// measure plans, executes and scores one cell in place.
func (r *Runner) measure(ctx context.Context, cellNo int, cell *rundoc.RateCell, doc *rundoc.Run, builder *prompt.Builder) {
	cfg := doc.Config.Rate
	step := cell.SearchStep
	fail := func(reason string) {
		*cell = rundoc.RateCell{RateRPS: cell.RateRPS, Arrival: cfg.Arrival, Status: rundoc.StatusFailed, Reason: reason, SearchStep: step}
	}
	pc, err := r.prepare(ctx, cell.RateRPS, doc, builder)
	if err != nil {
		fail(err.Error())
		return
	}
	send := r.sender()
	if pc.warm != nil {
		// The shared prefix is warmed by one untimed request, so every request of
		// the cell finds it cached (as the matrix warms its rows' contexts).
		res := send(ctx, *pc.warm, 1, nil)
		r.Opts.Events.Request(measure.EventMeta{Attempt: r.attempt, Phase: "warmup", Cell: cellNo}, measure.RecordOf(res, r.clock))
		if res.Err != nil {
			fail("warming the shared prefix: " + res.Err.Error())
			return
		}
	}
	drain := time.Duration(cfg.DrainTimeoutS * float64(time.Second))
	exec := &rateExecutor{send: send, maxConcurrency: cfg.MaxConcurrency, drain: drain, obs: measure.TokenObserver{Progress: r.Opts.Progress}, startDelay: 10 * time.Millisecond}
	if pc.sessions != nil {
		exec.turn = r.turnSender(pc.sessions)
	}
	reqs, metrics, clientCPU := r.execute(ctx, exec, pc, cell.RateRPS, doc.Config.Duration())
	if ctx.Err() != nil {
		return // the caller marks the cell interrupted
	}
	in := RateInput{
		Rate: cell.RateRPS, Arrival: pc.arr.String(), Seed: pc.seed, MaxConcurrency: cfg.MaxConcurrency,
		DrainNs: int64(drain), PrefixTokens: pc.prefix, Overhead: pc.overhead, SLO: cfg.SLO,
		IgnoreEOSKnown: r.Server.IgnoreEOSKnown, Server: metrics, ClientCPU: clientCPU, SearchStep: step,
		PromptSource: prompt.RandomWords, // Unique's prompts are random words, a document or not
		SliceNs:      measure.SliceNs(r.Opts.Timeslice),
	}
	if w := r.Opts.Workload; w != nil {
		in.PromptSource = w.PromptSource()
		in.Workload = &WorkloadInput{IdealBounds: w.IdealBounds()}
		if w.Sessions != nil {
			in.Workload.Turns = w.Sessions.Turns
		}
	}
	*cell = r.score(ctx, cellNo, reqs, in)
}

// preparedCell is a rate cell ready to send: its arrivals and schedule, its prompts
// (or its sessions, whose prompts come from their replies), and what the cache may
// hold of them.
type preparedCell struct {
	arr      rundoc.Arrival
	seed     uint64
	plan     *RatePlan
	payloads []prompt.Payload
	// ideal is each request's ideal cache hits, where its workload says (nil: none).
	ideal []*int
	// warm is the shared prefix alone (--prefix-share), warmed before the cell;
	// prefix its tokens and overhead the template's.
	warm             *prompt.Payload
	prefix, overhead int
	sessions         *measure.Sessions
}

// prepare draws a cell's schedule and lengths from its seed and builds its prompts:
// random words, or its workload's (workload.go).
func (r *Runner) prepare(ctx context.Context, rate rundoc.Rate, doc *rundoc.Run, builder *prompt.Builder) (*preparedCell, error) {
	cfg := doc.Config.Rate
	runSeed := int64(1)
	if doc.Config.Seed != nil {
		runSeed = *doc.Config.Seed
	}
	seed := CellSeed(runSeed, rate)
	if w := r.Opts.Workload; w != nil && (w.Trace != nil || w.Schedule != nil) {
		return r.prepareReplay(ctx, w, rate, cfg, builder, seed)
	}
	arr, err := rundoc.ParseArrival(cfg.Arrival)
	if err != nil {
		return nil, err
	}
	dist, err := rundoc.ParseLenDist(cfg.LenDist)
	if err != nil {
		return nil, err
	}
	requests := cfg.Requests
	if rate.IsInf() {
		requests = InfRequests(cfg, doc.Config.Duration())
	}
	plan, err := PlanRate(rate, arr, dist, cfg.InputLen, cfg.OutputLen, doc.Config.Duration(), requests, seed)
	if err != nil {
		return nil, err
	}
	pc := &preparedCell{arr: arr, seed: seed, plan: plan}
	if w := r.Opts.Workload; w != nil {
		return pc, r.prepareWorkload(ctx, w, pc, cfg, builder)
	}
	prefix := int(math.Round(cfg.PrefixShare * float64(cfg.InputLen)))
	set, err := builder.Unique(ctx, plan.Input, prefix, seed, r.Server.Exact)
	if err != nil {
		return nil, fmt.Errorf("building prompts: %w", err)
	}
	if set.Exact {
		copy(plan.Input, set.Lengths) // what was built and counted is what is checked
	}
	pc.payloads, pc.warm, pc.prefix, pc.overhead = set.Payloads, set.PrefixPayload, set.Prefix, set.Overhead
	return pc, nil
}

// sender is how the cell's requests are sent: the test's, or the server's.
func (r *Runner) sender() sendFunc {
	if r.Send != nil {
		return r.Send
	}
	return func(ctx context.Context, p prompt.Payload, maxTokens int, obs openai.Observer) *openai.StreamResult {
		return r.Server.Send(ctx, p, maxTokens, obs, false)
	}
}

// execute runs the cell's schedule open loop while the server's gauges are read (while
// requests arrive: the drain after the last arrival is not load the schedule applied;
// a rate-inf burst arrives at once, so its gauges are read for the whole cell), and
// returns its requests, the gauges and the client's share of the CPUs.
func (r *Runner) execute(ctx context.Context, exec *rateExecutor, pc *preparedCell, rate rundoc.Rate, duration time.Duration) ([]RateRequest, *rundoc.ServerMetrics, float64) {
	var monitor measure.Monitor
	if r.Opts.NewMonitor != nil {
		monitor = r.Opts.NewMonitor()
	}
	var metrics *rundoc.ServerMetrics
	stopMonitor := func() {
		if monitor == nil {
			return
		}
		metrics = measure.StopMonitor(monitor)
		monitor = nil
	}
	if !rate.IsInf() {
		exec.arrivalsDone = stopMonitor
	}
	if monitor != nil {
		monitor.Start(ctx, min(500*time.Millisecond, max(100*time.Millisecond, duration/8)))
	}
	cpuStart, wallStart := measure.CPUTime(), time.Now()
	var reqs []RateRequest
	if pc.sessions != nil {
		reqs = exec.runSessions(ctx, pc.plan)
	} else {
		reqs, _ = exec.run(ctx, pc.plan, pc.payloads, pc.ideal)
	}
	cpu, wall := measure.CPUTime()-cpuStart, time.Since(wallStart)
	stopMonitor()
	clientCPU := 0.0
	if wall > 0 && cpu > 0 {
		clientCPU = stats.Round(float64(cpu)/float64(wall)/float64(runtime.NumCPU()), 3)
	}
	return reqs, metrics, clientCPU
}

// score logs the cell's requests and what scoring them needs, and scores them in the
// form the log holds them.
func (r *Runner) score(ctx context.Context, cellNo int, reqs []RateRequest, in RateInput) rundoc.RateCell {
	recs := Records(reqs, r.clock)
	meta := measure.EventMeta{Attempt: r.attempt, Phase: "rate", Cell: cellNo}
	for _, q := range recs {
		r.Opts.Events.Request(meta, q)
	}
	if r.Opts.Telemetry != nil || r.Opts.Price != nil {
		start, end := rateSpan(recs)
		in.Energy = r.Opts.ReadEnergy(ctx, start, end)
	}
	logRateCell(r.Opts.Events, r.attempt, cellNo, in)
	return ScoreRate(recs, in)
}

// preflight is the stream check (measure.Preflight) before the first schedule: a
// server that does not stream, or cannot generate at all, stops the run before any
// arrival is sent, with the reason in the document. A run with nothing left to
// measure skips it.
func (r *Runner) preflight(ctx context.Context, doc *rundoc.Run, builder *prompt.Builder) error {
	if doc.Config.Rate.Search == nil && !slices.ContainsFunc(doc.Rate, func(c rundoc.RateCell) bool { return !measure.StatusDone(c.Status) }) {
		return nil
	}
	return measure.Preflight(ctx, r.Server, builder, &r.Opts, doc, func(reason string) {
		for i := range doc.Rate {
			if c := &doc.Rate[i]; !measure.StatusDone(c.Status) {
				c.Status, c.Reason = rundoc.StatusFailed, reason
			}
		}
	})
}
