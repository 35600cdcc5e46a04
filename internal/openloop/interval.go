package openloop

import (
	"math"
	"slices"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// itlSections is how many groups of consecutive requests ITL's intervals section.
const itlSections = 10

// rateIntervals computes a rate cell's percentile intervals from its samples. Pure.
func rateIntervals(f *rundoc.RateFigures, s *rateSamples) {
	ri := &rundoc.RateIntervals{CIMethod: rundoc.CIMethodRate}
	ri.TTFTMs = sampleCIs(s.ttft, f.TTFTMs)
	ri.TPOTMs = sampleCIs(s.tpot, f.TPOTMs)
	ri.E2EMs = sampleCIs(s.e2e, f.E2EMs)
	ri.ITLMs = sectionedCIs(s.times, f.ITLMs)
	f.RateIntervals = ri
}

// sampleCIs are order-statistic intervals of independent per-request samples, some
// censored (known only to exceed their value).
func sampleCIs(s []latencySample, st rundoc.LatencyStats) *rundoc.PercentileCIs {
	lo, hi := make([]float64, len(s)), make([]float64, len(s))
	for i, x := range s {
		lo[i], hi[i] = x.V, x.V
		if x.Censored {
			hi[i] = math.Inf(1)
		}
	}
	slices.Sort(lo)
	slices.Sort(hi)
	ci := func(p float64, reported *float64) *stats.Interval {
		if reported == nil {
			return nil
		}
		iv, ok := stats.QuantileCIBounds(lo, hi, p)
		if !ok {
			return nil
		}
		return stats.RoundedCI(iv, 2, 0)
	}
	return percentileCIs(st, ci)
}

// sectionedCIs are ITL's intervals: the percentile over each of itlSections groups of
// consecutive requests, around the cell's. A group needs 5 / (1 − p) gaps (10 for the
// median, 500 for p99) for its percentile to stand as a section.
func sectionedCIs(times []requestTimes, st rundoc.LatencyStats) *rundoc.PercentileCIs {
	groups := make([][]float64, itlSections)
	for i := range times {
		g := i * itlSections / max(len(times), 1)
		groups[g] = append(groups[g], times[i].gaps...)
	}
	for _, g := range groups {
		slices.Sort(g)
	}
	ci := func(p float64, reported *float64) *stats.Interval {
		if reported == nil {
			return nil
		}
		need := int(math.Ceil(5 / (1 - p)))
		sections := make([]float64, len(groups))
		for i, g := range groups {
			if len(g) < need {
				return nil
			}
			sections[i] = stats.Quantile(g, p)
		}
		iv, ok := stats.Sectioning(*reported, sections)
		if !ok {
			return nil
		}
		return stats.RoundedCI(iv, 2, 0)
	}
	return percentileCIs(st, ci)
}

// sloIntervals are goodput's intervals: Wilson's for the share of the n requests that
// met the SLO, and that share's ends times n over the cell's span for goodput_rps.
func sloIntervals(f *rundoc.RateFigures, met, n int, span float64) {
	iv, ok := stats.Wilson(met, n)
	if !ok {
		return
	}
	if f.RateIntervals == nil {
		f.RateIntervals = &rundoc.RateIntervals{CIMethod: rundoc.CIMethodRate}
	}
	r := iv.Round(4)
	f.SLOMetRatioCI = &r
	if span > 0 {
		g := iv.Scale(float64(n) / span).Round(3)
		f.GoodputRPSCI = &g
	}
}

// percentileCIs applies ci to p50, p90 and p99 of st; nil when none has an interval.
func percentileCIs(st rundoc.LatencyStats, ci func(p float64, reported *float64) *stats.Interval) *rundoc.PercentileCIs {
	out := &rundoc.PercentileCIs{P50: ci(0.5, st.P50), P90: ci(0.9, st.P90), P99: ci(0.99, st.P99)}
	if out.P50 == nil && out.P90 == nil && out.P99 == nil {
		return nil
	}
	return out
}
