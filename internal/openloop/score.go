package openloop

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// RateInput is what scoring a rate cell needs besides its requests: the plan, the
// targets and what the server and the client said during the cell. It is recorded in
// the events log, so a re-score sees exactly what the live run saw.
type RateInput struct {
	Rate           rundoc.Rate `json:"rate_rps"`
	Arrival        string      `json:"arrival"`
	Seed           uint64      `json:"seed"`
	MaxConcurrency int         `json:"max_concurrency,omitempty"`
	// DrainNs is how long the cell waited after its last arrival.
	DrainNs int64 `json:"drain_ns"`
	// PrefixTokens is the shared prefix every prompt starts with (0: unique prompts);
	// Overhead what the server adds to any prompt (a chat template), which a prefix
	// cache may hold even of a unique prompt.
	PrefixTokens int         `json:"prefix_tokens"`
	Overhead     int         `json:"overhead_tokens"`
	SLO          *rundoc.SLO `json:"slo,omitempty"`
	// IgnoreEOSKnown: the server honours ignore_eos, so an early end is a fault.
	IgnoreEOSKnown bool                  `json:"ignore_eos_known,omitempty"`
	Server         *rundoc.ServerMetrics `json:"server_metrics,omitempty"`
	// ClientCPU is the share of all CPUs the client process used during the cell.
	ClientCPU float64 `json:"client_cpu,omitempty"`
	// SearchStep is the cell's place in a --find-max-rate search (RateCell's).
	SearchStep int `json:"search_step,omitempty"`
	// PromptSource is what the cell's prompts were made of (empty in logs from
	// before, whose prompts were random words).
	PromptSource string `json:"prompt_source,omitempty"`
	// SliceNs is the series' slice (measure.SliceNs; 0 in logs from before series,
	// whose cells are re-scored without one, as they were).
	SliceNs int64 `json:"slice_ns,omitempty"`
	// Energy is the power trace over the cell's span and the price, when the run was
	// metered or priced.
	Energy *measure.EnergyInput `json:"energy,omitempty"`
	// Workload says the cell sent a workload (not random words), whose figures it
	// scores (measure.ScoreWorkload).
	Workload *WorkloadInput `json:"workload,omitempty"`
}

// WorkloadInput is what scoring a workload's cell needs: its sessions' turns (0: not
// sessions), and whether its ideal cache hits bound what the server may find
// (measure.Workload.IdealBounds).
type WorkloadInput struct {
	Turns       int  `json:"turns,omitempty"`
	IdealBounds bool `json:"ideal_bounds,omitempty"`
}

// Thresholds of the rate cell's saturation evidence, each a judgement stated once
// (its validity rules' are measure's; evidence.go says what the cell gives them).
const (
	// ttftRise: TTFT whose median over the last third of the schedule is more than
	// this many times the first third's, and more than ttftRiseMin above it, grew
	// with a queue.
	ttftRise    = 2.0
	ttftRiseMin = 50.0 // ms
	// achievedShare: completions slower than this share of the schedule's pace
	// fell behind it.
	achievedShare = 0.9
)

// latencySample is one request's value of a latency (measure.Sample).
type latencySample = measure.Sample

// requestTimes are one request's latencies, from its scheduled time.
type requestTimes struct {
	ttft, e2e, tpot   latencySample
	ttfo              latencySample // to the first answer token
	hasTTFT, hasE2E   bool
	hasTTFO           bool
	hasTPOT           bool
	finished, failed  bool
	unfinished        bool
	slotWait, sendLag float64
	hasSend           bool
	gaps              []float64
	tokens            int
}

func timesOf(q *measure.Request) requestTimes {
	var t requestTimes
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	base := q.Scheduled
	t.tokens = q.OutputTokens()
	t.failed = q.Error != ""
	t.finished = q.Finished()
	t.unfinished = !t.failed && !t.finished
	if wait, ok := q.SlotWait(); ok {
		t.slotWait = ms(wait)
		if q.Sent != 0 {
			t.sendLag, t.hasSend = ms(q.Sent-q.Slot), true
		}
	}
	if q.FirstToken != 0 {
		t.ttft, t.hasTTFT = latencySample{V: ms(q.FirstToken - base)}, true
	} else if t.unfinished && q.End != 0 {
		t.ttft, t.hasTTFT = latencySample{V: ms(q.End - base), Censored: true}, true
	}
	if q.FirstAnswer != 0 {
		t.ttfo, t.hasTTFO = latencySample{V: ms(q.FirstAnswer - base)}, true
	} else if t.unfinished && q.End != 0 {
		t.ttfo, t.hasTTFO = latencySample{V: ms(q.End - base), Censored: true}, true
	}
	switch {
	case t.finished:
		t.e2e, t.hasE2E = latencySample{V: ms(q.End - base)}, true
		if t.tokens >= 2 && t.hasTTFT {
			t.tpot, t.hasTPOT = latencySample{V: (t.e2e.V - t.ttft.V) / float64(t.tokens-1)}, true
		}
	case t.unfinished && q.End != 0:
		t.e2e, t.hasE2E = latencySample{V: ms(q.End - base), Censored: true}, true
	}
	for i := 1; i < len(q.Chunks); i++ {
		c := q.Chunks[i]
		n := int(c[1])
		g := ms(c[0]-q.Chunks[i-1][0]) / float64(n)
		for k := 0; k < n; k++ {
			t.gaps = append(t.gaps, g)
		}
	}
	return t
}

// ScoreRate computes a rate cell from what every request saw, as methodology.md
// defines it. It is the one place those numbers come from: the live run and a
// re-score of its events log both call it.
func ScoreRate(reqs []measure.Request, in RateInput) rundoc.RateCell {
	cell := rundoc.RateCell{RateRPS: in.Rate, Arrival: in.Arrival, Seed: in.Seed, Status: rundoc.StatusValid, SearchStep: in.SearchStep}
	f := &rundoc.RateFigures{Requests: len(reqs), MaxConcurrency: in.MaxConcurrency, LatencyFrom: "scheduled", Server: in.Server}
	if in.Rate.IsInf() {
		f.LatencyFrom = "slot"
	}
	cell.RateFigures = f
	s := gatherRate(reqs, f)
	rateFigures(f, s, in)
	f.PeakInFlight = peakInFlight(reqs)
	f.Series = measure.Series(reqs, measure.SeriesSpan{From: s.firstSched, To: s.last, Slice: time.Duration(in.SliceNs),
		Origin: func(q *measure.Request) int64 { return q.Scheduled }})
	if in.SliceNs > 0 { // a cell logged before series re-scores as its document was: no drift
		f.RateDrift = measure.RateDrift(measure.StreamRates(reqs, s.firstSched, s.lastSched))
	}
	if reasoning, answer, ok := measure.ReasoningSplit(reqs); ok {
		ttfo := measure.LatencyStats(s.ttfo)
		f.TTFOMs, f.ReasoningTokens, f.AnswerTokens = &ttfo, &reasoning, &answer
	}
	scoreSLO(f, s.times, s.span(), in.SLO)
	judge(&cell, evidence(f, reqs, s, in))
	f.Saturation = saturationEvidence(reqs, s.times, f, in)
	if len(f.Saturation) > 0 {
		f.Flags = append(f.Flags, "saturated")
	}
	if f.FailedRequests > 0 {
		f.Flags = append(f.Flags, "errors")
		f.ErrorSamples = measure.ErrorSamples(reqs)
	}
	if f.UnfinishedRequests > 0 {
		f.Flags = append(f.Flags, "unfinished")
	}
	if f.RateDrift != nil {
		f.Flags = append(f.Flags, rundoc.FlagRateDrift)
	}
	if measure.DraftedOnRandomWords(in.Server, in.PromptSource) {
		f.Flags = append(f.Flags, measure.FlagSpecRandomWords)
	}
	if f.CompletedRequests == 0 {
		cell.Status, cell.Reason = rundoc.StatusFailed, "no request completed"
		if len(f.ErrorSamples) > 0 {
			cell.Reason += ": " + f.ErrorSamples[0]
		}
	}
	if in.Workload != nil {
		cell.Workload = measure.ScoreWorkload(reqs, measure.WorkloadSpan{From: s.firstSched, To: s.last, Turns: in.Workload.Turns, Server: in.Server})
	}
	if in.Energy != nil {
		// Over the span its throughput is measured on.
		cell.Energy = in.Energy.Decode(measure.Time(s.firstSched), measure.Time(s.last), f.OutputTokens, f.TotalTokS)
	}
	return cell
}

// rateSpan is the span a cell's throughput and energy are measured on: its first
// scheduled send to its last request's end.
func rateSpan(reqs []measure.Request) (start, end time.Time) {
	s := gatherRate(reqs, &rundoc.RateFigures{})
	return measure.Time(s.firstSched), measure.Time(s.last)
}

// rateSamples are a cell's per-request values, gathered once.
type rateSamples struct {
	times                       []requestTimes
	ttft, e2e, tpot, itl, ttfo  []latencySample
	slotWait, sendLag           []latencySample
	late                        int   // requests sent over measure.LateSend late
	firstSched, lastSched, last int64 // on the run's clock
	coalesced                   bool
}

// gatherRate reads every request's times and counts outcomes and tokens into f.
func gatherRate(reqs []measure.Request, f *rundoc.RateFigures) *rateSamples {
	s := &rateSamples{times: make([]requestTimes, len(reqs)), coalesced: coalesced(reqs)}
	for i := range reqs {
		q := &reqs[i]
		t := timesOf(q)
		s.times[i] = t
		if s.firstSched == 0 || q.Scheduled < s.firstSched {
			s.firstSched = q.Scheduled
		}
		s.lastSched = max(s.lastSched, q.Scheduled)
		s.last = max(s.last, q.End)
		f.OutputTokens += t.tokens
		switch {
		case t.finished:
			f.CompletedRequests++
		case t.failed:
			f.FailedRequests++
		default:
			f.UnfinishedRequests++
		}
		if t.hasTTFT {
			s.ttft = append(s.ttft, t.ttft)
		}
		if t.hasE2E {
			s.e2e = append(s.e2e, t.e2e)
		}
		if t.hasTTFO {
			s.ttfo = append(s.ttfo, t.ttfo)
		}
		if t.hasTPOT {
			s.tpot = append(s.tpot, t.tpot)
		}
		for _, g := range t.gaps {
			s.itl = append(s.itl, latencySample{V: g})
		}
		if q.Slot != 0 {
			s.slotWait = append(s.slotWait, latencySample{V: t.slotWait})
		}
		if t.hasSend {
			s.sendLag = append(s.sendLag, latencySample{V: t.sendLag})
			if t.sendLag > measure.Millis(measure.LateSend) {
				s.late++
			}
		}
	}
	return s
}

// rateFigures computes the cell's rates and latency summaries from its samples.
func rateFigures(f *rundoc.RateFigures, s *rateSamples, in RateInput) {
	if span := s.span(); span > 0 {
		f.DurationS = stats.Round(span, 3)
		f.TotalTokS = stats.Round(float64(f.OutputTokens)/span, 2)
		f.AchievedRPS = measure.RoundPtr(float64(f.CompletedRequests)/span, 3)
	}
	if n := f.Requests; !in.Rate.IsInf() && n >= 2 && s.lastSched > s.firstSched {
		f.OfferedRPS = measure.RoundPtr(float64(n-1)/time.Duration(s.lastSched-s.firstSched).Seconds(), 3)
	}
	f.TTFTMs, f.E2EMs, f.TPOTMs, f.ITLMs = measure.LatencyStats(s.ttft), measure.LatencyStats(s.e2e), measure.LatencyStats(s.tpot), measure.LatencyStats(s.itl)
	rateIntervals(f, s)
	f.ClientSendLagMs = measure.LatencyStats(s.sendLag)
	if in.MaxConcurrency > 0 {
		st := measure.LatencyStats(s.slotWait)
		f.SlotWaitMs = &st
	}
	if p := f.TPOTMs.P50; p != nil && *p > 0 {
		f.PerRequestTokS = measure.RoundPtr(1000 / *p, 2)
	}
	if s.coalesced {
		// Tokens came in few chunks: TPOT is still what a user saw (they got the
		// tokens together), but ITL has few gaps to say how the server decoded.
		f.Flags = append(f.Flags, "tokens_coalesced")
	}
}

// span is the cell's seconds from the first scheduled send to the last end: achieved
// and goodput both divide by it unrounded, so that goodput equals achieved exactly
// when every completed request met the SLO (duration_s is it rounded, for reading).
func (s *rateSamples) span() float64 {
	if s.firstSched == 0 || s.last <= s.firstSched {
		return 0
	}
	return time.Duration(s.last - s.firstSched).Seconds()
}

// scoreSLO counts the requests that met every target. A request that failed or did
// not finish met none; one with a single output token has no TPOT to miss.
func scoreSLO(f *rundoc.RateFigures, times []requestTimes, span float64, slo *rundoc.SLO) {
	if slo == nil || len(times) == 0 {
		return
	}
	met := 0
	for _, t := range times {
		if !t.finished {
			continue
		}
		ok := (slo.TTFTMs == nil || t.ttft.V <= *slo.TTFTMs) &&
			(slo.E2EMs == nil || t.e2e.V <= *slo.E2EMs) &&
			(slo.TPOTMs == nil || !t.hasTPOT || t.tpot.V <= *slo.TPOTMs)
		if ok {
			met++
		}
	}
	ratio := stats.Round(float64(met)/float64(len(times)), 4)
	f.SLOMetRatio = &ratio
	if span > 0 {
		f.GoodputRPS = measure.RoundPtr(float64(met)/span, 3)
	}
	sloIntervals(f, met, len(times), span)
	meets := ratio >= slo.Target
	f.MeetsSLO = &meets
}

// saturationEvidence says why the cell's queue grew, if it did: TTFT rising through
// the schedule, the server's waiting gauge, completions slower than arrivals, or
// requests still unfinished at the drain timeout.
func saturationEvidence(reqs []measure.Request, times []requestTimes, f *rundoc.RateFigures, in RateInput) []string {
	if in.Rate.IsInf() {
		// A burst is beyond every rate by design: it measures the most the server
		// completes, and its queue says nothing about a rate it could sustain.
		return nil
	}
	var ev []string
	// TTFT by scheduled order; a request still waiting for its first token counts
	// with the time it had waited, a lower bound (so the rise is if anything larger).
	var ordered []float64
	idx := make([]int, len(reqs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(reqs[a].Scheduled, reqs[b].Scheduled) })
	for _, i := range idx {
		if times[i].hasTTFT {
			ordered = append(ordered, times[i].ttft.V)
		}
	}
	// A session's later turns carry longer histories: TTFT rising through the schedule
	// is then the workload, and its turns' figures say it (not a queue).
	sessions := in.Workload != nil && in.Workload.Turns > 0
	if n := len(ordered); n >= 9 && !sessions {
		head := slices.Clone(ordered[:n/3])
		tail := slices.Clone(ordered[n-n/3:])
		slices.Sort(head)
		slices.Sort(tail)
		a, b := stats.Quantile(head, 0.5), stats.Quantile(tail, 0.5)
		if b > ttftRise*a && b-a > ttftRiseMin {
			ev = append(ev, fmt.Sprintf("TTFT rose through the schedule: median %.0f ms over the first third of requests, %.0f ms over the last", a, b))
		}
	}
	if s := in.Server; s != nil && s.Waiting != nil && s.Waiting.Mean >= 1 {
		ev = append(ev, fmt.Sprintf("the server's waiting gauge averaged %.1f requests (max %.0f)", s.Waiting.Mean, s.Waiting.Max))
	}
	if pace, ok := schedulePace(reqs, times); ok && !sessions && f.AchievedRPS != nil && f.CompletedRequests >= 10 && *f.AchievedRPS < achievedShare*pace {
		ev = append(ev, fmt.Sprintf("requests completed at %.2f/s, below the schedule's %.2f/s (its arrivals plus an early request's latency)", *f.AchievedRPS, pace))
	}
	if f.UnfinishedRequests > 0 && in.DrainNs > 0 {
		ev = append(ev, fmt.Sprintf("%d requests had not finished %s after the last arrival", f.UnfinishedRequests, time.Duration(in.DrainNs).Round(time.Millisecond)))
	}
	return ev
}

// schedulePace is the completion rate a server that kept up would show: every
// request done by the last arrival plus the latency the first third of requests had
// (when the queue, if any, was short). achieved_rps is measured over the whole cell,
// drain included, so the allowance keeps a slow but steady server from looking
// saturated; one whose backlog grew finishes far later than that.
func schedulePace(reqs []measure.Request, times []requestTimes) (float64, bool) {
	if len(reqs) < 9 {
		return 0, false
	}
	first, last := reqs[0].Scheduled, reqs[0].Scheduled
	for i := range reqs {
		first, last = min(first, reqs[i].Scheduled), max(last, reqs[i].Scheduled)
	}
	var early []float64
	for i := range reqs {
		if reqs[i].Scheduled-first <= (last-first)/3 && times[i].hasE2E && !times[i].e2e.Censored {
			early = append(early, times[i].e2e.V)
		}
	}
	if len(early) == 0 {
		return 0, false
	}
	slices.Sort(early)
	span := time.Duration(last-first).Seconds() + stats.Quantile(early, 0.5)/1000
	return float64(len(reqs)) / span, span > 0
}

// coalesced reports whether the cell's requests brought fewer than half as many
// chunks as tokens: a server (or a proxy) that batches its stream.
func coalesced(reqs []measure.Request) bool {
	chunks, tokens := 0, 0
	for i := range reqs {
		chunks += len(reqs[i].Chunks)
		tokens += reqs[i].Tokens
	}
	return tokens > 0 && 2*chunks < tokens
}

// peakInFlight is the most requests between send and end at one instant.
func peakInFlight(reqs []measure.Request) int {
	var spans []measure.Span
	for i := range reqs {
		if q := &reqs[i]; q.Sent != 0 && q.End != 0 {
			spans = append(spans, measure.Span{From: q.Sent, To: q.End})
		}
	}
	return measure.PeakOverlap(spans)
}
