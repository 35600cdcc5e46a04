package overlay

import (
	"cmp"
	"slices"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// Of lays mine over best: every prefill row and decode cell either run has, with its
// figures judged (Judge). The figures are the matrix's own: prompt tok/s of a prefill
// row; total tok/s and TTFT of a decode cell.
func Of(mine, best *rundoc.Run) Overlay {
	var o Overlay
	for _, c := range prefillContexts(mine, best) {
		m, b := prefillAt(mine, c), prefillAt(best, c)
		o.Rows = append(o.Rows, Row{Prefill: true, Context: c, Figures: []Figure{
			figure("prompt_tok_s", true, prefillValue(m, promptTokS), prefillValue(b, promptTokS)),
		}})
	}
	for _, k := range decodeKeys(mine, best) {
		m, b := mine.Cell(k[0], k[1]), best.Cell(k[0], k[1])
		o.Rows = append(o.Rows, Row{Context: k[0], Concurrency: k[1], Figures: []Figure{
			figure("total_tok_s", true, decodeValue(m, totalTokS), decodeValue(b, totalTokS)),
			figure("ttft_ms", false, decodeValue(m, ttftMs), decodeValue(b, ttftMs)),
		}})
	}
	return o
}

func promptTokS(f *rundoc.PrefillFigures, ci *rundoc.PrefillIntervals) (float64, *stats.Interval) {
	return f.PromptTokS, ciOf(ci, func(i *rundoc.PrefillIntervals) *stats.Interval { return i.PromptTokSCI })
}

func totalTokS(f *rundoc.DecodeFigures, ci *rundoc.CellIntervals) (float64, *stats.Interval) {
	return f.TotalTokS, ciOf(ci, func(i *rundoc.CellIntervals) *stats.Interval { return i.TotalTokSCI })
}

func ttftMs(f *rundoc.DecodeFigures, ci *rundoc.CellIntervals) (float64, *stats.Interval) {
	return f.TTFTMs, ciOf(ci, func(i *rundoc.CellIntervals) *stats.Interval { return i.TTFTMsCI })
}

// ciOf is an interval of a cell's intervals, nil where it has none.
func ciOf[T any](ci *T, get func(*T) *stats.Interval) *stats.Interval {
	if ci == nil {
		return nil
	}
	return get(ci)
}

func decodeValue(c *rundoc.DecodeCell, get func(*rundoc.DecodeFigures, *rundoc.CellIntervals) (float64, *stats.Interval)) Value {
	if c == nil {
		return Value{}
	}
	v := Value{Status: c.Status}
	if c.DecodeFigures != nil {
		v.V, v.CI = get(c.DecodeFigures, c.CellIntervals)
	}
	return v
}

func prefillValue(p *rundoc.PrefillRow, get func(*rundoc.PrefillFigures, *rundoc.PrefillIntervals) (float64, *stats.Interval)) Value {
	if p == nil {
		return Value{}
	}
	v := Value{Status: p.Status}
	if p.PrefillFigures != nil {
		v.V, v.CI = get(p.PrefillFigures, p.PrefillIntervals)
	}
	return v
}

func prefillAt(r *rundoc.Run, context int) *rundoc.PrefillRow {
	for i := range r.Prefill {
		if r.Prefill[i].Context == context {
			return &r.Prefill[i]
		}
	}
	return nil
}

// prefillContexts are the prefill rows' contexts of either run, ascending, each once.
func prefillContexts(a, b *rundoc.Run) []int {
	var cs []int
	for _, r := range []*rundoc.Run{a, b} {
		for _, p := range r.Prefill {
			cs = append(cs, p.Context)
		}
	}
	slices.Sort(cs)
	return slices.Compact(cs)
}

// decodeKeys are the decode cells' (context, concurrency) of either run, in context
// then concurrency order, each once.
func decodeKeys(a, b *rundoc.Run) [][2]int {
	var ks [][2]int
	for _, r := range []*rundoc.Run{a, b} {
		for _, c := range r.Decode {
			ks = append(ks, [2]int{c.Context, c.Concurrency})
		}
	}
	slices.SortFunc(ks, func(x, y [2]int) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
	return slices.Compact(ks)
}
