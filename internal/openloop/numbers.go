package openloop

import (
	"math"
	"time"

	"github.com/llmbench/llmbench/internal/stats"
)

// The arithmetic the figures are written with, as the closed loop's (bench's
// figures.go, interval.go and score.go): the same rounding, so that both loops'
// figures read alike.

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func round(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

func ptrRound(v float64, decimals int) *float64 {
	r := round(v, decimals)
	return &r
}

// relDiff is how far a is from b, as a share of b (0 when b is 0).
func relDiff(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return math.Abs(float64(a-b)) / float64(b)
}

// roundedCI rounds an interval outward and keeps it at or above floor (a rate or a
// latency is never negative).
func roundedCI(iv stats.Interval, decimals int, floor float64) *stats.Interval {
	iv.Low = math.Max(iv.Low, floor)
	r := iv.Round(decimals)
	return &r
}
