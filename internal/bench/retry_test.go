package bench

import (
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
)

// TestRetryDelay: the wait grows with each failure in a row up to its cap, honours
// Retry-After up to its own cap, and is jittered a quarter either way.
func TestRetryDelay(t *testing.T) {
	p := measure.RetryPolicy{Base: 100 * time.Millisecond, Max: 5 * time.Second, MaxRetryAfter: 30 * time.Second}
	for _, tc := range []struct {
		failures   int
		retryAfter time.Duration
		u          float64
		want       time.Duration
	}{
		{1, 0, 0.5, 100 * time.Millisecond},
		{2, 0, 0.5, 200 * time.Millisecond},
		{4, 0, 0.5, 800 * time.Millisecond},
		{10, 0, 0.5, 5 * time.Second},
		{1, 0, 0, 75 * time.Millisecond},
		{1, 0, 0.999999, 125 * time.Millisecond},
		{1, 2 * time.Second, 0.5, 2 * time.Second},
		{1, time.Hour, 0.5, 30 * time.Second},
		{8, 2 * time.Second, 0.5, 5 * time.Second},
		{1000, 0, 0.5, 5 * time.Second},
	} {
		got := p.Delay(tc.failures, tc.retryAfter, tc.u)
		if d := got - tc.want; d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("Delay(%d, %v, %v) = %v, want %v", tc.failures, tc.retryAfter, tc.u, got, tc.want)
		}
	}
}
