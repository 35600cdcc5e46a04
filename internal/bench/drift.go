package bench

import (
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// The rate_drift flag: the rule is measure.RateDrift's, over the one-second batches
// the window's total_tok_s interval is computed from.

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
	starts := make([]float64, len(b.tokens))
	for i := range starts {
		starts[i] = float64(i) * b.seconds
	}
	return measure.RateDrift(b.rates(), starts)
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
