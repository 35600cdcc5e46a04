package bench

import (
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/openai"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Thresholds of the validity checks (docs/run.md).
const (
	// unresolvedShare: more of the window's token events than this arriving with the
	// one before means the gaps were not resolved (flag timing_unresolved; not valid
	// only on a saturated machine).
	unresolvedShare = 0.10
	// estimatedDeviation: resolved per-chunk counts that moved more than this share of
	// the window's tokens from the client's flag the cell multi_token_chunks (it
	// describes; TBT is per stream and exact wherever the count is). Chunks of 3
	// tokens move 67%, speculative steps of 1-4 about 60%; a byte-fallback piece held
	// back once per request, 1-2%.
	estimatedDeviation = 0.10
	// MaxCountBound: an estimated token count bounded within more than this is not
	// valid.
	MaxCountBound = 0.03
	// counterTolerance: the server's generation counter confirms an otherwise
	// unverified count within this.
	counterTolerance = 0.03
	// clientSaturated: the client process using more than this share of all CPUs.
	clientSaturated = 0.9
	// machineSaturated: the machine busier than this.
	machineSaturated = 0.95
	// NearCeiling: a cell faster than this share of the client's own ceiling
	// (llmbench calibrate) is flagged client_near_ceiling: past half its ceiling the
	// client spends half of its cores on reading, and a local server shares them.
	NearCeiling = 0.5
)

// scoring is one cell's figures under evaluation by the validity rules.
type scoring struct {
	run         *CellRun
	w           windowFigures
	source      string
	speculative bool
	zeroShare   float64
	clientCPU   float64 // share of all CPUs
	cacheRatio  *float64
	firstError  string
	finished    int // requests the server finished
	bound       countBound
	tpotBound   float64 // tbt_ms's relative bound where chunk splits were estimated (tpotBound)
	earlyLoss   float64 // the window's stream-time the early ends' successors spent before producing (earlyend.go)
}

// unresolved says many of the window's token events arrived together, not drafted
// together by a speculative server: the gaps between them were not timed.
func (s *scoring) unresolved() bool {
	return !s.speculative && s.zeroShare > unresolvedShare
}

// rule is one validity check: a flag, and the reason the cell is not valid when the
// check fails ("" when it passes).
type rule struct {
	flag  string
	check func(*scoring) string
}

// validityRules, in the order their reasons head a cell.
var validityRules = []rule{
	{"window_short", func(s *scoring) string {
		asked := s.run.DurationS
		if got := float64(s.run.Close-s.run.Open) / 1e9; got < asked*0.99 {
			return fmt.Sprintf("window lasted %.1f s, %.1f s asked", got, asked)
		}
		return ""
	}},
	{"not_in_flight", func(s *scoring) string {
		n := s.run.Concurrency
		avg := 0.0
		if p := s.w.stats.AvgInFlight; p != nil {
			avg = *p
		}
		if avg < 0.9*float64(n) {
			r := fmt.Sprintf("only %.2f of %d requests were in flight on average", avg, n)
			if s.firstError != "" {
				r += " (" + s.firstError + ")"
			}
			return r
		}
		return ""
	}},
	{"ended_early", func(s *scoring) string {
		// Decided by the bound, as token counts are: an early end costs the figure
		// only its successor's time before producing (earlyend.go).
		n := s.w.detail.EndedEarly
		if n == 0 || s.earlyLoss <= MaxCountBound {
			return ""
		}
		why := "before max output"
		if s.run.IgnoreEOSKnown {
			why += " despite ignore_eos"
		}
		return fmt.Sprintf("%d requests ended %s, and the requests that replaced them spent %.1f%% of the window's stream-time before their first token (more than %.0f%%): the cell measured replacements, not sustained decoding", n, why, 100*s.earlyLoss, 100*MaxCountBound)
	}},
	{"prompt_off_target", func(s *scoring) string {
		// A prompt the server never counted (no usage on its request, no tokenize
		// route) was sized from a calibrated ratio: unknown is not off target.
		if t := s.run.PromptTarget; t > 0 && s.run.PromptTokens > 0 && relDiff(s.run.PromptTokens, t) > 0.01 {
			return fmt.Sprintf("prompt has %d tokens, %d asked (more than 1%% off)", s.run.PromptTokens, t)
		}
		return ""
	}},
	{"token_counts_unverified", func(s *scoring) string {
		if s.source != rundoc.CountClientOnly {
			return ""
		}
		r := fmt.Sprintf("nothing the server said verifies the client's count of %d tokens (no per-chunk usage, no finished request with usage, no tokenize route", s.w.clientTokens)
		if g := generation(s.run.Server); g != nil {
			r += fmt.Sprintf("; its generation counter says %.0f", *g)
		} else {
			r += ", no generation counter"
		}
		r += ")"
		if s.finished == 0 {
			r += ": no request finished in the cell — ask for fewer output tokens (--max-output) so that some do and their usage counts them"
		}
		return r
	}},
	{"token_count_bound", func(s *scoring) string {
		b := s.bound
		switch {
		case !b.estimated || s.source == rundoc.CountClientOnly:
			return ""
		case !b.ok:
			return fmt.Sprintf("%d of the window's tokens rest on an estimate and only %d request(s) the server counted in total: too few to bound it (ask for fewer output tokens with --max-output, so that requests finish and their usage counts them)", s.w.stats.OutputTokens, b.counted)
		case b.rel > MaxCountBound:
			return fmt.Sprintf("the token count is an estimate within ±%.1f%% (more than %.0f%%), from the tokens per chunk of %d requests the server counted", 100*b.rel, 100*MaxCountBound, b.counted)
		}
		return ""
	}},
	{"tpot_bound", func(s *scoring) string {
		// A count already bounded too loosely (token_count_bound) says it first.
		if s.tpotBound <= MaxCountBound || s.bound.estimated && (!s.bound.ok || s.bound.rel > MaxCountBound) {
			return ""
		}
		return fmt.Sprintf("time per output token rests on estimated counts of the streams the window's edges cut: ±%.1f%% on tbt_ms for the median stream (more than %.0f%%); a longer window (--duration), requests that finish inside it (--max-output) or a server that counts per chunk (vLLM: continuous usage) bound it", 100*s.tpotBound, 100*MaxCountBound)
	}},
	{"stalled", func(s *scoring) string {
		st := &s.w.streams
		if st.stalled == 0 || st.inFlightNs == 0 || float64(st.stallNs) <= stallShare*float64(st.inFlightNs) {
			return ""
		}
		return fmt.Sprintf("%d of %d streams went more than %s without a token (the longest %.1f s): stalls took %.0f%% of the window's stream-seconds", st.stalled, s.run.Concurrency, st.threshold.Round(time.Millisecond), float64(st.maxSilence)/1e9, 100*float64(st.stallNs)/float64(st.inFlightNs))
	}},
	{"timing_unresolved", func(s *scoring) string {
		// Streams that arrived whole were not measured at all: no gap, no time per
		// output token, nothing producing (a proxy that buffers each stream).
		if w := s.w.wholeTokens; w > 0 && float64(w) > unresolvedShare*float64(s.w.stats.OutputTokens) {
			return fmt.Sprintf("%d requests arrived whole, every token of each at once (%.0f%% of the window's tokens): their gaps and time per output token were not measured — a proxy that buffers the stream? Measure the server directly", s.w.detail.StreamsArrivedWhole, 100*float64(w)/float64(s.w.stats.OutputTokens))
		}
		// Bursts alone describe (describe flags them): TTFT and TPOT are latencies as
		// the client saw them, vLLM's definitions, and itl_ms the gaps between the
		// bursts. They are wrong only if the client read late, which a saturated
		// machine makes likely.
		m := s.run.MachineCPU
		if !s.unresolved() || m == nil || *m <= machineSaturated {
			return ""
		}
		r := fmt.Sprintf("%.0f%% of the window's token events arrived within %s of the one before", 100*s.zeroShare, openai.SameArrival)
		if s.w.detail.EventsPerRead != nil {
			r += fmt.Sprintf(" (%.1f events per read)", *s.w.detail.EventsPerRead)
		}
		return r + fmt.Sprintf(" while the machine's CPUs were %.0f%% busy: the client may have read them late, and its latencies carry the delay", 100**m)
	}},
	{"client_cpu_saturated", func(s *scoring) string {
		if s.clientCPU > clientSaturated {
			return "the measuring client used nearly all CPUs: the figure may be the client's limit"
		}
		return ""
	}},
	{"cache_not_warm", func(s *scoring) string {
		if s.run.Context > 0 && s.cacheRatio != nil && *s.cacheRatio < 0.5 {
			return fmt.Sprintf("the shared context was not cached (hit ratio %.2f)", *s.cacheRatio)
		}
		return ""
	}},
}
