package ui

import (
	"context"
	"fmt"
	"html/template"
	"slices"
	"strconv"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/stats"
)

// The site's charts are drawn by internal/report (the code of the run report's own
// charts); this file only picks what to draw. A chart of several runs numbers its
// lines and the page prints the legend beside it, with links, since run titles are
// too long for the SVG's legend.

// chartView is a chart and its legend.
type chartView struct {
	Title  string
	SVG    template.HTML
	Legend []legendItem
}

type legendItem struct {
	Mark, Color, Name, URL string
	// Note says the line lies on another (the same values), drawn dashed over it.
	Note string
}

// sameLines is legend with a note on each item whose line lies on an earlier one, as
// the chart finds and draws it (report.Coincident): two runs that tie would otherwise
// show as one line.
func sameLines(lang string, legend []legendItem, lines []report.Line, categorical bool) []legendItem {
	same := report.Coincident(lines, categorical)
	out := slices.Clone(legend)
	for i := range out {
		if i < len(same) && same[i] >= 0 {
			out[i].Note = locale.T(lang, "chart_same_line", legend[same[i]].Mark)
		}
	}
	return out
}

// tradeoffRuns is how many runs a trade-off chart draws: more lines than colours
// cannot be told apart.
const tradeoffRuns = 8

// tradeoffChart draws per-request against total tok/s at atContext for runs, one
// line per run through its cells in order of concurrency, from the store's values.
func (s *Pages) tradeoffChart(ctx context.Context, lang, id string, runs []store.RunRecord, atContext int) (*chartView, error) {
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	vals, err := s.store.CellValues(ctx, ids, "total_tok_s", "per_request_tok_s")
	if err != nil {
		return nil, err
	}
	cv := &chartView{}
	var lines []report.Line
	for _, r := range runs {
		total, per := map[float64]float64{}, map[float64]float64{}
		var levels []float64
		for _, v := range vals[r.ID] {
			if v.Context != atContext {
				continue
			}
			switch v.Metric {
			case "total_tok_s":
				total[v.Level] = v.Value
				levels = append(levels, v.Level)
			case "per_request_tok_s":
				per[v.Level] = v.Value
			}
		}
		slices.Sort(levels)
		mark := strconv.Itoa(len(lines) + 1)
		line := report.Line{Name: mark}
		for _, l := range levels {
			p, ok := per[l]
			if !ok {
				continue
			}
			line.Points = append(line.Points, report.XY{X: total[l], Y: p,
				Title: locale.T(lang, "tradeoff_point", r.Title, board.FormatLevel(l), report.FormatNumber(lang, total[l], 1), report.FormatNumber(lang, p, 1))})
		}
		if len(line.Points) == 0 {
			continue
		}
		cv.Legend = append(cv.Legend, legendItem{Mark: mark, Color: report.ChartColor(len(lines)), Name: r.Title + " · " + gpuLabel(r), URL: "/runs/" + pathEscape(r.ID)})
		lines = append(lines, line)
	}
	cv.Title = locale.T(lang, "chart_tradeoff", rundoc.FormatTokens(atContext))
	cv.SVG = report.TradeoffChart(lang, id, cv.Title, lines)
	cv.Legend = sameLines(lang, cv.Legend, lines, false)
	return cv, nil
}

// bestChart draws the best value per group (GPU, model) at a cell as bars, ranked
// as the leaderboard ranks (board.Tied): a bar whose run's 95% interval overlaps the one
// above's, or that reads the same value, ties with it.
func (s *Pages) bestChart(ctx context.Context, lang, id, title string, cell board.Cell, best []store.GroupBest) template.HTML {
	ids := make([]string, len(best))
	for i, b := range best {
		ids[i] = b.RunID
	}
	cis := s.board.Intervals(ctx, ids, cell)
	var bars []report.Bar
	var above *stats.Interval
	for i, b := range best {
		value := report.FormatNumber(lang, b.Value, cell.Metric.Decimals)
		ci := cis[i]
		bar := report.Bar{Label: b.Name, Value: b.Value, Title: locale.T(lang, "best_bar", b.Name, value, cell.Metric.Unit, b.RunID, b.Runs)}
		if i > 0 && (board.Tied(above, ci) || value == report.FormatNumber(lang, best[i-1].Value, cell.Metric.Decimals)) {
			bar.Tied, bar.Title = true, bar.Title+" · "+locale.T(lang, "tie_title")
		}
		bars, above = append(bars, bar), ci
	}
	return report.BarChart(lang, id, title, cell.Label(lang)+" · "+cell.Metric.Unit, bars, cell.Metric.Decimals)
}

// compareCharts draws the compared runs together: total tok/s against concurrency at
// context 0, prefill tok/s against context, and the trade-off at context 0.
func compareCharts(runs []runView, concurrency []int, lang string) []chartView {
	var levels []float64
	for _, c := range concurrency {
		levels = append(levels, float64(c))
	}
	var prefillCtx []int
	for _, rv := range runs {
		for _, p := range rv.Run.Prefill {
			if !slices.Contains(prefillCtx, p.Context) {
				prefillCtx = append(prefillCtx, p.Context)
			}
		}
	}
	slices.Sort(prefillCtx)
	var contexts []float64
	for _, c := range prefillCtx {
		contexts = append(contexts, float64(c))
	}
	var legend []legendItem
	var decode, prefill, tradeoff []report.Line
	for i, rv := range runs {
		mark := strconv.Itoa(i + 1)
		legend = append(legend, legendItem{Mark: mark, Color: report.ChartColor(i), Name: rv.Rec.Title, URL: "/runs/" + pathEscape(rv.Rec.ID)})
		d, t := report.Line{Name: mark}, report.Line{Name: mark}
		for _, c := range concurrency {
			cell := rv.Run.Cell(0, c)
			if cell == nil || cell.DecodeFigures == nil || (cell.Status != rundoc.StatusValid && cell.Status != rundoc.StatusPredicted) ||
				!metric.Measured(cell.TotalTokS) || !metric.Measured(cell.PerRequestTokS) {
				continue
			}
			d.Points = append(d.Points, report.XY{X: float64(c), Y: cell.TotalTokS, Title: fmt.Sprintf("%s · 0 × %d: %s tok/s", rv.Rec.Title, c, report.FormatNumber(lang, cell.TotalTokS, 1))})
			t.Points = append(t.Points, report.XY{X: cell.TotalTokS, Y: cell.PerRequestTokS,
				Title: locale.T(lang, "tradeoff_point", rv.Rec.Title, strconv.Itoa(c), report.FormatNumber(lang, cell.TotalTokS, 1), report.FormatNumber(lang, cell.PerRequestTokS, 1))})
		}
		p := report.Line{Name: mark}
		for _, c := range prefillCtx {
			for _, row := range rv.Run.Prefill {
				if row.Context == c && row.PrefillFigures != nil && (row.Status == rundoc.StatusValid || row.Status == rundoc.StatusPredicted) && metric.Measured(row.PromptTokS) {
					p.Points = append(p.Points, report.XY{X: float64(c), Y: row.PromptTokS, Title: fmt.Sprintf("%s · %s: %s tok/s", rv.Rec.Title, rundoc.FormatTokens(c), report.FormatNumber(lang, row.PromptTokS, 0))})
				}
			}
		}
		decode, prefill, tradeoff = append(decode, d), append(prefill, p), append(tradeoff, t)
	}
	concLabel := func(x float64) string { return strconv.Itoa(int(x)) }
	ctxLabel := func(x float64) string { return rundoc.FormatTokens(int(x)) }
	return []chartView{
		{Title: locale.T(lang, "chart_decode"), SVG: report.CategoryChart(lang, "cmp-decode", locale.T(lang, "chart_decode"), locale.T(lang, "axis_requests"), locale.T(lang, "axis_total"), levels, concLabel, decode), Legend: sameLines(lang, legend, decode, true)},
		{Title: locale.T(lang, "chart_prefill"), SVG: report.CategoryChart(lang, "cmp-prefill", locale.T(lang, "chart_prefill"), locale.T(lang, "axis_context"), locale.T(lang, "axis_prompt"), contexts, ctxLabel, prefill), Legend: sameLines(lang, legend, prefill, true)},
		{Title: locale.T(lang, "chart_tradeoff", "0"), SVG: report.TradeoffChart(lang, "cmp-tradeoff", locale.T(lang, "chart_tradeoff", "0"), tradeoff), Legend: sameLines(lang, legend, tradeoff, false)},
	}
}
