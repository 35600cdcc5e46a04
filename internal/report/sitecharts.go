package report

import (
	"html/template"
	"math"

	"github.com/llmbench/llmbench/internal/locale"
)

// Charts for pages that show several runs at once (the site's model, hardware and
// compare pages), drawn by the same SVG code as the report's own charts, so that the
// two look and read alike. Every text is escaped; the rest is numbers.

// XY is one point of a chart; Title is shown on hover.
type XY struct {
	X, Y  float64
	Title string
}

// Line is one series: its points in drawing order. Name goes in the chart's legend
// (keep it short; a page can print a longer legend beside the chart using ChartColor).
type Line struct {
	Name   string
	Points []XY
}

// ChartColor is the colour of the i-th line of a chart.
func ChartColor(i int) string { return palette[i%len(palette)] }

// Coincident says, for each line, the earlier line it would be drawn over (-1 for
// none), as the charts find it (coincident): a page that prints its own legend marks
// the same lines. Categorical is CategoryChart's x.
func Coincident(lines []Line, categorical bool) []int {
	series := make([]chartSeries, len(lines))
	for i, l := range lines {
		for _, p := range l.Points {
			series[i].Points = append(series[i].Points, chartPoint(p))
		}
	}
	return coincident(series, categorical)
}

// TradeoffChart draws per-request tok/s (y) against total tok/s (x), one point per
// decode cell and one line per run through its cells in order: how much each user's
// speed drops as the server's total rises.
func TradeoffChart(lang, id, title string, lines []Line) template.HTML {
	maxX := 0.0
	for _, l := range lines {
		for _, p := range l.Points {
			if p.X >= 0 && !math.IsInf(p.X, 0) {
				maxX = math.Max(maxX, p.X)
			}
		}
	}
	c := lineChart{ID: id, Title: title, XLabel: locale.T(lang, "axis_total"), YLabel: locale.T(lang, "axis_per_request"), Lang: lang, Empty: locale.T(lang, "no_data")}
	// The axis ends at the first round value at or past the largest total, so that
	// every point is inside it (it ended at the last one below: 300 for a point at
	// 329, which was drawn past the axis, over the legend).
	c.XTicks, c.XTickLabel = linearTicks(maxX, lang)
	if len(c.XTicks) == 0 {
		c.XTicks, c.XTickLabel = []float64{0, 1}, func(x float64) string { return FormatNumber(lang, x, 0) }
	}
	for i, l := range lines {
		s := chartSeries{Name: l.Name, Color: ChartColor(i)}
		for _, p := range l.Points {
			s.Points = append(s.Points, chartPoint(p))
		}
		if len(s.Points) > 0 {
			c.Series = append(c.Series, s)
		}
	}
	return c.SVG()
}

// CategoryChart draws lines over labelled x positions evenly spaced (concurrency
// levels, contexts), as the report's decode and prefill charts do.
func CategoryChart(lang, id, title, xLabel, yLabel string, xs []float64, xLabelOf func(float64) string, lines []Line) template.HTML {
	c := lineChart{ID: id, Title: title, XLabel: xLabel, YLabel: yLabel, XTicks: xs, XTickLabel: xLabelOf, Categorical: true, Lang: lang, Empty: locale.T(lang, "no_data")}
	for i, l := range lines {
		s := chartSeries{Name: l.Name, Color: ChartColor(i)}
		for k, p := range l.Points {
			s.Points = append(s.Points, chartPoint(p))
			// A missing x between two points breaks the line rather than bridging it.
			if k > 0 && nextIndex(xs, l.Points[k-1].X) != indexOf(xs, p.X) {
				s.Breaks = append(s.Breaks, k)
			}
		}
		if len(s.Points) > 0 {
			c.Series = append(c.Series, s)
		}
	}
	return c.SVG()
}

func indexOf(xs []float64, x float64) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func nextIndex(xs []float64, x float64) int {
	if i := indexOf(xs, x); i >= 0 {
		return i + 1
	}
	return -1
}

// LatencyThroughputChart draws a latency (y, in ms; yLabel names it) against the
// request rate achieved (x, requests/s, linear from 0), one line per run through its
// open-loop cells in order of rate, as the run report's own TTFT chart does for one
// run: where a line turns up, that server stopped keeping up.
func LatencyThroughputChart(lang, id, title, yLabel string, lines []Line) template.HTML {
	c := lineChart{ID: id, Title: title, XLabel: locale.T(lang, "axis_achieved"), YLabel: yLabel, Lang: lang, Empty: locale.T(lang, "no_data")}
	maxX := 0.0
	for i, l := range lines {
		s := chartSeries{Name: l.Name, Color: ChartColor(i)}
		for _, p := range l.Points {
			if p.X >= 0 && !math.IsInf(p.X, 0) && !math.IsNaN(p.X) {
				maxX = math.Max(maxX, p.X)
				s.Points = append(s.Points, chartPoint(p))
			}
		}
		if len(s.Points) > 0 {
			c.Series = append(c.Series, s)
		}
	}
	c.XTicks, c.XTickLabel = linearTicks(maxX, lang)
	return c.SVG()
}
