package rundoc

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseMillis reads a latency target as the flags take it: a Go duration ("500ms",
// "1s") or a bare number of milliseconds; it must be positive and finite.
func ParseMillis(s string) (float64, error) {
	val := strings.TrimSpace(s)
	var v float64
	if d, err := time.ParseDuration(val); err == nil {
		v = float64(d) / float64(time.Millisecond)
	} else if f, err := strconv.ParseFloat(val, 64); err == nil {
		v = f
	} else {
		return 0, fmt.Errorf("%q is not a duration (500ms, 2s)", s)
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("the target must be positive")
	}
	return v, nil
}
