package capacity

import (
	"cmp"
	"slices"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// This file holds an open-loop document's capacity: the highest request rate meeting its SLO.

// RateAnswer is an open-loop run's capacity in the same words as a matrix's: the
// highest rate of requests per second at which the SLO was met (the share of requests
// meeting every latency target at or above the SLO's target) without the queue
// growing.
type RateAnswer struct {
	InputLen  int        `json:"input_len"`
	OutputLen int        `json:"output_len"`
	SLO       rundoc.SLO `json:"slo"`
	// RPS is that rate, nil when no rate tried met the SLO; FailedRPS the lowest rate
	// that did not, nil when every rate tried met it (not measured beyond).
	RPS       *float64 `json:"rps"`
	FailedRPS *float64 `json:"failed_rps,omitempty"`
	// Searched: the answer is a --find-max-rate search's; otherwise the run's fixed
	// rates were walked from the lowest up, as a matrix row's columns are.
	Searched bool `json:"searched,omitempty"`
}

// OfRates is an open-loop run's capacity, or nil when the run has no SLO to judge by.
func OfRates(run *rundoc.Run) *RateAnswer {
	rc := run.Config.Rate
	if rc == nil || rc.SLO == nil {
		return nil
	}
	a := &RateAnswer{InputLen: rc.InputLen, OutputLen: rc.OutputLen, SLO: *rc.SLO}
	if m := run.MaxRate; m != nil {
		a.RPS, a.FailedRPS, a.Searched = m.MaxRateRPS, m.FailedRPS, true
		return a
	}
	cells := make([]*rundoc.RateCell, 0, len(run.Rate))
	for i := range run.Rate {
		if !run.Rate[i].RateRPS.IsInf() {
			cells = append(cells, &run.Rate[i])
		}
	}
	slices.SortStableFunc(cells, func(x, y *rundoc.RateCell) int { return cmp.Compare(x.RateRPS, y.RateRPS) })
	for _, c := range cells {
		r := float64(c.RateRPS)
		if !c.Passes() {
			if c.Status == rundoc.StatusValid {
				a.FailedRPS = &r // a cell that did not run validly says nothing beyond
			}
			break
		}
		a.RPS = &r
	}
	return a
}
