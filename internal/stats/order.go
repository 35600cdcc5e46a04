package stats

import "math"

// QuantileCI is the distribution-free interval for the q-quantile of independent
// samples: [x(l), x(u)] of the sorted samples, the ranks the closest to q·n for which
// P(l ≤ B < u) ≥ Level with B ~ Binomial(n, q) [Conover, Practical Nonparametric
// Statistics, §3.2]. It needs enough samples for such ranks to exist (6 for the
// median, 59 for p90 ... below, no pair of samples covers 95%); an end that would be
// +Inf (a censored sample) leaves no interval.
func QuantileCI(sorted []float64, q float64) (Interval, bool) {
	l, u, ok := quantileRanks(len(sorted), q)
	if !ok {
		return Interval{}, false
	}
	iv := Interval{Low: sorted[l-1], High: sorted[u-1]}
	if math.IsInf(iv.High, 0) || math.IsNaN(iv.High) || math.IsNaN(iv.Low) {
		return Interval{}, false
	}
	return iv, true
}

// QuantileCIBounds is QuantileCI for samples some of which are only bounded below
// (censored): low comes from the samples at their bounds, high from the same samples
// with the censored ones taken as +Inf.
func QuantileCIBounds(lo, hi []float64, q float64) (Interval, bool) {
	l, u, ok := quantileRanks(len(lo), q)
	if !ok || len(hi) != len(lo) {
		return Interval{}, false
	}
	iv := Interval{Low: lo[l-1], High: hi[u-1]}
	if math.IsInf(iv.High, 0) || math.IsNaN(iv.High) {
		return Interval{}, false
	}
	return iv, true
}

// normalRanks is the sample count above which the ranks come from the binomial's
// normal approximation.
const normalRanks = 1000

// quantileRanks are the 1-based ranks l < u of the order-statistic interval: the
// narrowest pair around q·n, widened alternately, whose binomial coverage reaches
// Level.
func quantileRanks(n int, q float64) (l, u int, ok bool) {
	if n < 2 || q <= 0 || q >= 1 {
		return 0, 0, false
	}
	// P(l ≤ B < u) = F(u−1) − F(l−1), F the Binomial(n, q) CDF.
	if n > normalRanks {
		// The binomial is normal enough here, and summing its terms per step is not.
		nf := float64(n)
		h := zQuantile * math.Sqrt(nf*q*(1-q))
		l, u = int(math.Floor(nf*q-h)), int(math.Ceil(nf*q+h))+1
		return max(l, 1), min(u, n), true
	}
	c := int(math.Floor(q*float64(n))) + 1 // the rank just above q·n
	l, u = max(c-1, 1), min(c, n)
	for {
		if binomCDF(u-1, n, q)-binomCDF(l-1, n, q) >= Level {
			return l, u, true
		}
		switch {
		case l > 1 && (u == n || binomPMF(l-1, n, q) >= binomPMF(u, n, q)):
			l--
		case u < n:
			u++
		default:
			return 0, 0, false
		}
	}
}

// binomCDF is P(B ≤ k), B ~ Binomial(n, p).
func binomCDF(k, n int, p float64) float64 {
	if k < 0 {
		return 0
	}
	if k >= n {
		return 1
	}
	s := 0.0
	for i := 0; i <= k; i++ {
		s += binomPMF(i, n, p)
	}
	return math.Min(s, 1)
}

func binomPMF(k, n int, p float64) float64 {
	if k < 0 || k > n {
		return 0
	}
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Exp(lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// Wilson is the Wilson score interval for a proportion of k successes in n trials
// [Wilson 1927; Brown, Cai & DasGupta 2001 recommend it over the normal one]. It
// stays inside [0, 1] and is defined at k = 0 and k = n.
func Wilson(k, n int) (Interval, bool) {
	if n <= 0 || k < 0 || k > n {
		return Interval{}, false
	}
	z := zQuantile
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	iv := Interval{Low: math.Max(0, mid-h), High: math.Min(1, mid+h)}
	if k == 0 {
		iv.Low = 0
	}
	if k == n {
		iv.High = 1
	}
	return iv, true
}
