package board

import (
	"context"
	"math"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/stats"
)

// A leaderboard value's 95% interval is read from the run document: the store
// indexes values, not intervals. To key a bound exactly as the store keys the value
// (context, level, an open-loop cell's conditions), the metric's own Values function
// reads a copy of the run whose figure holds the bound instead (boundRun).

// boundSubst puts the low (or high) end of each cell's interval of a metric in place
// of its figure, NaN where the cell has no interval. Metrics without one (energy,
// cost, run-level figures) have no entry.
var boundSubst = map[string]func(r *rundoc.Run, end func(*stats.Interval) float64){
	"total_tok_s": func(r *rundoc.Run, end func(*stats.Interval) float64) {
		eachDecode(r, func(f *rundoc.DecodeFigures, ci *rundoc.CellIntervals) { f.TotalTokS = end(ci.TotalTokSCI) })
	},
	"per_request_tok_s": func(r *rundoc.Run, end func(*stats.Interval) float64) {
		eachDecode(r, func(f *rundoc.DecodeFigures, ci *rundoc.CellIntervals) {
			f.PerRequestTokS = end(ci.PerRequestTokSCI(f))
		})
	},
	"ttft_ms": func(r *rundoc.Run, end func(*stats.Interval) float64) {
		eachDecode(r, func(f *rundoc.DecodeFigures, ci *rundoc.CellIntervals) { f.TTFTMs = end(ci.TTFTMsCI) })
	},
	"prompt_tok_s": func(r *rundoc.Run, end func(*stats.Interval) float64) {
		for i := range r.Prefill {
			p := &r.Prefill[i]
			if p.PrefillFigures == nil {
				continue
			}
			f := *p.PrefillFigures
			var iv *stats.Interval
			if p.PrefillIntervals != nil {
				iv = p.PromptTokSCI
			}
			f.PromptTokS = end(iv)
			p.PrefillFigures = &f
		}
	},
	"goodput_rps": rateSubst(func(f *rundoc.RateFigures, ri *rundoc.RateIntervals) (**float64, *stats.Interval) {
		return &f.GoodputRPS, ri.GoodputRPSCI
	}),
	"slo_met_ratio": rateSubst(func(f *rundoc.RateFigures, ri *rundoc.RateIntervals) (**float64, *stats.Interval) {
		return &f.SLOMetRatio, ri.SLOMetRatioCI
	}),
	"rate_ttft_p50_ms": rateSubst(func(f *rundoc.RateFigures, ri *rundoc.RateIntervals) (**float64, *stats.Interval) {
		return &f.TTFTMs.P50, pct(ri.TTFTMs, 50)
	}),
	"rate_ttft_p90_ms": rateSubst(func(f *rundoc.RateFigures, ri *rundoc.RateIntervals) (**float64, *stats.Interval) {
		return &f.TTFTMs.P90, pct(ri.TTFTMs, 90)
	}),
	"rate_tpot_p50_ms": rateSubst(func(f *rundoc.RateFigures, ri *rundoc.RateIntervals) (**float64, *stats.Interval) {
		return &f.TPOTMs.P50, pct(ri.TPOTMs, 50)
	}),
}

// eachDecode gives every decode cell with figures a copy of them to change, with its
// intervals (empty for a cell without any).
func eachDecode(r *rundoc.Run, set func(*rundoc.DecodeFigures, *rundoc.CellIntervals)) {
	for i := range r.Decode {
		c := &r.Decode[i]
		if c.DecodeFigures == nil {
			continue
		}
		f := *c.DecodeFigures
		ci := c.CellIntervals
		if ci == nil {
			ci = &rundoc.CellIntervals{}
		}
		set(&f, ci)
		c.DecodeFigures = &f
	}
}

func rateSubst(field func(*rundoc.RateFigures, *rundoc.RateIntervals) (**float64, *stats.Interval)) func(*rundoc.Run, func(*stats.Interval) float64) {
	return func(r *rundoc.Run, end func(*stats.Interval) float64) {
		for i := range r.Rate {
			c := &r.Rate[i]
			if c.RateFigures == nil {
				continue
			}
			f := *c.RateFigures
			ri := f.RateIntervals
			if ri == nil {
				ri = &rundoc.RateIntervals{}
			}
			p, iv := field(&f, ri)
			if *p != nil {
				v := end(iv)
				*p = &v
			}
			c.RateFigures = &f
		}
	}
}

func pct(p *rundoc.PercentileCIs, n int) *stats.Interval {
	switch {
	case p == nil:
		return nil
	case n == 50:
		return p.P50
	default:
		return p.P90
	}
}

func lowEnd(iv *stats.Interval) float64 {
	if iv == nil {
		return math.NaN()
	}
	return iv.Low
}

func highEnd(iv *stats.Interval) float64 {
	if iv == nil {
		return math.NaN()
	}
	return iv.High
}

// boundKey is a value's place as the store keys it.
type boundKey struct {
	metric  string
	context int
	level   float64
	cond    string
}

// runBounds are every interval of a run's ranked values, and the cells the run did
// not measure because they were over capacity (keyed by their axis, context and
// level; no interval): the board marks those as such rather than as missing.
type runBounds struct {
	ci   map[boundKey]stats.Interval
	over map[boundKey]bool
}

// boundsOf reads the intervals of every metric that has them, and the cells over
// capacity, from a run document.
func boundsOf(run *rundoc.Run) runBounds {
	over := map[boundKey]bool{}
	for _, c := range run.Decode {
		if c.Status == rundoc.StatusOverCapacity {
			over[boundKey{string(metric.AxisConcurrency), c.Context, float64(c.Concurrency), ""}] = true
		}
	}
	for _, p := range run.Prefill {
		if p.Status == rundoc.StatusOverCapacity {
			over[boundKey{string(metric.AxisPrefill), p.Context, 0, ""}] = true
		}
	}
	return runBounds{ci: intervalsOf(run), over: over}
}

// intervalsOf reads the intervals of every metric that has them from a run document.
func intervalsOf(run *rundoc.Run) map[boundKey]stats.Interval {
	out := map[boundKey]stats.Interval{}
	for name, subst := range boundSubst {
		m, ok := metric.MetricByName(name)
		if !ok {
			continue
		}
		lo, hi := m.Values(withBound(run, name, subst, lowEnd)), m.Values(withBound(run, name, subst, highEnd))
		if len(lo) != len(hi) {
			continue // the copies keep every cell, so never; but never pair them wrongly
		}
		for i := range lo {
			l, h := lo[i].Value, hi[i].Value
			if math.IsNaN(l) || math.IsNaN(h) || math.IsInf(l, 0) || math.IsInf(h, 0) {
				continue
			}
			out[boundKey{name, lo[i].Context, lo[i].Level, lo[i].Cond}] = stats.Interval{Low: l, High: h}
		}
	}
	return out
}

// withBound is a copy of run whose metric's figures are their intervals' ends; the
// document itself is not changed.
func withBound(run *rundoc.Run, metric string, subst func(*rundoc.Run, func(*stats.Interval) float64), end func(*stats.Interval) float64) *rundoc.Run {
	c := *run
	c.Decode = append([]rundoc.DecodeCell(nil), run.Decode...)
	c.Prefill = append([]rundoc.PrefillRow(nil), run.Prefill...)
	c.Rate = append([]rundoc.RateCell(nil), run.Rate...)
	subst(&c, end)
	return &c
}

// bounds returns the intervals of the runs with ids, reading the documents not yet
// kept: a stored run never changes (a different document under its id is refused),
// so they never go stale. A run that cannot be read has none (its entry shows no interval).
func (b *Board) bounds(ctx context.Context, ids []string) map[string]runBounds {
	out := map[string]runBounds{}
	for _, id := range ids {
		b, ok := b.boundsCache.Get(id, func() (runBounds, bool) {
			_, run, err := b.Run(ctx, id)
			if err != nil {
				b.log.Warn("reading a run for its intervals", "id", id, "err", err)
				return runBounds{}, false
			}
			return boundsOf(run), true
		})
		if ok {
			out[id] = b
		}
	}
	return out
}

// OverCapacity says which cells the runs with ids did not measure because they were
// over capacity: over(id, axis, context, level) for a decode cell (AxisConcurrency)
// or a prefill row (AxisPrefill, level 0). The board marks those as such rather than
// as missing.
func (b *Board) OverCapacity(ctx context.Context, ids []string) func(id string, axis metric.Axis, context int, level float64) bool {
	bs := b.bounds(ctx, ids)
	return func(id string, axis metric.Axis, context int, level float64) bool {
		return bs[id].over[boundKey{string(axis), context, level, ""}]
	}
}

// Intervals are the 95% intervals of the values of the runs with ids at cell, in the
// order of ids: nil where a run has none.
func (b *Board) Intervals(ctx context.Context, ids []string, cell Cell) []*stats.Interval {
	bs := b.bounds(ctx, ids)
	out := make([]*stats.Interval, len(ids))
	for i, id := range ids {
		out[i] = boundOf(bs, id, cell)
	}
	return out
}
