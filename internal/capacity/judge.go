package capacity

import (
	"math"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// This file holds how one cell is judged against the targets: the interval rule.

// judged is a cell as the targets see it: the per-request speed and the TTFT it is
// judged by, and whether it meets both.
type judged struct {
	n            int
	valid        bool // a valid (or predicted) cell with finite, positive figures
	tokS, ttftMs float64
	fromInterval bool
	pass         bool
}

// judge reads a cell by the interval rule: where the cell has a 95% interval, the
// per-request speed it is judged by is the interval's low end and the TTFT its high
// end, so a cell meets a target only when its whole interval does; without one, the
// point value (per_request_tok_s's interval: rundoc's PerRequestTokSCI). TTFT is the
// cell's median. Only valid cells (and a calc document's predicted ones) count.
func judge(c *rundoc.DecodeCell, t Targets) judged {
	j := judged{n: c.Concurrency}
	f := c.DecodeFigures
	if f == nil || (c.Status != rundoc.StatusValid && c.Status != rundoc.StatusPredicted) {
		return j
	}
	j.tokS, j.ttftMs = f.PerRequestTokS, f.TTFTMs
	if ci := c.CellIntervals; ci != nil {
		if iv := ci.PerRequestTokSCI(f); iv != nil {
			j.tokS, j.fromInterval = iv.Low, true
		}
		if iv := ci.TTFTMsCI; iv != nil {
			j.ttftMs, j.fromInterval = iv.High, true
		}
	}
	// A TTFT the document left out reads as 0 ms, which would meet any target: the
	// cell has no TTFT to be judged by (rundoc.Measured).
	j.valid = finite(j.tokS) && j.tokS > 0 && rundoc.Measured(f.TTFTMs) && finite(j.ttftMs) && j.ttftMs >= 0
	j.pass = j.valid && j.tokS >= t.TokS && j.ttftMs <= t.TTFTMs
	return j
}

// limit names the target a failing cell missed; speed first when it missed both.
func (j judged) limit(t Targets) Limit {
	if j.tokS < t.TokS {
		return LimitSpeed
	}
	return LimitTTFT
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
