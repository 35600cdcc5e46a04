// Package stats owns the uncertainty of llmbench's figures: 95% confidence intervals
// from what a measurement saw. It is pure arithmetic with no knowledge of cells or
// servers: bench calls it with a window's per-batch figures and per-request samples,
// the site and the reports only read the intervals it produced.
//
// Three methods, each for the dependence its data has:
//   - BatchMeans: a rate over a window cut into equal batches (per-second token
//     buckets). Adjacent tokens are correlated (one engine step feeds every stream),
//     batches of a second are nearly independent, so the batch totals' spread with a
//     Student t quantile bounds the window's mean rate.
//   - Sectioning: any statistic (a median of gaps) computed over the whole window,
//     with the spread of the same statistic over each batch as its standard error.
//   - Order statistics: a quantile of independent samples (one TTFT per request)
//     bounded by two of the sorted samples, the ranks chosen from the binomial law, so
//     no shape is assumed.
package stats

import (
	"math"
	"slices"
)

// Level is the coverage every interval of this package aims at.
const Level = 0.95

// Interval is a confidence interval {low, high} in the figure's own unit.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// HalfWidth is half the interval's width.
func (i Interval) HalfWidth() float64 { return (i.High - i.Low) / 2 }

// Contains reports whether v lies inside the interval (its ends included).
func (i Interval) Contains(v float64) bool { return v >= i.Low && v <= i.High }

// Overlaps reports whether two intervals share a point.
func (i Interval) Overlaps(o Interval) bool { return i.Low <= o.High && o.Low <= i.High }

// Round rounds both ends to decimals places, outward, so that rounding never narrows
// the interval.
func (i Interval) Round(decimals int) Interval {
	p := math.Pow(10, float64(decimals))
	return Interval{Low: math.Floor(i.Low*p+1e-9) / p, High: math.Ceil(i.High*p-1e-9) / p}
}

// RoundedCI is iv rounded outward to decimals places with its low end at or above
// floor (a rate or a latency is never negative): how both loops publish an interval.
func RoundedCI(iv Interval, decimals int, floor float64) *Interval {
	iv.Low = math.Max(iv.Low, floor)
	r := iv.Round(decimals)
	return &r
}

// Round rounds v to decimals places, half away from zero: how both loops publish a
// figure, so that the closed and the open loop's figures read alike.
func Round(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

// Scale multiplies both ends by k (k > 0), for a figure that is a fixed multiple of
// the one the interval was computed on.
func (i Interval) Scale(k float64) Interval { return Interval{Low: i.Low * k, High: i.High * k} }

// Invert maps an interval of a positive figure x to one of k / x (the ends swap).
func (i Interval) Invert(k float64) (Interval, bool) {
	if i.Low <= 0 {
		return Interval{}, false
	}
	return Interval{Low: k / i.High, High: k / i.Low}, true
}

// MeanSD is the mean and sample standard deviation of v (sd 0 with one value).
func MeanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return 0, 0
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

// MinBatches is the fewest batches an interval is computed from: with fewer, the t
// quantile (12.7 at one degree of freedom) makes it too wide to say anything.
const MinBatches = 3

// BatchMeans is the interval for the mean of batch values (each a batch's rate),
// mean ± t(n−1) · sd / √n. It needs MinBatches values.
func BatchMeans(batches []float64) (Interval, bool) {
	n := len(batches)
	if n < MinBatches {
		return Interval{}, false
	}
	mean, sd := MeanSD(batches)
	h := TQuantile(n-1) * sd / math.Sqrt(float64(n))
	return Interval{Low: mean - h, High: mean + h}, true
}

// Sectioning is the interval for a statistic whose value over the whole data is
// center and over each of the batches is sections[i]: center ± t(n−1) · sd(sections) / √n
// [Asmussen & Glynn, Stochastic Simulation, §IV.5]. Unlike a mean of the batches'
// values, it is centred on the whole data's statistic, which is less biased for a
// quantile of few samples per batch.
func Sectioning(center float64, sections []float64) (Interval, bool) {
	n := len(sections)
	if n < MinBatches {
		return Interval{}, false
	}
	_, sd := MeanSD(sections)
	h := TQuantile(n-1) * sd / math.Sqrt(float64(n))
	return Interval{Low: center - h, High: center + h}, true
}

// Quantile of sorted values, interpolating between the two nearest ranks (the
// definition bench uses for its figures).
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	pos := q * float64(n-1)
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	if lo == hi {
		return sorted[lo]
	}
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

// Median of unsorted values (they are not modified).
func Median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return Quantile(s, 0.5)
}

// Shift is the largest step in the level of a sequence: of the splits that leave at
// least minSide values on each side, the one whose two means differ most in units of
// their standard error, the values' spread about their own side's mean pooled
// (a two-sample t statistic with n − 2 degrees of freedom). at is the first index
// after the split; t is +Inf where the means differ and neither side varies. ok is
// false for a sequence too short to split.
func Shift(v []float64, minSide int) (at int, before, after, t float64, ok bool) {
	n := len(v)
	minSide = max(minSide, 2)
	t = -1
	for m := minSide; m <= n-minSide; m++ {
		a, b := v[:m], v[m:]
		ma, sa := MeanSD(a)
		mb, sb := MeanSD(b)
		pooled := math.Sqrt((sq(sa)*float64(m-1) + sq(sb)*float64(n-m-1)) / float64(n-2))
		tm := math.Abs(mb - ma)
		switch {
		case pooled > 0:
			tm /= pooled * math.Sqrt(1/float64(m)+1/float64(n-m))
		case tm > 0:
			tm = math.Inf(1)
		}
		if tm > t {
			at, before, after, t, ok = m, ma, mb, tm, true
		}
	}
	return at, before, after, t, ok
}
