package report

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// seriesCharts are the charts of what happened inside the measurements (docs/run.md
// "Inside a window"): for each context of the matrix, every cell's total tok/s slice
// by slice through its window, one line per number of requests; nothing for a
// document without series.
func seriesCharts(run *rundoc.Run, v *view) []lineChart {
	byContext := map[int][]*rundoc.DecodeCell{}
	for i := range run.Decode {
		c := &run.Decode[i]
		if c.CellDetail != nil && c.Series != nil && len(c.Series.TokS) > 0 && hasFigures(c.Status) {
			byContext[c.Context] = append(byContext[c.Context], c)
		}
	}
	var charts []lineChart
	for _, ctx := range slices.Sorted(maps.Keys(byContext)) {
		cells := byContext[ctx]
		slices.SortFunc(cells, func(a, b *rundoc.DecodeCell) int { return cmp.Compare(a.Concurrency, b.Concurrency) })
		c := seriesChart(v.Lang, "lb-chart-series-"+strconv.Itoa(ctx), locale.T(v.Lang, "chart_series", rundoc.FormatTokens(ctx)), locale.T(v.Lang, "axis_window_s"))
		c.LegendTitle = locale.T(v.Lang, "legend_requests")
		end := 0.0
		for i, cell := range cells {
			name := rundoc.FormatTokens(ctx) + " × " + strconv.Itoa(cell.Concurrency)
			c.Series = append(c.Series, seriesLine(v.Lang, strconv.Itoa(cell.Concurrency), name, palette[i%len(palette)], cell.Series))
			end = math.Max(end, seriesEnd(cell.Series))
		}
		charts = append(charts, withSecondTicks(c, end))
	}
	return charts
}

// rateSeriesChart is the open loop's: each rate cell's total tok/s slice by slice from
// its first scheduled send; ok is false when no cell has a series.
func rateSeriesChart(run *rundoc.Run, v *view) (lineChart, bool) {
	c := seriesChart(v.Lang, "lb-chart-rate-series", locale.T(v.Lang, "chart_rate_series"), locale.T(v.Lang, "axis_cell_s"))
	c.LegendTitle = locale.T(v.Lang, "rate")
	end := 0.0
	for i := range run.Rate {
		rc := &run.Rate[i]
		if f := rc.RateFigures; f != nil && f.Series != nil && len(f.Series.TokS) > 0 && hasFigures(rc.Status) {
			name := RateLabel(v.Lang, run.SessionRates(), rc.RateRPS)
			c.Series = append(c.Series, seriesLine(v.Lang, name, name, palette[len(c.Series)%len(palette)], f.Series))
			end = math.Max(end, seriesEnd(f.Series))
		}
	}
	return withSecondTicks(c, end), len(c.Series) > 0
}

func seriesChart(lang, id, title, xLabel string) lineChart {
	return lineChart{ID: id, Title: title, XLabel: xLabel, YLabel: locale.T(lang, "axis_total"), Lang: lang, Empty: locale.T(lang, "no_data"),
		XTickLabel: func(x float64) string { return trimNumber(lang, x) }}
}

// seriesLine is one measurement's series as a line: each slice's tok/s at its middle,
// its hover the slice's span, streams producing and TTFT.
func seriesLine(lang, legend, name, color string, s *rundoc.Series) chartSeries {
	line := chartSeries{Name: legend, Color: color}
	for i, r := range s.TokS {
		from, to := float64(i)*s.SliceS, float64(i+1)*s.SliceS
		ttft := dash
		if i < len(s.TTFTMs) && s.TTFTMs[i] != nil {
			ttft = FormatMs(lang, *s.TTFTMs[i], 0)
		}
		producing := dash
		if i < len(s.Producing) {
			producing = FormatNumber(lang, s.Producing[i], 1)
		}
		title := locale.T(lang, "series_point", name, trimNumber(lang, from), trimNumber(lang, to), FormatNumber(lang, r, 1), producing, ttft)
		line.Points = append(line.Points, chartPoint{X: (from + to) / 2, Y: r, Title: title})
	}
	return line
}

// seriesEnd is where a series' last slice ends, in seconds.
func seriesEnd(s *rundoc.Series) float64 { return float64(len(s.TokS)) * s.SliceS }

// withSecondTicks gives a series chart's x axis ticks at round seconds from 0 to end
// (its longest series' end), about six of them.
func withSecondTicks(c lineChart, end float64) lineChart {
	if end <= 0 {
		return c
	}
	step := niceStep(end / 6)
	for k := 0.0; k*step <= end+step/2; k++ {
		c.XTicks = append(c.XTicks, k*step)
	}
	return c
}
