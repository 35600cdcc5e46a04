package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/metric"
)

// The compare page's open-loop part: the rate cells of the compared rate runs side
// by side, one row per request rate, and their latency–throughput curves in one
// chart. A matrix run has no rate cells — it measured fixed numbers of simultaneous
// requests, not arrivals at a rate — so it is kept out of this table (the overall
// comparison still shows it), and runs measured under different conditions are
// compared only under a warning that says how they differ.

// rateCompare is the open-loop comparison.
type rateCompare struct {
	Message  string // why there is no table, or which runs it leaves out
	Warnings []string
	Runs     []rateCompareRun
	Rows     []rateCompareRow
	Chart    *chartView
	// GoodputChart draws each run's goodput against its achieved rate (nil when no
	// run has an SLO).
	GoodputChart *chartView
	SLO          bool // some run has goodput (an SLO)
}

type rateCompareRun struct {
	Mark, Color, Title, URL, Cond string
}

type rateCompareRow struct {
	Rate  string
	Cells []rateCompareCell
}

// rateCompareCell is one run's cell at a rate: its figures, or what it is instead.
type rateCompareCell struct {
	Class, Title, Status                      string
	Achieved, TTFT50, TTFT90, TPOT50, Goodput string
	Saturated                                 bool
}

// maxCompareRates bounds the rows of the table (a search runs its own rates).
const maxCompareRates = rundoc.MaxAxis

// compareRates builds the open-loop comparison of runs; nil when none is a rate run.
func compareRates(runs []runView, lang string) *rateCompare {
	var rated, matrix []runView
	for _, rv := range runs {
		if metric.ModeOf(rv.Run) == metric.ModeRate {
			rated = append(rated, rv)
		} else {
			matrix = append(matrix, rv)
		}
	}
	if len(rated) == 0 {
		return nil
	}
	rc := &rateCompare{}
	if len(matrix) > 0 {
		var names []string
		for _, rv := range matrix {
			names = append(names, rv.Rec.Title)
		}
		key := "compare_rate_matrix"
		if len(rated) < 2 {
			key = "compare_rate_matrix_none"
		}
		rc.Message = locale.T(lang, key, strings.Join(names, ", "))
		if len(rated) < 2 {
			return rc
		}
	}
	rates := compareRateAxis(rated)
	if len(rates) > maxCompareRates {
		rc.Message = locale.T(lang, "compare_rate_too_many", len(rates), maxCompareRates)
		return rc
	}
	rc.Warnings = conditionWarnings(rated, lang)
	for i, rv := range rated {
		rc.Runs = append(rc.Runs, rateCompareRun{Mark: strconv.Itoa(i + 1), Color: report.ChartColor(i), Title: rv.Rec.Title,
			URL: "/runs/" + pathEscape(rv.Rec.ID), Cond: runCondLabel(rv.Run, lang)})
		if rv.Run.Config.Rate != nil && rv.Run.Config.Rate.SLO != nil {
			rc.SLO = true
		}
	}
	for _, rate := range rates {
		row := rateCompareRow{Rate: rateText(lang, rate)}
		for _, rv := range rated {
			row.Cells = append(row.Cells, rateCellView(lang, rateCellAt(rv.Run, rate)))
		}
		rc.Rows = append(rc.Rows, row)
	}
	rc.Chart = latencyThroughputChart(rated, lang)
	rc.GoodputChart = goodputCompareChart(rated, lang)
	return rc
}

// compareRateAxis is every rate any of the runs measured, in order, inf last.
func compareRateAxis(runs []runView) []rundoc.Rate {
	var rates []rundoc.Rate
	for _, rv := range runs {
		for _, c := range rv.Run.Rate {
			rates = append(rates, c.RateRPS)
		}
	}
	slices.Sort(rates)
	return slices.Compact(rates)
}

// rateCellAt is a run's first cell at rate (a search never repeats one), or nil.
func rateCellAt(r *rundoc.Run, rate rundoc.Rate) *rundoc.RateCell {
	for i := range r.Rate {
		if r.Rate[i].RateRPS == rate {
			return &r.Rate[i]
		}
	}
	return nil
}

func rateText(lang string, r rundoc.Rate) string {
	if r.IsInf() {
		return locale.T(lang, "rate_inf")
	}
	return r.String()
}

func optFigure(lang string, v *float64, decimals int) string {
	if v == nil {
		return "—"
	}
	return report.FormatNumber(lang, *v, decimals)
}

// rateCellView shows a cell's figures, or its status and reason when it has none to
// compare (failed, invalid: its numbers are not ones to read beside another run's).
func rateCellView(lang string, c *rundoc.RateCell) rateCompareCell {
	switch {
	case c == nil:
		return rateCompareCell{Class: "missing", Status: "—"}
	case c.RateFigures == nil || (c.Status != rundoc.StatusValid && c.Status != rundoc.StatusPredicted):
		return rateCompareCell{Class: "failed", Status: statusText(lang, c.Status), Title: locale.DocText(lang, c.Reason)}
	}
	f := c.RateFigures
	v := rateCompareCell{Class: "valid", Achieved: optFigure(lang, f.AchievedRPS, 2), TTFT50: optFigure(lang, f.TTFTMs.P50, 0),
		TTFT90: optFigure(lang, f.TTFTMs.P90, 0), TPOT50: optFigure(lang, f.TPOTMs.P50, 1), Goodput: optFigure(lang, f.GoodputRPS, 2)}
	if c.Saturated() {
		v.Class, v.Saturated, v.Title = "valid saturated", true, locale.T(lang, "r_saturated", strings.Join(locale.DocTexts(lang, f.Saturation), "; "))
	}
	return v
}

// runCondLabel is "512 input tokens · 64 output tokens · …".
func runCondLabel(r *rundoc.Run, lang string) string {
	c, in, ok := metric.RunConditions(r)
	if !ok {
		return locale.T(lang, "compare_rate_no_plan")
	}
	return locale.T(lang, "cond_input", report.FormatInt(lang, in)) + " · " + board.CondLabel(lang, c)
}

// conditionWarnings says how the runs' conditions differ from the first run's: the
// workload (lengths, arrivals, cap, prefix, cell length) makes every figure unlike;
// the SLO only goodput and the share meeting it.
func conditionWarnings(runs []runView, lang string) []string {
	first, firstIn, _ := metric.RunConditions(runs[0].Run)
	var out []string
	for i, rv := range runs[1:] {
		c, in, ok := metric.RunConditions(rv.Run)
		mark := strconv.Itoa(i + 2)
		w0, w := first, c
		w0.SLO, w0.Target, w.SLO, w.Target = nil, 0, nil, 0
		switch {
		case !ok || in != firstIn || w.Key() != w0.Key():
			out = append(out, locale.T(lang, "compare_rate_workload", mark))
		case sloKey(c) != sloKey(first):
			out = append(out, locale.T(lang, "compare_rate_slo", mark))
		}
	}
	return out
}

func sloKey(c metric.RateCond) string {
	if c.SLO == nil {
		return ""
	}
	return metric.SLOText(c.SLO) + fmt.Sprintf("@%g", c.Target)
}

// latencyThroughputChart draws each run's TTFT p50 against the rate it achieved,
// through its valid cells in order of rate: where a curve turns up, that server
// stopped keeping up.
func latencyThroughputChart(runs []runView, lang string) *chartView {
	cv := &chartView{Title: locale.T(lang, "chart_rate_compare")}
	var lines []report.Line
	for i, rv := range runs {
		mark := strconv.Itoa(i + 1)
		line := report.Line{Name: mark}
		cells := slices.Clone(rv.Run.Rate)
		slices.SortStableFunc(cells, func(a, b rundoc.RateCell) int { return cmp.Compare(a.RateRPS, b.RateRPS) })
		for _, c := range cells {
			f := c.RateFigures
			if f == nil || (c.Status != rundoc.StatusValid && c.Status != rundoc.StatusPredicted) || f.AchievedRPS == nil || f.TTFTMs.P50 == nil {
				continue
			}
			line.Points = append(line.Points, report.XY{X: *f.AchievedRPS, Y: *f.TTFTMs.P50,
				Title: locale.T(lang, "rate_point", rv.Rec.Title, rateText(lang, c.RateRPS), report.FormatNumber(lang, *f.AchievedRPS, 2), report.FormatMs(lang, *f.TTFTMs.P50, 0))})
		}
		cv.Legend = append(cv.Legend, legendItem{Mark: mark, Color: report.ChartColor(i), Name: rv.Rec.Title, URL: "/runs/" + pathEscape(rv.Rec.ID)})
		lines = append(lines, line)
	}
	cv.SVG = report.LatencyThroughputChart(lang, "cmp-rate-ttft", cv.Title, locale.T(lang, "axis_ttft_ms"), lines)
	cv.Legend = sameLines(lang, cv.Legend, lines, false)
	return cv
}
