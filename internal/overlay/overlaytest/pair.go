// Package overlaytest holds what the overlay's tests share (the overlay package's,
// the report's, the command line's and the site's): a run and a best run of the same
// GPU and model, made from the seed, with one case of each kind of the overlay's rule
// and the figures it must mark.
package overlaytest

import (
	"encoding/json"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/seed"
	"github.com/llmbench/llmbench/internal/stats"
)

// Key names one figure of one row: a prefill row's (Concurrency 0) or a decode cell's.
type Key struct {
	Prefill     bool
	Context     int
	Concurrency int
	Figure      string
}

// Pair is the seed twice, as "mine" and "best" (ids "mine-seed" and "best-seed"),
// with intervals set so that the overlay meets each case of its rule:
//   - decode (0,1): the same intervals; (0,2): touching (mine's low is best's high);
//   - (0,4): disjoint, mine lower (worse); (0,8): disjoint, mine higher (better), and
//     its TTFT disjoint and higher (worse);
//   - (0,16): valid in mine, over capacity in best;
//   - (16384,1): no interval in mine; (16384,2): over capacity in mine, valid in best;
//   - (32768,1): in mine only; (57344,1): in best only;
//   - prefill 8192: disjoint, mine higher (better); the others overlap.
//
// Marked is every figure the overlay must mark, and only those.
func Pair() (mine, best *rundoc.Run, marked map[Key]string) {
	mine, best = decode(), decode()
	mine.ID, best.ID = "mine-seed", "best-seed"
	mine.Title, best.Title = "Mine: Qwen3.8-27B-INT4 on RTX 3090", "Best: Qwen3.8-27B-INT4 on RTX 3090"
	for _, r := range []*rundoc.Run{mine, best} {
		for i := range r.Decode {
			c := &r.Decode[i]
			if c.DecodeFigures != nil {
				c.CellIntervals = &rundoc.CellIntervals{TotalTokSCI: around(c.TotalTokS, 0.01), TTFTMsCI: around(c.TTFTMs, 0.05)}
			}
		}
		for i := range r.Prefill {
			p := &r.Prefill[i]
			p.PrefillIntervals = &rundoc.PrefillIntervals{PromptTokSCI: around(p.PromptTokS, 0.01)}
		}
	}
	set(mine, 0, 2, 92.0, stats.Interval{Low: 90.3, High: 93.7})
	set(best, 0, 2, 89.4, stats.Interval{Low: 88.5, High: 90.3})
	set(mine, 0, 4, 150.0, stats.Interval{Low: 148, High: 152})
	set(mine, 0, 8, 360.0, stats.Interval{Low: 355, High: 365})
	c := mine.Cell(0, 8)
	c.TTFTMs, c.TTFTMsCI = c.TTFTMs*2, around(c.TTFTMs*2, 0.05)
	overCapacity(best, 0, 16)
	mine.Cell(0, 16).Status, mine.Cell(0, 16).Reason = rundoc.StatusValid, ""
	mine.Cell(0, 16).DecodeFigures = &rundoc.DecodeFigures{TotalTokS: 400, PerRequestTokS: 25, TTFTMs: 900, TBTMs: 40}
	mine.Cell(0, 16).CellIntervals = &rundoc.CellIntervals{TotalTokSCI: around(400, 0.01), TTFTMsCI: around(900, 0.05)}
	mine.Cell(16384, 1).CellIntervals = nil
	overCapacity(mine, 16384, 2)
	drop(best, 32768, 1)
	drop(mine, 57344, 1)
	p := &mine.Prefill[0]
	p.PromptTokS, p.PromptTokSCI = p.PromptTokS*1.2, around(p.PromptTokS*1.2, 0.01)
	marked = map[Key]string{
		{Context: 0, Concurrency: 4, Figure: "total_tok_s"}:    "worse",
		{Context: 0, Concurrency: 8, Figure: "total_tok_s"}:    "better",
		{Context: 0, Concurrency: 8, Figure: "ttft_ms"}:        "worse",
		{Prefill: true, Context: 8192, Figure: "prompt_tok_s"}: "better",
	}
	return mine, best, marked
}

// decode is a fresh copy of the seed run.
func decode() *rundoc.Run {
	var r rundoc.Run
	if err := json.Unmarshal(seed.RunJSON, &r); err != nil {
		panic("overlaytest: the seed run does not decode: " + err.Error())
	}
	return &r
}

// around is v's interval of ±rel, at one decimal as runs publish them.
func around(v, rel float64) *stats.Interval {
	return stats.RoundedCI(stats.Interval{Low: v * (1 - rel), High: v * (1 + rel)}, 1, 0)
}

// set gives a cell its total tok/s and that figure's interval.
func set(r *rundoc.Run, ctx, n int, tokS float64, ci stats.Interval) {
	c := r.Cell(ctx, n)
	c.TotalTokS, c.PerRequestTokS, c.TotalTokSCI = tokS, tokS/float64(n), &ci
}

// overCapacity makes a cell over capacity: no figures, as a run writes it.
func overCapacity(r *rundoc.Run, ctx, n int) {
	c := r.Cell(ctx, n)
	*c = rundoc.DecodeCell{Context: ctx, Concurrency: n, Status: rundoc.StatusOverCapacity, Reason: "would exceed the KV cache"}
}

// drop takes a cell out of the run's matrix.
func drop(r *rundoc.Run, ctx, n int) {
	for i, c := range r.Decode {
		if c.Context == ctx && c.Concurrency == n {
			r.Decode = append(r.Decode[:i], r.Decode[i+1:]...)
			return
		}
	}
}
