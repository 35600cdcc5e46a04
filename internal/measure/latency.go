package measure

import (
	"math"
	"slices"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// Sample is one request's value of a latency. A censored sample is only known to be
// at least V (the request was still waiting when its measurement stopped).
type Sample struct {
	V        float64
	Censored bool
}

// LatencyStats summarises samples, in ms. A quantile is reported only with enough
// samples (p90: 64, p99: 662) and only when the censored samples cannot move it: it
// is the same whether they are taken at their bound or as infinitely large. The mean
// and stdev need every sample exact.
func LatencyStats(s []Sample) rundoc.LatencyStats {
	st := rundoc.LatencyStats{Samples: len(s)}
	if len(s) == 0 {
		return st
	}
	lo := make([]float64, len(s))
	hi := make([]float64, len(s))
	sum := 0.0
	for i, x := range s {
		lo[i], hi[i] = x.V, x.V
		if x.Censored {
			hi[i] = math.Inf(1)
			st.Censored++
		}
		sum += x.V
	}
	slices.Sort(lo)
	slices.Sort(hi)
	q := func(p float64, floor int) *float64 {
		if len(s) < floor {
			return nil
		}
		a, b := stats.Quantile(lo, p), stats.Quantile(hi, p)
		if a != b || math.IsInf(b, 0) || math.IsNaN(b) {
			return nil
		}
		return RoundPtr(a, 2)
	}
	st.P50 = q(0.5, 1)
	st.P90 = q(0.9, MinSamplesP90)
	st.P99 = q(0.99, MinSamplesP99)
	if st.Censored == 0 {
		mean := sum / float64(len(s))
		st.Mean = RoundPtr(mean, 2)
		if len(s) >= 2 {
			ss := 0.0
			for _, x := range s {
				ss += (x.V - mean) * (x.V - mean)
			}
			st.Stdev = RoundPtr(math.Sqrt(ss/float64(len(s)-1)), 2)
		}
	}
	return st
}

// QuantileOf is the p-quantile of the samples' values, censored ones at their bound.
func QuantileOf(s []Sample, p float64) float64 {
	v := make([]float64, len(s))
	for i, x := range s {
		v[i] = x.V
	}
	slices.Sort(v)
	return stats.Quantile(v, p)
}
