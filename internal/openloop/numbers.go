package openloop

import (
	"math"
	"time"

	"github.com/llmbench/llmbench/internal/stats"
)

// The arithmetic the figures are written with; their rounding is stats.Round and
// stats.RoundedCI, the closed loop's, so that both loops' figures read alike.

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func ptrRound(v float64, decimals int) *float64 {
	r := stats.Round(v, decimals)
	return &r
}

// relDiff is how far a is from b, as a share of b (0 when b is 0).
func relDiff(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return math.Abs(float64(a-b)) / float64(b)
}
