package rundoc

import "github.com/llmbench/llmbench/internal/stats"

// This file holds the intervals and repeats of cells, prefill rows and rate cells.

// The methods a cell's or a row's intervals were computed by (ci_method, docs/run.md
// "Intervals").
const (
	// CIMethodWindow: total_tok_s by batch means over the window cut into
	// one-second batches (at least five), tbt_ms by sectioning over the same
	// batches, ttft_ms by order statistics over the cell's requests.
	CIMethodWindow = "batch_means_1s"
	// CIMethodRepeats: the figures are the median of --repeat measurements and each
	// interval is the t interval over the repeats' values.
	CIMethodRepeats = "repeats_t"
	// CIMethodTwoRepeats: the figures are the slower of two --repeat measurements and
	// each interval spans both repeats' own window intervals (t with one degree of
	// freedom says nothing: 12.7 standard errors either side); absent where either
	// repeat had none.
	CIMethodTwoRepeats = "repeats_own_ci"
)

// Why a --repeat cell publishes the repeat it does (published_why, docs/run.md
// "Repeats"): the median of an odd count, the slower of the middle two of an even
// count (the figure a reader can count on), the only valid one.
const (
	PublishedMedian    = "median"
	PublishedSlowerMid = "slower_of_middle_two"
	PublishedOnlyValid = "only_valid"
)

// CellIntervals are a measured cell's 95% intervals and repeats (extensions: a
// document from before has none, and is shown without ±). An interval is absent
// where what the cell measured cannot support one (too few requests for a TTFT
// median's, too few gaps per batch for TBT's).
type CellIntervals struct {
	TotalTokSCI *stats.Interval `json:"total_tok_s_ci,omitempty"`
	TTFTMsCI    *stats.Interval `json:"ttft_ms_ci,omitempty"`
	TBTMsCI     *stats.Interval `json:"tbt_ms_ci,omitempty"`
	CIMethod    string          `json:"ci_method,omitempty"`
	// Repeats are each --repeat measurement's figures, in the order they ran;
	// Unstable says two of them disagree beyond their intervals (repeat.go).
	Repeats  []CellRepeat `json:"repeats,omitempty"`
	Unstable bool         `json:"unstable,omitempty"`
	// PublishedRepeat is which of Repeats the cell's figures are (from 1), and
	// PublishedWhy why (Published*); absent without repeats or a valid one.
	PublishedRepeat int    `json:"published_repeat,omitempty"`
	PublishedWhy    string `json:"published_why,omitempty"`
}

// PerRequestTokSCI is per_request_tok_s's 95% interval. per_request_tok_s is 1000 /
// tbt_ms (methodology.md), so its interval is 1000 over tbt_ms_ci's ends; a document
// without a TBT interval (one from when per_request_tok_s was total tok/s over the
// average number of active requests) has total_tok_s_ci scaled by the cell's own
// ratio. nil where the cell has neither.
func (ci *CellIntervals) PerRequestTokSCI(f *DecodeFigures) *stats.Interval {
	switch {
	case ci == nil || f == nil:
		return nil
	case ci.TBTMsCI != nil && ci.TBTMsCI.Low > 0:
		return &stats.Interval{Low: 1000 / ci.TBTMsCI.High, High: 1000 / ci.TBTMsCI.Low}
	case ci.TotalTokSCI != nil && f.TotalTokS > 0:
		iv := ci.TotalTokSCI.Scale(f.PerRequestTokS / f.TotalTokS)
		return &iv
	}
	return nil
}

// CIMethodRate names how an open-loop cell's intervals are computed: percentiles of
// per-request latencies (TTFT, TPOT, E2E) by order statistics, ITL's by sectioning over
// ten groups of consecutive requests (a request's gaps are correlated, its neighbours'
// much less), goodput by the Wilson interval of the share of requests that met the SLO.
const CIMethodRate = "order_statistic+sections_10+wilson"

// PercentileCIs are the 95% intervals of a latency's reported percentiles (absent
// where the percentile is, or the samples cannot bound it).
type PercentileCIs struct {
	P50 *stats.Interval `json:"p50_ci,omitempty"`
	P90 *stats.Interval `json:"p90_ci,omitempty"`
	P99 *stats.Interval `json:"p99_ci,omitempty"`
}

// RateIntervals are an open-loop cell's intervals (extensions: absent in documents
// from before).
type RateIntervals struct {
	TTFTMs        *PercentileCIs  `json:"ttft_ms_ci,omitempty"`
	TPOTMs        *PercentileCIs  `json:"tpot_ms_ci,omitempty"`
	ITLMs         *PercentileCIs  `json:"itl_ms_ci,omitempty"`
	E2EMs         *PercentileCIs  `json:"e2e_ms_ci,omitempty"`
	SLOMetRatioCI *stats.Interval `json:"slo_met_ratio_ci,omitempty"`
	GoodputRPSCI  *stats.Interval `json:"goodput_rps_ci,omitempty"`
	CIMethod      string          `json:"ci_method,omitempty"`
}

// CellRepeat is one --repeat measurement of a decode cell, whole: its status,
// figures, counts, detail and energy, and its own intervals.
type CellRepeat struct {
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"`
	*DecodeFigures
	*WindowStats
	*CellDetail
	*CellEnergy
	TotalTokSCI *stats.Interval `json:"total_tok_s_ci,omitempty"`
	TTFTMsCI    *stats.Interval `json:"ttft_ms_ci,omitempty"`
	TBTMsCI     *stats.Interval `json:"tbt_ms_ci,omitempty"`
}

// PrefillRepeat is one --repeat measurement of a prefill row, whole.
type PrefillRepeat struct {
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"`
	*PrefillFigures
	*PrefillEnergy
}

// PrefillIntervals are a prefill row's intervals, which need --repeat: one cold
// request is one sample, and no interval can be drawn from one sample.
type PrefillIntervals struct {
	PromptTokSCI *stats.Interval `json:"prompt_tok_s_ci,omitempty"`
	TTFTMsCI     *stats.Interval `json:"ttft_ms_ci,omitempty"`
	CIMethod     string          `json:"ci_method,omitempty"`
	Repeats      []PrefillRepeat `json:"repeats,omitempty"`
	// PublishedRepeat and PublishedWhy name the repeat the row's figures are, as a
	// decode cell's do (CellIntervals).
	PublishedRepeat int    `json:"published_repeat,omitempty"`
	PublishedWhy    string `json:"published_why,omitempty"`
}
