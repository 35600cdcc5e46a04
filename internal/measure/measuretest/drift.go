package measuretest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// DriftKind is what a rate_drift false-flag case asserts of its 100 windows.
type DriftKind int

const (
	// Measured cases are only counted (a small step, a speed that moves with load).
	Measured DriftKind = iota
	// Steady cases must never be flagged.
	Steady
	// Step cases (a 1.5× slowdown) must always be.
	Step
)

// DriftCase is one seeded server of a load shape's rate_drift table: Drift scores
// its measurement on seed and returns its drift (nil: not flagged), failing the test
// where the flag and the drift disagree.
type DriftCase struct {
	Name  string
	Kind  DriftKind
	Drift func(t *testing.T, seed uint64) *rundoc.Drift
}

// DriftTable scores each case on 100 seeds from first, fails a steady case flagged
// once and a step case missed once, and returns the table docs/run.md shows (head
// names the rows' measurements: "server (10 s windows) | windows").
func DriftTable(t *testing.T, head string, first uint64, cases []DriftCase) string {
	t.Helper()
	var table strings.Builder
	fmt.Fprintf(&table, "| %s | flagged `rate_drift` |\n|---|---|---|\n", head)
	for _, c := range cases {
		flagged := 0
		for seed := range uint64(100) {
			if c.Drift(t, first+seed) != nil {
				flagged++
			}
		}
		fmt.Fprintf(&table, "| %s | 100 | %d |\n", c.Name, flagged)
		switch {
		case c.Kind == Steady && flagged > 0:
			t.Errorf("%s: %d of 100 steady measurements flagged rate_drift", c.Name, flagged)
		case c.Kind == Step && flagged < 100:
			t.Errorf("%s: %d of 100 measurements flagged rate_drift, want all", c.Name, flagged)
		}
	}
	return table.String()
}
