package openloop

import (
	"math"
	"strconv"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// NextSearchRate decides a --find-max-rate search from the cells tried so far: the
// next rate to try, or done with the outcome. Rates double from s.Start until a cell
// fails (misses the target, saturates, or is not valid) — the early stop — and then
// the bracket between the highest pass and the lowest failure is bisected until it
// is within s.Precision of the pass, or s.MaxSteps cells have run. It is pure, so a
// resumed search takes up where it stopped.
func NextSearchRate(s rundoc.RateSearch, tried []rundoc.RateCell) (next rundoc.Rate, done bool, out rundoc.MaxRate) {
	var lo, hi float64 // highest passing rate, lowest failing rate; 0 = none yet
	var loGoodput *float64
	for i := range tried {
		c := &tried[i]
		r := float64(c.RateRPS)
		if c.Passes() {
			if r > lo {
				lo, loGoodput = r, c.GoodputRPS
			}
		} else if hi == 0 || r < hi {
			hi = r
		}
	}
	out.Steps = len(tried)
	if lo > 0 {
		out.MaxRateRPS, out.GoodputRPS = &lo, loGoodput
	}
	if hi > 0 {
		out.FailedRPS = &hi
	}
	steps := s.MaxSteps
	if steps <= 0 {
		steps = rundoc.DefaultSearchSteps
	}
	precision := s.Precision
	if !(precision > 0) {
		precision = rundoc.DefaultSearchPrecision
	}
	start := float64(s.Start)
	if !(start > 0) || math.IsInf(start, 0) {
		start = 1
	}
	switch {
	case lo > 0 && hi > 0 && hi <= lo:
		// A higher rate passed after a lower one failed (noise at the edge): the
		// bracket is the failure, below the pass.
		out.Stop = "precision"
		return 0, true, out
	case lo > 0 && hi > 0 && (hi-lo)/lo <= precision:
		out.Stop = "precision"
		return 0, true, out
	case len(tried) >= steps:
		switch {
		case lo == 0:
			out.Stop = "none_passed"
		case hi == 0:
			out.Stop = "all_passed"
		default:
			out.Stop = "max_steps"
		}
		return 0, true, out
	case len(tried) == 0:
		return rundoc.Rate(start), false, out
	case hi == 0:
		return rundoc.Rate(roundRate(2 * lo)), false, out
	case lo == 0:
		return rundoc.Rate(roundRate(hi / 2)), false, out
	}
	mid := roundRate((lo + hi) / 2)
	if mid <= lo || mid >= hi {
		mid = (lo + hi) / 2
	}
	return rundoc.Rate(mid), false, out
}

// roundRate keeps three significant digits, so searched rates read as 5.5, not
// 5.4999999.
func roundRate(r float64) float64 {
	if !(r > 0) {
		return r
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(r, 'g', 3, 64), 64)
	return v
}
