// Package benchtest holds the test helpers that measurement's tests share: the
// closed loop's (internal/bench), the open loop's (internal/openloop) and power
// scoring's (internal/power).
package benchtest

import (
	"math"
	"testing"
)

// Near fails t unless got is want within tol; a nil got fails too.
func Near(t *testing.T, what string, got *float64, want, tol float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s = nil, want %.4f", what, want)
		return
	}
	if math.Abs(*got-want) > tol {
		t.Errorf("%s = %.4f, want %.4f ± %g", what, *got, want, tol)
	}
}
