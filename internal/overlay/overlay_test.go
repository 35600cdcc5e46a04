package overlay

import (
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

func iv(lo, hi float64) *stats.Interval { return &stats.Interval{Low: lo, High: hi} }

func valid(v float64, ci *stats.Interval) Value {
	return Value{Status: rundoc.StatusValid, V: v, CI: ci}
}

// TestJudgeMarksExactlyDisjointIntervals is the rule, case by case: only intervals
// that share no point are marked, and the cases where noise cannot be judged get
// their own mark, never a difference mark.
func TestJudgeMarksExactlyDisjointIntervals(t *testing.T) {
	for _, c := range []struct {
		name       string
		mine, best Value
		higher     bool
		want       Mark
	}{
		{"overlapping", valid(100, iv(95, 105)), valid(103, iv(100, 106)), true, Noise},
		{"one inside the other", valid(100, iv(90, 110)), valid(101, iv(100, 102)), true, Noise},
		{"touching: mine's high is best's low", valid(100, iv(95, 100)), valid(105, iv(100, 110)), true, Noise},
		{"touching: mine's low is best's high", valid(105, iv(100, 110)), valid(100, iv(95, 100)), true, Noise},
		{"disjoint, mine higher, higher is better", valid(120, iv(115, 125)), valid(100, iv(95, 105)), true, Better},
		{"disjoint, mine lower, higher is better", valid(80, iv(75, 85)), valid(100, iv(95, 105)), true, Worse},
		{"disjoint by a hair", valid(100, iv(95, 99.999)), valid(105, iv(100, 110)), true, Worse},
		{"disjoint, mine lower, lower is better (TTFT)", valid(80, iv(75, 85)), valid(100, iv(95, 105)), false, Better},
		{"disjoint, mine higher, lower is better (TTFT)", valid(120, iv(115, 125)), valid(100, iv(95, 105)), false, Worse},
		{"missing in best", valid(100, iv(95, 105)), Value{}, true, OnlyMine},
		{"missing in mine", Value{}, valid(100, iv(95, 105)), true, OnlyBest},
		{"over capacity in mine", Value{Status: rundoc.StatusOverCapacity}, valid(100, iv(95, 105)), true, NotComparable},
		{"over capacity in best, far apart figures", valid(500, iv(490, 510)), Value{Status: rundoc.StatusOverCapacity, V: 10, CI: iv(9, 11)}, true, NotComparable},
		{"invalid in mine, disjoint intervals", Value{Status: rundoc.StatusInvalid, V: 10, CI: iv(9, 11)}, valid(100, iv(95, 105)), true, NotComparable},
		{"failed in best", valid(100, iv(95, 105)), Value{Status: rundoc.StatusFailed}, true, NotComparable},
		{"predicted in best", valid(100, iv(95, 105)), Value{Status: rundoc.StatusPredicted, V: 10}, true, NotComparable},
		{"valid but the figure not measured (0)", valid(0, nil), valid(100, iv(95, 105)), true, NotComparable},
		{"no interval in mine", valid(100, nil), valid(200, iv(195, 205)), true, NoInterval},
		{"no interval in best", valid(100, iv(95, 105)), valid(200, nil), true, NoInterval},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Judge(c.mine, c.best, c.higher)
			if got != c.want {
				t.Errorf("Judge = %s, want %s", got, c.want)
			}
			// The mark is a difference exactly when both intervals exist in valid
			// cells and share no point.
			disjoint := c.mine.Status == rundoc.StatusValid && c.best.Status == rundoc.StatusValid &&
				rundoc.Measured(c.mine.V) && rundoc.Measured(c.best.V) &&
				c.mine.CI != nil && c.best.CI != nil && (c.mine.CI.High < c.best.CI.Low || c.best.CI.High < c.mine.CI.Low)
			if got.Marked() != disjoint {
				t.Errorf("Marked() = %v, but the intervals are disjoint: %v", got.Marked(), disjoint)
			}
		})
	}
}

func decodeCell(ctx, n int, status rundoc.Status, tok float64, tokCI *stats.Interval, ttft float64, ttftCI *stats.Interval) rundoc.DecodeCell {
	c := rundoc.DecodeCell{Context: ctx, Concurrency: n, Status: status}
	if tok > 0 {
		c.DecodeFigures = &rundoc.DecodeFigures{TotalTokS: tok, PerRequestTokS: tok / float64(n), TTFTMs: ttft, TBTMs: 1000 / (tok / float64(n))}
	}
	if tokCI != nil || ttftCI != nil {
		c.CellIntervals = &rundoc.CellIntervals{TotalTokSCI: tokCI, TTFTMsCI: ttftCI}
	}
	return c
}

// TestOfLaysEveryCellOver: every row of either run, in order, each figure judged from
// its own cell, and a delta only where both figures can be compared.
func TestOfLaysEveryCellOver(t *testing.T) {
	mine := &rundoc.Run{
		Prefill: []rundoc.PrefillRow{
			{Context: 8192, Status: rundoc.StatusValid, PrefillFigures: &rundoc.PrefillFigures{PromptTokS: 2000, TTFTMs: 4096},
				PrefillIntervals: &rundoc.PrefillIntervals{PromptTokSCI: iv(1900, 2100)}},
			{Context: 512, Status: rundoc.StatusValid, PrefillFigures: &rundoc.PrefillFigures{PromptTokS: 900, TTFTMs: 569}},
		},
		Decode: []rundoc.DecodeCell{
			decodeCell(0, 4, rundoc.StatusValid, 150, iv(145, 155), 80, iv(70, 90)),    // best higher, disjoint; TTFT overlaps
			decodeCell(0, 1, rundoc.StatusValid, 50, iv(49, 51), 40, iv(39, 41)),       // equal
			decodeCell(0, 64, rundoc.StatusOverCapacity, 0, nil, 0, nil),               // over capacity here
			decodeCell(8192, 1, rundoc.StatusValid, 45, iv(44, 46), 500, iv(480, 520)), // only mine
		},
	}
	best := &rundoc.Run{
		Prefill: []rundoc.PrefillRow{
			{Context: 8192, Status: rundoc.StatusValid, PrefillFigures: &rundoc.PrefillFigures{PromptTokS: 2500, TTFTMs: 3276},
				PrefillIntervals: &rundoc.PrefillIntervals{PromptTokSCI: iv(2400, 2600)}},
		},
		Decode: []rundoc.DecodeCell{
			decodeCell(0, 1, rundoc.StatusValid, 50.5, iv(50, 51.5), 40, iv(38, 42)),
			decodeCell(0, 4, rundoc.StatusValid, 180, iv(170, 190), 85, iv(80, 95)),
			decodeCell(0, 64, rundoc.StatusValid, 900, iv(880, 920), 2000, iv(1900, 2100)),
		},
	}
	o := Of(mine, best)
	type key struct {
		prefill bool
		ctx, n  int
		fig     string
	}
	got := map[key]Mark{}
	var order []key
	for _, r := range o.Rows {
		for _, f := range r.Figures {
			k := key{r.Prefill, r.Context, r.Concurrency, f.Name}
			got[k] = f.Mark
			order = append(order, k)
			if (f.Delta != nil) != (f.Mark.Marked() || f.Mark == Noise || f.Mark == NoInterval) {
				t.Errorf("%+v: delta %v with mark %s", k, f.Delta, f.Mark)
			}
		}
	}
	want := map[key]Mark{
		{true, 512, 0, "prompt_tok_s"}:  OnlyMine,
		{true, 8192, 0, "prompt_tok_s"}: Worse,
		{false, 0, 1, "total_tok_s"}:    Noise,
		{false, 0, 1, "ttft_ms"}:        Noise,
		{false, 0, 4, "total_tok_s"}:    Worse,
		{false, 0, 4, "ttft_ms"}:        Noise,
		{false, 0, 64, "total_tok_s"}:   NotComparable,
		{false, 0, 64, "ttft_ms"}:       NotComparable,
		{false, 8192, 1, "total_tok_s"}: OnlyMine,
		{false, 8192, 1, "ttft_ms"}:     OnlyMine,
	}
	if len(got) != len(want) {
		t.Errorf("%d figures, want %d: %v", len(got), len(want), got)
	}
	for k, m := range want {
		if got[k] != m {
			t.Errorf("%+v: %s, want %s", k, got[k], m)
		}
	}
	wantOrder := []key{{true, 512, 0, "prompt_tok_s"}, {true, 8192, 0, "prompt_tok_s"}, {false, 0, 1, "total_tok_s"}}
	for i, k := range wantOrder {
		if order[i] != k {
			t.Errorf("row %d is %+v, want %+v", i, order[i], k)
		}
	}
	if b, w := o.Marked(); b != 0 || w != 2 {
		t.Errorf("Marked() = %d better, %d worse; want 0 and 2", b, w)
	}
	// Swapped, the same cells are marked the other way.
	if b, w := Of(best, mine).Marked(); b != 2 || w != 0 {
		t.Errorf("swapped: Marked() = %d better, %d worse; want 2 and 0", b, w)
	}
}
