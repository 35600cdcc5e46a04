package bench

import (
	"github.com/llmbench/llmbench/internal/measure"
)

// Thresholds of the flags that describe a cell without invalidating it (docs/run.md);
// the validity rules' are measure's, in its one table.
const (
	// estimatedDeviation: resolved per-chunk counts that moved more than this share of
	// the window's tokens from the client's flag the cell multi_token_chunks (it
	// describes; TBT is per stream and exact wherever the count is). Chunks of 3
	// tokens move 67%, speculative steps of 1-4 about 60%; a byte-fallback piece held
	// back once per request, 1-2%.
	estimatedDeviation = 0.10
	// counterTolerance: the server's generation counter confirms an otherwise
	// unverified count within this.
	counterTolerance = 0.03
	// NearCeiling: a cell faster than this share of the client's own ceiling
	// (llmbench calibrate) is flagged client_near_ceiling: past half its ceiling the
	// client spends half of its cores on reading, and a local server shares them.
	NearCeiling = 0.5
)

// scoring is one cell's figures under evaluation.
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

// evidence is what the validity rules (measure.ValidityRules) judge the cell by.
func (s *scoring) evidence() *measure.Evidence {
	run, w := s.run, &s.w
	st := &w.streams
	e := &measure.Evidence{
		Shape:  measure.Window,
		AskedS: run.DurationS, MeasuredS: float64(run.Close-run.Open) / 1e9,
		Streams: run.Concurrency, AvgInFlight: w.stats.AvgInFlight, FirstError: s.firstError,
		Finished: s.finished, EndedEarly: w.detail.EndedEarly, EarlyEndLoss: s.earlyLoss, IgnoreEOSKnown: run.IgnoreEOSKnown,
		PromptTokens: run.PromptTokens, PromptTarget: run.PromptTarget,
		CountSource: s.source, ClientTokens: w.clientTokens, OutputTokens: w.stats.OutputTokens,
		Generation: generation(run.Server), NoneFinished: s.finished == 0,
		Bound:     measure.CountBound{Estimated: s.bound.estimated, OK: s.bound.ok, Counted: s.bound.counted, Rel: s.bound.rel},
		TPOTBound: s.tpotBound,
		Stalls: measure.Stalls{Stalled: st.stalled, StallNs: st.stallNs, InFlightNs: st.inFlightNs,
			MaxSilence: st.maxSilence, Threshold: st.threshold},
		WholeRequests: w.detail.StreamsArrivedWhole, WholeTokens: w.wholeTokens,
		ZeroShare: s.zeroShare, Speculative: s.speculative, MachineCPU: run.MachineCPU, EventsPerRead: w.detail.EventsPerRead,
		ClientCPU: s.clientCPU,
		Context:   run.Context, CacheRatio: s.cacheRatio,
	}
	if wl := run.Workload; wl != nil {
		workloadEvidence(e, run, wl)
	}
	return e
}
