package measure

import (
	"fmt"
	"strconv"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// Thresholds of the validity rules (docs/run.md).
const (
	// UnresolvedShare: more of the window's token events than this arriving with the
	// one before means the gaps were not resolved (flag timing_unresolved; not valid
	// only on a saturated machine); requests that arrived whole holding more than this
	// share of the tokens make the measurement not valid.
	UnresolvedShare = 0.10
	// MaxCountBound: an estimated token count bounded within more than this is not
	// valid, and neither are early ends that can have moved the figures by more.
	MaxCountBound = 0.03
	// ClientSaturated: the client process using more than this share of all CPUs.
	ClientSaturated = 0.9
	// MachineSaturated: the machine busier than this.
	MachineSaturated = 0.95
	// stallShare: stalls taking more than this share of the window's stream-seconds
	// make the cell not valid.
	stallShare = 0.10
	// promptTolerance: a prompt the server counted more than this share off its
	// target is off target.
	promptTolerance = 0.01
	// LateSend is how late the client may send a request (against its schedule or its
	// slot) before the request counts as late; more than lateShare of them, or a
	// median over lateMedian, and the latencies are partly the client's.
	LateSend   = 50 * time.Millisecond
	lateShare  = 0.01
	lateMedian = 5 * time.Millisecond
)

// Shape is the load a measurement ran under, which some rules read differently.
type Shape int

const (
	// Window is the matrix's cell: N streams in a closed loop, measured over a window
	// that opens when all N have their first token (internal/bench).
	Window Shape = iota
	// Schedule is an open-loop cell: requests sent on a seeded schedule whatever the
	// server does, measured from the first scheduled send to the last end
	// (internal/openloop).
	Schedule
)

// Evidence is what the validity rules judge a measurement by. A load shape fills what
// it measured; what it does not measure stays zero, and each rule says what it means in
// each shape.
type Evidence struct {
	Shape Shape
	// The window (Window): the seconds asked and measured, its streams and how many
	// were in flight on average (nil: none measured), the first error.
	AskedS, MeasuredS float64
	Streams           int
	AvgInFlight       *float64
	FirstError        string
	// Early ends: the finished requests, those that ended before their output
	// (Request.EndedEarly), the share of the figures they can have moved
	// (early_end_loss), and whether the server honours ignore_eos.
	Finished, EndedEarly int
	EarlyEndLoss         float64
	IgnoreEOSKnown       bool
	// Prompts: the tokens the server counted against those asked, summed over
	// PromptRequests requests (a rate cell's, whose means it reports; 0: the matrix
	// row's one prompt). Tokens 0: the server counted none.
	PromptTokens, PromptTarget, PromptRequests int
	// Token counts: the weakest source a count rests on (client_only: nothing the
	// server said verifies it), the client's count (the window's tokens; a rate cell's
	// finished requests') and the measurement's, the server's generation counter.
	CountSource   string
	ClientTokens  int
	OutputTokens  int
	Generation    *float64
	NoneFinished  bool
	CountMismatch *CountMismatch
	Bound         CountBound
	// TPOTBound is tbt_ms's relative bound where chunk splits were estimated.
	TPOTBound float64
	Stalls    Stalls
	// Timing: requests that arrived whole (Request.ArrivedWhole) and their tokens; the
	// share of token events that arrived with the one before, and whether a
	// speculative server drafted them so; the machine's busy share (nil: not read) and
	// events per read.
	WholeRequests, WholeTokens int
	ZeroShare                  float64
	Speculative                bool
	MachineCPU                 *float64
	EventsPerRead              *float64
	// ClientCPU is the share of all CPUs the client process used.
	ClientCPU float64
	Sends     SendLag
	// The prefix cache: the matrix row's shared context and its hit ratio; a rate
	// cell's cached tokens per request (Cached: the server said) against what its
	// shared prefix and template allow.
	Context          int
	CacheRatio       *float64
	Cached           bool
	CachedPerRequest float64
	CacheAllowed     float64
	PrefixTokens     int
}

// CountMismatch is the client's and the server's counts of a rate cell's finished
// requests, where they disagree beyond what chunks of several tokens explain.
type CountMismatch struct{ Client, Server int }

// CountBound is how well an estimated token count is known: Estimated says some
// tokens rest on an estimate; OK that enough requests the server counted bound it
// (Counted of them), within Rel. A rate cell's estimate is its unfinished requests'
// Uncounted tokens, counted one per chunk where chunks carried PerChunk on average.
type CountBound struct {
	Estimated, OK bool
	Counted       int
	Rel           float64
	Uncounted     int
	PerChunk      float64
}

// Stalls are the window's streams that went silent: how many, the silences past the
// threshold against the stream-time in flight, the longest.
type Stalls struct {
	Stalled                         int
	StallNs, InFlightNs, MaxSilence int64
	Threshold                       time.Duration
}

// SendLag is how late an open-loop cell's client sent its requests: Late of Sent over
// LateSend, the median lag.
type SendLag struct {
	Late, Sent int
	MedianMs   float64
}

// GapsUnresolved says many token events arrived together, not drafted together by a
// speculative server: the gaps between them were not timed.
func GapsUnresolved(zeroShare float64, speculative bool) bool {
	return !speculative && zeroShare > UnresolvedShare
}

// Rule is one validity check: a flag, and the reason the measurement is not valid
// when the check fails ("" when it passes).
type Rule struct {
	Flag  string
	check func(*Evidence) string
}

// Judge runs every rule over e in the table's order: the flags of those that fail,
// and the first one's reason ("" when every rule passes: valid).
func Judge(e *Evidence) (failed []string, reason string) {
	for _, r := range ValidityRules {
		if why := r.check(e); why != "" {
			failed = append(failed, r.Flag)
			if reason == "" {
				reason = why
			}
		}
	}
	return failed, reason
}

// ValidityRules is the one table every load shape is judged by, in the order their
// reasons head a measurement. Each rule says what it means in the matrix's window and
// in an open-loop cell; one that a shape cannot fail says why.
var ValidityRules = []Rule{
	{"window_short", windowShort},
	{"not_in_flight", notInFlight},
	{"token_counts_disagree", countsDisagree},
	{"ended_early", endedEarly},
	{"prompt_off_target", promptOffTarget},
	{"token_counts_unverified", countsUnverified},
	{"token_count_bound", countBound},
	{"tpot_bound", tpotBound},
	{"stalled", stalled},
	{"timing_unresolved", timingUnresolved},
	{"prompts_shared", promptsShared},
	{"client_lagged", clientLagged},
	{"client_cpu_saturated", clientCPUSaturated},
	{"cache_not_warm", cacheNotWarm},
}

// windowShort: the window lasted under 99% of the duration asked. An open-loop cell
// has no window: its span runs from its first scheduled send to its last end, and a
// cell stopped before its schedule ends is interrupted, not scored.
func windowShort(e *Evidence) string {
	if e.Shape != Window || e.MeasuredS >= e.AskedS*0.99 {
		return ""
	}
	return fmt.Sprintf("window lasted %.1f s, %.1f s asked", e.MeasuredS, e.AskedS)
}

// notInFlight: fewer than 90% of the window's N streams were in flight on average. An
// open-loop cell holds no number in flight: its requests go on the schedule, and one
// that fails misses the SLO.
func notInFlight(e *Evidence) string {
	if e.Shape != Window {
		return ""
	}
	avg := 0.0
	if e.AvgInFlight != nil {
		avg = *e.AvgInFlight
	}
	if avg >= 0.9*float64(e.Streams) {
		return ""
	}
	r := fmt.Sprintf("only %.2f of %d requests were in flight on average", avg, e.Streams)
	if e.FirstError != "" {
		r += " (" + e.FirstError + ")"
	}
	return r
}

// endedEarly is decided by the bound, as token counts are. In the window, an early end
// costs the figure only its successor's time before producing (bench's earlyend.go):
// early_end_loss is that time's share of the window's stream-time. In an open-loop
// cell nothing replaces a request that ends early: it is a shorter request than the
// schedule asked, so its E2E latency and its SLO verdict are of less work (TTFT and
// TPOT are its own and right); early_end_loss is the share of the cell's finished
// requests that ended early, the most its SLO-met ratio and the rank of an E2E
// percentile can have moved. Within 3% the figures stand and the flag informs.
func endedEarly(e *Evidence) string {
	n := e.EndedEarly
	if n == 0 || e.EarlyEndLoss <= MaxCountBound {
		return ""
	}
	why := "before max output"
	if e.Shape == Schedule {
		why = "before their output length"
	}
	if e.IgnoreEOSKnown {
		why += " despite ignore_eos"
	}
	if e.Shape == Schedule {
		return fmt.Sprintf("%d of %d finished requests ended %s (%.1f%%, more than %.0f%%): the cell measured shorter requests than its schedule asked, and its E2E latencies and SLO verdicts with them", n, e.Finished, why, 100*e.EarlyEndLoss, 100*MaxCountBound)
	}
	return fmt.Sprintf("%d requests ended %s, and the requests that replaced them spent %.1f%% of the window's stream-time before their first token (more than %.0f%%): the cell measured replacements, not sustained decoding", n, why, 100*e.EarlyEndLoss, 100*MaxCountBound)
}

// promptOffTarget: the server counted the prompt more than 1% off its target: the
// matrix row's prompt, or the mean over a rate cell's requests it counted. A prompt the
// server never counted (no usage, no tokenize route) was sized from a calibrated
// ratio: unknown is not off target.
func promptOffTarget(e *Evidence) string {
	t := e.PromptTarget
	if t <= 0 || e.PromptTokens <= 0 || RelDiff(e.PromptTokens, t) <= promptTolerance {
		return ""
	}
	if n := e.PromptRequests; n > 0 {
		mean := func(v int) float64 { return stats.Round(float64(v)/float64(n), 1) }
		return fmt.Sprintf("prompts averaged %.1f tokens, %.1f asked (more than 1%% off)", mean(e.PromptTokens), mean(t))
	}
	return fmt.Sprintf("prompt has %d tokens, %d asked (more than 1%% off)", e.PromptTokens, t)
}

// countsUnverified: nothing the server said verifies the client's token count. In the
// window: no per-chunk usage, no finished request with usage, no tokenize route, no
// generation counter that confirms it (bench's tokens.go). In an open-loop cell: no
// finished request reported usage.
func countsUnverified(e *Evidence) string {
	if e.CountSource != rundoc.CountClientOnly {
		return ""
	}
	if e.Shape == Schedule {
		return "the server reported no usage: nothing verifies the client's token counts"
	}
	r := fmt.Sprintf("nothing the server said verifies the client's count of %d tokens (no per-chunk usage, no finished request with usage, no tokenize route", e.ClientTokens)
	if g := e.Generation; g != nil {
		r += fmt.Sprintf("; its generation counter says %.0f", *g)
	} else {
		r += ", no generation counter"
	}
	r += ")"
	if e.NoneFinished {
		r += ": no request finished in the cell — ask for fewer output tokens (--max-output) so that some do and their usage counts them"
	}
	return r
}

// countsDisagree: an open-loop cell's finished requests, counted by the client and by
// the server's usage, differ by more than 1% where the server counted every chunk, or
// the server counted fewer (chunks of several tokens explain only more). It heads
// ended_early, whose requests are judged by the server's count of each. The window
// cannot fail it: its counts are resolved from the server's own wherever it gave any
// (bench's tokens.go), and their bound is token_count_bound.
func countsDisagree(e *Evidence) string {
	m := e.CountMismatch
	if m == nil {
		return ""
	}
	return fmt.Sprintf("client counted %d output tokens, the server %d", m.Client, m.Server)
}

// countBound: tokens that rest on an estimate are bounded within more than 3%, or too
// few requests the server counted bound them. In the window, the estimate is the
// tokens per chunk of the requests the server counted, over those it did not (bench's
// bound.go); in an open-loop cell, its unfinished requests counted one per chunk where
// the finished ones' chunks carried more.
func countBound(e *Evidence) string {
	b := e.Bound
	switch {
	case !b.Estimated || e.CountSource == rundoc.CountClientOnly:
		return ""
	case e.Shape == Schedule:
		if b.Rel > MaxCountBound {
			return fmt.Sprintf("chunks carry %.2f tokens on average and %d tokens of unfinished requests were counted one per chunk: the output count is bounded only to ±%.1f%%, more than %.0f%%",
				b.PerChunk, b.Uncounted, 100*b.Rel, 100*MaxCountBound)
		}
	case !b.OK:
		return fmt.Sprintf("%d of the window's tokens rest on an estimate and only %d request(s) the server counted in total: too few to bound it (ask for fewer output tokens with --max-output, so that requests finish and their usage counts them)", e.OutputTokens, b.Counted)
	case b.Rel > MaxCountBound:
		return fmt.Sprintf("the token count is an estimate within ±%.1f%% (more than %.0f%%), from the tokens per chunk of %d requests the server counted", 100*b.Rel, 100*MaxCountBound, b.Counted)
	}
	return ""
}

// tpotBound: the window's time per output token rests on estimated counts of the
// streams its edges cut, bounded within more than 3% (a count already bounded too
// loosely says it first). An open-loop cell's TPOT is per finished request, from the
// server's count of it: it rests on no estimate.
func tpotBound(e *Evidence) string {
	b := e.Bound
	if e.TPOTBound <= MaxCountBound || b.Estimated && (!b.OK || b.Rel > MaxCountBound) {
		return ""
	}
	return fmt.Sprintf("time per output token rests on estimated counts of the streams the window's edges cut: ±%.1f%% on tbt_ms for the median stream (more than %.0f%%); a longer window (--duration), requests that finish inside it (--max-output) or a server that counts per chunk (vLLM: continuous usage) bound it", 100*e.TPOTBound, 100*MaxCountBound)
}

// stalled: stalls took more than 10% of the window's stream-seconds. An open-loop
// cell's requests are not held for a window: a stall lengthens its own request's
// latencies, which its percentiles show.
func stalled(e *Evidence) string {
	st := &e.Stalls
	if st.Stalled == 0 || st.InFlightNs == 0 || float64(st.StallNs) <= stallShare*float64(st.InFlightNs) {
		return ""
	}
	return fmt.Sprintf("%d of %d streams went more than %s without a token (the longest %.1f s): stalls took %.0f%% of the window's stream-seconds", st.Stalled, e.Streams, st.Threshold.Round(time.Millisecond), float64(st.MaxSilence)/1e9, 100*float64(st.StallNs)/float64(st.InFlightNs))
}

// timingUnresolved: requests that arrived whole (a proxy that buffers each stream)
// hold more than 10% of the tokens: their gaps and time per output token were not
// measured at all, in either shape (in an open-loop cell, their time to first token
// is the whole answer's too). In the window, also: many token events arrived together
// while the machine was saturated, so the client may have read them late. Bursts
// alone describe: TTFT and TPOT are latencies as the client saw them, vLLM's
// definitions. An open-loop cell does not read the machine: client_lagged judges its
// client's lateness.
func timingUnresolved(e *Evidence) string {
	if w := e.WholeTokens; w > 0 && float64(w) > UnresolvedShare*float64(e.OutputTokens) {
		share := 100 * float64(w) / float64(e.OutputTokens)
		if e.Shape == Schedule {
			return fmt.Sprintf("%d requests arrived whole, every token of each at once (%.0f%% of the cell's tokens): their time to first token, time per output token and gaps were not measured — a proxy that buffers the stream? Measure the server directly", e.WholeRequests, share)
		}
		return fmt.Sprintf("%d requests arrived whole, every token of each at once (%.0f%% of the window's tokens): their gaps and time per output token were not measured — a proxy that buffers the stream? Measure the server directly", e.WholeRequests, share)
	}
	m := e.MachineCPU
	if !GapsUnresolved(e.ZeroShare, e.Speculative) || m == nil || *m <= MachineSaturated {
		return ""
	}
	r := fmt.Sprintf("%.0f%% of the window's token events arrived within %s of the one before", 100*e.ZeroShare, openai.SameArrival)
	if e.EventsPerRead != nil {
		r += fmt.Sprintf(" (%.1f events per read)", *e.EventsPerRead)
	}
	return r + fmt.Sprintf(" while the machine's CPUs were %.0f%% busy: the client may have read them late, and its latencies carry the delay", 100**m)
}

// promptsShared: an open-loop cell's server found more of each prompt cached than its
// shared prefix, the template and a cache block allow: its prompts were not unique to
// it, and it timed cache hits. The window's requests share their row's context on
// purpose; what it must find cached is cache_not_warm's.
func promptsShared(e *Evidence) string {
	if !e.Cached || e.CachedPerRequest <= e.CacheAllowed {
		return ""
	}
	if e.PrefixTokens == 0 {
		return fmt.Sprintf("the server found %.0f cached tokens per request: the prompts were not unique to it", e.CachedPerRequest)
	}
	return fmt.Sprintf("the server found %.0f cached tokens per request, more than the %d-token shared prefix", e.CachedPerRequest, e.PrefixTokens)
}

// clientLagged: an open-loop cell's client sent more than 1% of its requests over
// 50 ms late against their schedule (or their slot), or its median lag passed 5 ms:
// the latencies, timed from the schedule, are partly the client's. The window has no
// schedule to be late against: a stream sends its next request as its last ends.
func clientLagged(e *Evidence) string {
	s := e.Sends
	if s.Sent == 0 || (float64(s.Late) <= lateShare*float64(s.Sent) && s.MedianMs <= Millis(lateMedian)) {
		return ""
	}
	return rundoc.RateClientLate.Write(strconv.Itoa(s.Late), strconv.Itoa(s.Sent), LateSend.String(), strconv.FormatFloat(s.MedianMs, 'f', 1, 64))
}

// clientCPUSaturated: the measuring process used over 90% of all CPUs (in the window;
// over an open-loop cell).
func clientCPUSaturated(e *Evidence) string {
	if e.ClientCPU <= ClientSaturated {
		return ""
	}
	if e.Shape == Schedule {
		return rundoc.RateClientCPU.Write() // a sentence a report says in Japanese too
	}
	return "the measuring client used nearly all CPUs: the figure may be the client's limit"
}

// cacheNotWarm: the matrix row's shared context was not cached (hit ratio under 0.5):
// its cells measured prefill, not decoding at that context. An open-loop cell's shared
// prefix (--prefix-share) is the workload's, and whether the server keeps it is the
// server's behaviour under that load: flagged prefix_not_cached, not a fault.
func cacheNotWarm(e *Evidence) string {
	if e.Shape != Window || e.Context <= 0 || e.CacheRatio == nil || *e.CacheRatio >= 0.5 {
		return ""
	}
	return fmt.Sprintf("the shared context was not cached (hit ratio %.2f)", *e.CacheRatio)
}
