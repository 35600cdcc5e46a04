// Package benchtest holds the test helpers that the closed loop's tests
// (internal/bench) and the open loop's (internal/openloop) share.
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
