package report

import (
	"fmt"
	"strconv"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// turnCharts are a sessions run's charts by turn (docs/workloads.md): each turn's
// TTFT and TPOT p50, a line per cell with turns (a matrix cell, or a rate), so a
// reader sees what the prefix cache saves as the history grows. None without turns.
func turnCharts(run *rundoc.Run, lang string) []lineChart {
	type cell struct {
		name  string
		turns []rundoc.TurnFigures
	}
	var cells []cell
	for i := range run.Decode {
		if c := &run.Decode[i]; c.Workload != nil && len(c.Workload.Turns) > 0 {
			cells = append(cells, cell{fmt.Sprintf("%s × %d", rundoc.FormatTokens(c.Context), c.Concurrency), c.Workload.Turns})
		}
	}
	sessions := run.SessionRates()
	for _, c := range sortedByRate(rateCellPtrs(run)) {
		if c.Workload != nil && len(c.Workload.Turns) > 0 {
			cells = append(cells, cell{RateLabel(lang, sessions, c.RateRPS), c.Workload.Turns})
		}
	}
	if len(cells) == 0 {
		return nil
	}
	byTurn := func(id, titleKey, yKey string, stat func(*rundoc.TurnFigures) *float64, decimals int) lineChart {
		c := lineChart{ID: id, Title: locale.T(lang, titleKey), XLabel: locale.T(lang, "axis_turn"), YLabel: locale.T(lang, yKey), Categorical: true,
			Lang: lang, Empty: locale.T(lang, "no_data"), LegendTitle: locale.T(lang, "legend_cell")}
		n := 0
		for k, cl := range cells {
			s := chartSeries{Name: cl.name, Color: palette[k%len(palette)]}
			for i := range cl.turns {
				t := &cl.turns[i]
				n = max(n, t.Turn)
				y := stat(t)
				if y == nil {
					if len(s.Points) > 0 {
						s.Breaks = append(s.Breaks, len(s.Points))
					}
					continue
				}
				title := locale.T(lang, "turn_point", cl.name, t.Turn, optNum(lang, t.PromptTokensMean, 0), FormatMs(lang, *y, decimals))
				s.Points = append(s.Points, chartPoint{X: float64(t.Turn - 1), Y: *y, Title: title})
			}
			if len(s.Points) > 0 {
				c.Series = append(c.Series, s)
			}
		}
		for i := range n {
			c.XTicks = append(c.XTicks, float64(i))
		}
		c.XTickLabel = func(x float64) string { return strconv.Itoa(int(x) + 1) }
		return c
	}
	return []lineChart{
		byTurn("lb-chart-turn-ttft", "chart_turn_ttft", "axis_ttft_ms", func(t *rundoc.TurnFigures) *float64 { return t.TTFTMs.P50 }, 1),
		byTurn("lb-chart-turn-tpot", "chart_turn_tpot", "axis_tpot_ms", func(t *rundoc.TurnFigures) *float64 { return t.TPOTMs.P50 }, 2),
	}
}
