package bench

import (
	"math"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// The rate_drift flag (docs/run.md "Inside a window"): a window whose one-second
// batches' rates (the batches total_tok_s's interval is computed from) step from one
// level to another by more than their own noise says, and by enough to matter.
const (
	// driftMinSide is the fewest batches on either side of a split: a level is not
	// judged from fewer than three of them.
	driftMinSide = 3
	// driftT is how many standard errors apart the two levels must be. Of every split
	// the largest is taken, so the threshold is above a single test's: on independent
	// noise it flags fewer than 1 window in 100 of 6–10 batches and 1 in 1,000 of 20
	// or more (TestDriftFalseFlags).
	driftT = 5.0
	// driftShare is the least step worth a flag, as a share of the window's rate: a
	// steady server's rate can move by a few percent as its requests' contexts grow.
	driftShare = 0.10
)

// flagDrift records how the window's rate moved and flags rate_drift where it moved
// beyond its noise; not for a cell logged before series (SliceNs 0), whose document
// has neither.
func flagDrift(run *CellRun, d *rundoc.CellDetail, b windowBatches) {
	if run.SliceNs <= 0 {
		return
	}
	if d.RateDrift = rateDrift(b); d.RateDrift != nil {
		addFlag(d, rundoc.FlagRateDrift)
	}
}

// rateDrift is how the window's rate moved, when it moved beyond its noise (the
// flag); nil when it held.
func rateDrift(b windowBatches) *rundoc.Drift {
	rates := b.rates()
	at, before, after, t, ok := stats.Shift(rates, driftMinSide)
	if !ok || t < driftT {
		return nil
	}
	mean, _ := stats.MeanSD(rates)
	if math.Abs(after-before) < driftShare*mean {
		return nil
	}
	d := &rundoc.Drift{AtS: stats.Round(float64(at)*b.seconds, 3), BeforeTokS: stats.Round(before, 2), AfterTokS: stats.Round(after, 2)}
	if !math.IsInf(t, 0) {
		d.T = measure.RoundPtr(t, 1)
	}
	return d
}

// rates are each batch's tokens over its length.
func (b windowBatches) rates() []float64 {
	r := make([]float64, len(b.tokens))
	for i, t := range b.tokens {
		r[i] = float64(t) / b.seconds
	}
	return r
}

// cellSeries is the cell's window slice by slice (measure.Series): its tokens as the
// cell counts them, each request's TTFT from its send.
func cellSeries(run *CellRun, reqs []measure.Request, c counting) *rundoc.Series {
	return measure.Series(reqs, measure.SeriesSpan{From: run.Open, To: run.Close, Slice: time.Duration(run.SliceNs),
		Tokens: func(i, j int) int { return c.counts[i][j] }, Origin: func(q *measure.Request) int64 { return q.Sent }})
}
