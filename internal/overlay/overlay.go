// Package overlay lays one run over another, cell by cell: "my run against the best"
// (llmbench report --against, the site's run page and its upload page). It is pure —
// two run documents in, the differences and their marks out — so that the terminal
// and the site mark exactly the same cells.
//
// The rule (Judge): a difference is marked only where both runs measured the figure in
// a valid cell and both have its 95% interval, and the two intervals do not overlap
// (intervals that touch share a point: not marked). A cell measured on one side only,
// one that is not valid on a side (over capacity, invalid, failed, interrupted,
// predicted), or a figure without an interval on a side gets its own mark and never a
// difference mark: nothing can be said of noise there.
package overlay

import (
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// Mark is what the overlay says of one figure of one cell.
type Mark string

const (
	// Better and Worse: both intervals exist and do not overlap — the difference is
	// beyond the noise, in mine's favour or against it. The only marked cells.
	Better Mark = "better"
	Worse  Mark = "worse"
	// Noise: the intervals overlap (touching included): no difference can be told.
	Noise Mark = "noise"
	// NoInterval: both measured it, but a side has no interval (an older document).
	NoInterval Mark = "no_interval"
	// NotComparable: a side's cell is not valid (over capacity, invalid, failed,
	// interrupted, predicted) or has no measurement of this figure.
	NotComparable Mark = "not_comparable"
	// OnlyMine and OnlyBest: the cell is in one run's matrix only.
	OnlyMine Mark = "only_mine"
	OnlyBest Mark = "only_best"
)

// Marked says whether the mark is a difference beyond the noise.
func (m Mark) Marked() bool { return m == Better || m == Worse }

// Value is one side's figure: its cell's status ("" when the run has no such cell),
// the figure and its interval (nil without one).
type Value struct {
	Status rundoc.Status   `json:"status,omitempty"`
	V      float64         `json:"value"`
	CI     *stats.Interval `json:"ci,omitempty"`
}

// Figure is one figure of a cell on both sides and its mark. Delta is mine over best
// less one (−0.04: 4% lower), set where both measured it.
type Figure struct {
	Name           string   `json:"name"` // total_tok_s, ttft_ms, prompt_tok_s
	HigherIsBetter bool     `json:"higher_is_better"`
	Mine           Value    `json:"mine"`
	Best           Value    `json:"best"`
	Delta          *float64 `json:"delta,omitempty"`
	Mark           Mark     `json:"mark"`
}

// Row is a prefill row (Concurrency 0) or a decode cell, with its figures.
type Row struct {
	Prefill     bool     `json:"prefill,omitempty"`
	Context     int      `json:"context"`
	Concurrency int      `json:"concurrency,omitempty"`
	Figures     []Figure `json:"figures"`
}

// Overlay is every row of either run, prefill first, each in context then
// concurrency order.
type Overlay struct {
	Rows []Row `json:"rows"`
}

// Marked counts the figures marked Better and Worse.
func (o Overlay) Marked() (better, worse int) {
	for _, r := range o.Rows {
		for _, f := range r.Figures {
			switch f.Mark {
			case Better:
				better++
			case Worse:
				worse++
			}
		}
	}
	return better, worse
}

// Judge is the rule of the package comment for one figure.
func Judge(mine, best Value, higherIsBetter bool) Mark {
	switch {
	case mine.Status == "":
		return OnlyBest
	case best.Status == "":
		return OnlyMine
	case mine.Status != rundoc.StatusValid || best.Status != rundoc.StatusValid,
		!rundoc.Measured(mine.V) || !rundoc.Measured(best.V):
		return NotComparable
	case mine.CI == nil || best.CI == nil:
		return NoInterval
	case mine.CI.Overlaps(*best.CI):
		return Noise
	}
	if (mine.CI.Low > best.CI.High) == higherIsBetter {
		return Better
	}
	return Worse
}

// figure judges one figure and its delta.
func figure(name string, higher bool, mine, best Value) Figure {
	f := Figure{Name: name, HigherIsBetter: higher, Mine: mine, Best: best, Mark: Judge(mine, best, higher)}
	if f.Mark.Marked() || f.Mark == Noise || f.Mark == NoInterval {
		d := mine.V/best.V - 1
		f.Delta = &d
	}
	return f
}
