package bench

import (
	"math"
	"slices"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// CellRun is what executing a cell produced: everything its figures and checks are
// computed from, and nothing computed. The events log holds it (a "cell" event and
// the cell's "request" events), so ScoreCell gives the same cell live and in Rescore.
type CellRun struct {
	Context     int     `json:"context"`
	Concurrency int     `json:"concurrency"`
	DurationS   float64 `json:"duration_s"`
	MaxOutput   int     `json:"max_output"`
	// PromptTokens is what the server counted for the row's request 0, PromptTarget
	// what was asked.
	PromptTokens   int  `json:"prompt_tokens"`
	PromptTarget   int  `json:"prompt_target"`
	IgnoreEOSKnown bool `json:"ignore_eos_known,omitempty"`
	// Open and Close are the window on the run's clock; zero when it never opened,
	// and Failed says why.
	Open   int64  `json:"open_ns,omitempty"`
	Close  int64  `json:"close_ns,omitempty"`
	Failed string `json:"failed,omitempty"`
	// ClientCPUNs is the measuring process's CPU time inside the window, on CPUs
	// cores; MachineCPU the share of the whole machine's CPU time that was busy then
	// (measured when the server is on this machine).
	ClientCPUNs int64 `json:"client_cpu_ns,omitempty"`
	CPUs        int   `json:"cpus,omitempty"`
	// CeilingTokS is the client's own ceiling on this machine (Client.CeilingTokS),
	// when the run measured it: a cell faster than half of it is flagged.
	CeilingTokS float64               `json:"client_ceiling_tok_s,omitempty"`
	MachineCPU  *float64              `json:"machine_cpu,omitempty"`
	Server      *rundoc.ServerMetrics `json:"server_metrics,omitempty"`
	// Settle is the wait for the server to go idle before the cell.
	Settle *Settle `json:"settle,omitempty"`
	// PromptSource is what the row's context was made of (prompt.Builder.Source;
	// empty in logs from before, whose prompts were random words).
	PromptSource string `json:"prompt_source,omitempty"`
	// SliceNs is the series' slice (measure.SliceNs; 0 in logs from before series,
	// whose cells are re-scored without series or rate_drift, as they were).
	SliceNs int64 `json:"slice_ns,omitempty"`
	// Workload says the cell sent a workload's requests (workload.go).
	Workload *CellWorkload     `json:"workload,omitempty"`
	Requests []measure.Request `json:"-"`
}

// Settle is a wait before a measurement for the server to finish what the previous
// one left running.
type Settle struct {
	WaitMs float64 `json:"wait_ms"`
	// By is "gauge" (the server's running gauge reached 0), "gauge_timeout" (it did
	// not within the limit; Running is its last value) or "time" (no gauge: a fixed
	// settle time).
	By      string   `json:"by"`
	Running *float64 `json:"running,omitempty"`
}

// ScoreCell computes a measured cell — figures, flags, status — from what executing it
// produced. It is pure: the live run and Rescore call it on the same CellRun.
func ScoreCell(run *CellRun) rundoc.DecodeCell {
	cell := rundoc.DecodeCell{Context: run.Context, Concurrency: run.Concurrency}
	if run.Open == 0 {
		cell.Status, cell.Reason = rundoc.StatusFailed, run.Failed
		if e := measure.FirstError(run.Requests); e != "" {
			cell.Reason += ": " + e
		}
		cell.CellDetail = &rundoc.CellDetail{Requests: len(run.Requests), Errors: measure.Failures(run.Requests),
			ErrorSamples: measure.ErrorSamples(run.Requests), Server: run.Server, Outcomes: measure.Outcomes(run.Requests)}
		addSettle(cell.CellDetail, run.Settle)
		return cell
	}
	// The counts are resolved over every request, the calibration's too (chunkcalib.go);
	// the figures come from the cell's own.
	all := resolveCounts(run.Requests)
	win := span{run.Open, run.Close}
	n := measuredRequests(run.Requests)
	own := *run
	own.Requests = run.Requests[:n]
	c := all.head(n)
	w := cellFigures(own.Requests, c, win)
	s := &scoring{run: &own, w: w, source: weakest(w.sources), firstError: measure.FirstError(own.Requests),
		bound: boundCounts(run.Requests, all, win, w.stats.OutputTokens)}
	s.tpotBound = tpotBound(run.Requests, all, win, s.bound)
	d := &s.w.detail
	s.describe(c)
	if k := len(run.Requests) - n; k > 0 {
		d.CalibrationRequests = k
		if slices.ContainsFunc(run.Requests[n:], func(q measure.Request) bool { return q.Finished() && q.Usage != nil }) {
			addFlag(d, "chunks_calibrated")
		}
	}
	fig, stats := s.w.fig, s.w.stats
	cell.DecodeFigures, cell.WindowStats, cell.CellDetail = &fig, &stats, d
	if win.seconds() > 0 {
		b := batchesOf(own.Requests, c, win)
		cell.CellIntervals = cellIntervals(own.Requests, b, fig)
		flagDrift(run, d, b)
	}
	d.Series = cellSeries(run, own.Requests, c)
	if wl := run.Workload; wl != nil {
		cell.Workload = measure.ScoreWorkload(own.Requests, measure.WorkloadSpan{From: run.Open, To: run.Close, Turns: wl.Turns, Server: run.Server})
	}

	cell.Status = rundoc.StatusValid
	failed, reason := measure.Judge(s.evidence())
	for _, f := range failed {
		addFlag(d, f)
	}
	if reason != "" {
		cell.Status, cell.Reason = rundoc.StatusInvalid, reason
	}
	return cell
}

// describe fills what the cell records beside its figures: counts side by side,
// timing resolution, CPU, cache, queueing, and the flags that inform without
// invalidating.
func (s *scoring) describe(c counting) {
	run, d := s.run, &s.w.detail
	d.ErrorSamples = measure.ErrorSamples(run.Requests)
	d.Outcomes = measure.Outcomes(run.Requests)
	d.Server = run.Server
	d.PromptTokens = run.PromptTokens
	if run.PromptTarget > 0 && run.PromptTokens == 0 {
		addFlag(d, "prompt_length_uncounted")
	}
	addSettle(d, run.Settle)
	t := s.tally()
	s.describeCounts(c, t)
	s.describeTiming(t)
	s.describeCPU()
	s.describeCache(t)
	s.describeQueue()
	describeReasoning(d, run.Requests)
	if measure.DraftedOnRandomWords(run.Server, run.PromptSource) {
		addFlag(d, measure.FlagSpecRandomWords)
	}
}

// requestTally is what describe sums over the cell's requests.
type requestTally struct {
	serverTokens, withUsage, cached, prompted, skipped, events, reads int
	haveCached                                                        bool
}

// tally sums the requests' counts, and counts the finished ones, those that ended
// before max output and those sent again on a new connection; it measures what the
// early ends can have cost the window.
func (s *scoring) tally() requestTally {
	run, d := s.run, &s.w.detail
	var t requestTally
	for i := range run.Requests {
		q := &run.Requests[i]
		t.skipped += q.Skipped
		t.events += q.Events
		t.reads += q.Reads
		d.Reconnects += q.Reconnects
		s.speculative = s.speculative || q.Speculative
		if q.Finished() {
			s.finished++
			if q.EndedEarly(q.Asked(run.MaxOutput)) {
				d.EndedEarly++
			}
		}
		// The prompt's cache: usage where the request finished, else what its chunks'
		// timings said (llama.cpp), so that requests cut at the window's end count.
		if cached, prompted, ok := q.CachedPrompt(); ok {
			t.haveCached = true
			t.cached += cached
			t.prompted += prompted
		}
		if q.Usage != nil && q.Finished() {
			t.serverTokens += q.Usage.CompletionTokens
			t.withUsage++
		}
	}
	if d.EndedEarly > 0 {
		s.earlyLoss = earlyEndLoss(run.Requests, run.MaxOutput, run.Concurrency, span{run.Open, run.Close})
		d.EarlyEndLoss = openai.Ptr(stats.Round(s.earlyLoss, 4))
	}
	return t
}

// describeCounts sets the client's and the server's counts side by side, where the
// count came from, its bound, and the stalls.
func (s *scoring) describeCounts(c counting, t requestTally) {
	run, d := s.run, &s.w.detail
	d.ClientOutputTokens = openai.Ptr(s.w.clientTokens)
	if t.withUsage > 0 {
		d.ServerOutputTokens = openai.Ptr(t.serverTokens)
	}
	if g := generation(run.Server); g != nil {
		d.ServerGenerationTokens = openai.Ptr(*g)
		if s.source == rundoc.CountClientOnly && *g > 0 && math.Abs(float64(s.w.stats.OutputTokens)-*g) <= counterTolerance**g {
			s.source = rundoc.CountMetricsCounter
		} else if s.source != rundoc.CountClientOnly && *g > 0 && math.Abs(float64(s.w.stats.OutputTokens)-*g) > 2*counterTolerance**g {
			addFlag(d, "server_counter_disagrees")
		}
	}
	d.TokenCountSource = s.source
	if slices.Contains(c.source, rundoc.CountFinishedRatio) && math.Abs(c.ratio-1) > 0.005 || s.w.deviation > 0 {
		addFlag(d, "token_counts_estimated")
	}
	if s.bound.estimated && s.bound.ok {
		d.TokenCountBound = openai.Ptr(stats.Round(s.bound.rel, 4))
	}
	if s.tpotBound > 0 {
		d.TPOTBound = openai.Ptr(stats.Round(s.tpotBound, 4))
	}
	if s.w.deviation > estimatedDeviation {
		addFlag(d, "multi_token_chunks")
	}
	// Stalls: a stream that kept its connection and sent nothing.
	if st := &s.w.streams; st.stalled > 0 {
		addFlag(d, "stalled")
		if st.inFlightNs > 0 {
			d.StallShare = openai.Ptr(stats.Round(float64(st.stallNs)/float64(st.inFlightNs), 4))
		}
	}

}

// describeTiming says how well the gaps between tokens were resolved.
func (s *scoring) describeTiming(t requestTally) {
	d := &s.w.detail
	if s.w.events > 0 {
		s.zeroShare = float64(s.w.merged) / float64(s.w.events)
		d.ZeroGapShare = openai.Ptr(stats.Round(s.zeroShare, 4))
	}
	if measure.GapsUnresolved(s.zeroShare, s.speculative) || d.StreamsArrivedWhole > 0 {
		addFlag(d, "timing_unresolved")
	}
	if t.reads > 0 {
		d.EventsPerRead = openai.Ptr(stats.Round(float64(t.events)/float64(t.reads), 2))
	}
	if t.skipped > 0 {
		d.SkippedEvents = t.skipped
		addFlag(d, "sse_events_skipped")
	}

}

// describeCPU records the client's and the machine's CPU inside the window, and how
// near the client's own ceiling the cell's rate came.
func (s *scoring) describeCPU() {
	run, d := s.run, &s.w.detail
	if run.ClientCPUNs > 0 {
		d.ClientCPUS = openai.Ptr(stats.Round(float64(run.ClientCPUNs)/1e9, 3))
	}
	if wall := run.Close - run.Open; wall > 0 && run.ClientCPUNs > 0 && run.CPUs > 0 {
		s.clientCPU = float64(run.ClientCPUNs) / float64(wall) / float64(run.CPUs)
		d.ClientCPU = openai.Ptr(stats.Round(s.clientCPU, 3))
		d.ClientLimited = s.clientCPU > measure.ClientSaturated
	}
	if c := run.CeilingTokS; c > 0 && s.w.fig.TotalTokS > NearCeiling*c {
		addFlag(d, "client_near_ceiling")
	}
	if m := run.MachineCPU; m != nil {
		d.MachineCPU = openai.Ptr(stats.Round(*m, 3))
		if *m > measure.MachineSaturated {
			addFlag(d, "machine_cpu_saturated")
		}
	}

}

// describeCache records the shared context's cache: per request where the server
// says, else its prefix-cache counters over the window.
func (s *scoring) describeCache(t requestTally) {
	run, d := s.run, &s.w.detail
	if t.haveCached {
		d.CachedTokens = openai.Ptr(t.cached)
		d.CacheHitRatio = openai.Ptr(stats.Round(float64(t.cached)/float64(t.prompted), 4))
	} else if m := run.Server; m != nil && m.PrefixCacheQueries != nil && m.PrefixCacheHits != nil && *m.PrefixCacheQueries > 0 {
		d.CacheHitRatio = openai.Ptr(stats.Round(*m.PrefixCacheHits / *m.PrefixCacheQueries, 4))
	}
	s.cacheRatio = d.CacheHitRatio

}

// describeQueue flags the server's queue (its waiting gauge, or the client's view of
// it), preemptions, errors and early ends.
func (s *scoring) describeQueue() {
	run, d := s.run, &s.w.detail
	n := run.Concurrency
	switch m := run.Server; {
	case m != nil && m.Waiting != nil:
		if m.Waiting.Max > 0 {
			d.Queueing = true
			addFlag(d, "queueing")
		}
	case n > 1 && d.PeakStreaming > 0 && d.PeakStreaming < n:
		// No waiting gauge (Ollama, LM Studio, a metrics-less llama.cpp): requests that
		// never stream at the same time show the queue.
		d.Queueing = true
		addFlag(d, "queueing_inferred")
	}
	if m := run.Server; m != nil && m.Preemptions != nil && *m.Preemptions > 0 {
		d.Preemptions = openai.Ptr(int(*m.Preemptions))
		addFlag(d, "preemption")
	}
	if d.Errors > 0 {
		addFlag(d, "errors")
	}
	if d.EndedEarly > 0 {
		addFlag(d, "ended_early")
	}
}

// describeReasoning records a reasoning model's cell: its time to the first answer
// token, timed from the send as TTFT is, and its tokens by kind.
func describeReasoning(d *rundoc.CellDetail, reqs []measure.Request) {
	reasoning, answer, ok := measure.ReasoningSplit(reqs)
	if !ok {
		return
	}
	d.ReasoningTokens, d.AnswerTokens = openai.Ptr(reasoning), openai.Ptr(answer)
	var ttfo []float64
	for i := range reqs {
		if q := &reqs[i]; q.FirstAnswer != 0 && q.Sent != 0 {
			ttfo = append(ttfo, float64(q.FirstAnswer-q.Sent)/1e6)
		}
	}
	if len(ttfo) > 0 {
		slices.Sort(ttfo)
		d.TTFOMs, d.TTFOSamples = openai.Ptr(stats.Round(stats.Quantile(ttfo, 0.5), 1)), len(ttfo)
	}
}

func addFlag(d *rundoc.CellDetail, f string) {
	if !slices.Contains(d.Flags, f) {
		d.Flags = append(d.Flags, f)
	}
}

func addSettle(d *rundoc.CellDetail, s *Settle) {
	if s != nil {
		d.SettleMs = openai.Ptr(stats.Round(s.WaitMs, 1))
		d.SettledBy = s.By
	}
}

func generation(m *rundoc.ServerMetrics) *float64 {
	if m == nil {
		return nil
	}
	return m.GenerationTokens
}
