package ui

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
)

// A run's headline figures: the cards at the top of its page and the rows of the
// compare page's summary. A matrix run has single-stream decode, peak, prefill at 32K
// and peak per GB, and — when its cells were metered — the lowest J/token and $/Mtok
// of its cells; an open-loop run has none of those (it measured requests arriving at
// rates, not fixed numbers of simultaneous requests), so it has its own: the highest
// rate that met the SLO, the best goodput, and the p90 TTFT and TPOT at the highest
// rate it measured validly.

// figureCard is one headline figure: its label, value and what the value is of ("at 4
// req/s", "0 × 64"). Key names it for the compare page's rows and the page's ids.
type figureCard struct {
	Key, Label, Value, Sub string
}

// Card keys, in the order pages show them.
const (
	cardDecode  = "decode"
	cardPeak    = "peak"
	cardPrefill = "prefill_32k"
	cardPerGB   = "per_gb"
	cardJTok    = "j_per_token"
	cardUSD     = "usd_per_mtok"
	cardMaxRate = "max_rate"
	cardGoodput = "goodput"
	cardTTFT90  = "ttft_p90"
	cardTPOT90  = "tpot_p90"
)

// p90Samples is how many requests a p90 needs (docs/methodology.md).
const p90Samples = 64

// runCards are the run's headline figures in lang.
func runCards(rec store.RunRecord, run *rundoc.Run, lang string) []figureCard {
	if metric.ModeOf(run) == metric.ModeRate {
		return rateCards(run, lang)
	}
	num := func(v *float64, decimals int) string {
		if v == nil {
			return "—"
		}
		return report.FormatNumber(lang, *v, decimals)
	}
	cards := []figureCard{
		{Key: cardDecode, Label: locale.T(lang, "metric_decode"), Value: num(rec.DecodeTokS, 1)},
		{Key: cardPeak, Label: locale.T(lang, "metric_peak"), Value: num(rec.PeakTokS, 1)},
		{Key: cardPrefill, Label: locale.T(lang, "metric_prefill_32k"), Value: num(rec.Prefill32KTokS, 0)},
		{Key: cardPerGB, Label: locale.T(lang, "metric_per_gb"), Value: num(rec.TokSPerGB, 2)},
	}
	return append(cards, energyCards(run, lang)...)
}

// energyCards are the lowest J/token and $/Mtok of the run's valid decode cells, each
// with the cell it is at; none when no cell has the figure.
func energyCards(run *rundoc.Run, lang string) []figureCard {
	best := func(of func(*rundoc.CellEnergy) *float64) (*rundoc.DecodeCell, float64) {
		var at *rundoc.DecodeCell
		low := 0.0
		for i := range run.Decode {
			c := &run.Decode[i]
			if c.CellEnergy == nil || (c.Status != rundoc.StatusValid && c.Status != rundoc.StatusPredicted) {
				continue
			}
			if v := of(c.CellEnergy); v != nil && *v > 0 && (at == nil || *v < low) {
				at, low = c, *v
			}
		}
		return at, low
	}
	var out []figureCard
	if c, v := best(func(e *rundoc.CellEnergy) *float64 { return e.JoulesPerToken }); c != nil {
		out = append(out, figureCard{Key: cardJTok, Label: locale.T(lang, "card_j_per_token"), Value: report.FormatNumber(lang, v, 3),
			Sub: locale.T(lang, "card_at_cell", rundoc.FormatTokens(c.Context), c.Concurrency)})
	}
	if c, v := best(func(e *rundoc.CellEnergy) *float64 { return e.USDPerMTok }); c != nil {
		out = append(out, figureCard{Key: cardUSD, Label: locale.T(lang, "card_usd_per_mtok"), Value: report.FormatNumber(lang, v, 2),
			Sub: locale.T(lang, "card_at_cell", rundoc.FormatTokens(c.Context), c.Concurrency)})
	}
	return out
}

// validRate reports whether a rate cell's figures are ones to read.
func validRate(c *rundoc.RateCell) bool {
	return c.RateFigures != nil && (c.Status == rundoc.StatusValid || c.Status == rundoc.StatusPredicted)
}

// rateCards are an open-loop run's headline figures.
func rateCards(run *rundoc.Run, lang string) []figureCard {
	var slo *rundoc.SLO
	if run.Config.Rate != nil {
		slo = run.Config.Rate.SLO
	}
	sessions := run.SessionRates() // sessions arrive at the rates, not requests
	cells := slices.Clone(run.Rate)
	slices.SortStableFunc(cells, func(a, b rundoc.RateCell) int { return cmp.Compare(a.RateRPS, b.RateRPS) })

	maxRate := figureCard{Key: cardMaxRate, Label: locale.T(lang, "card_max_rate"), Value: "—"}
	goodput := figureCard{Key: cardGoodput, Label: locale.T(lang, "card_goodput"), Value: "—"}
	switch {
	case slo == nil:
		maxRate.Sub, goodput.Sub = locale.T(lang, "card_no_slo"), locale.T(lang, "card_no_slo")
	case run.MaxRate != nil:
		// A --find-max-rate search: its own answer.
		m := run.MaxRate
		if m.MaxRateRPS != nil {
			maxRate.Value = locale.T(lang, report.SessionsKey("n_rps", sessions), report.FormatNumber(lang, *m.MaxRateRPS, 2))
			maxRate.Sub = locale.T(lang, "card_max_rate_search", m.Steps)
			if m.FailedRPS != nil {
				maxRate.Sub = locale.T(lang, "card_max_rate_search_failed", m.Steps, report.FormatNumber(lang, *m.FailedRPS, 2))
			}
		} else {
			maxRate.Value, maxRate.Sub = locale.T(lang, "card_none_met"), locale.T(lang, "card_max_rate_search", m.Steps)
		}
	default:
		// The highest rate measured whose cell met the SLO target without saturating
		// (as a search judges a rate); a burst (rate inf) is no rate to sustain.
		maxRate.Value, maxRate.Sub = locale.T(lang, "card_none_met"), locale.T(lang, "card_max_rate_rates", len(cells))
		for i := len(cells) - 1; i >= 0; i-- {
			c := &cells[i]
			if !c.RateRPS.IsInf() && validRate(c) && c.MeetsSLO != nil && *c.MeetsSLO && !c.Saturated() {
				maxRate.Value = report.RateLabel(lang, sessions, c.RateRPS)
				break
			}
		}
	}
	if slo != nil {
		var at *rundoc.RateCell
		for i := range cells {
			if c := &cells[i]; validRate(c) && c.GoodputRPS != nil && (at == nil || *c.GoodputRPS > *at.GoodputRPS) {
				at = c
			}
		}
		if at != nil {
			goodput.Value, goodput.Sub = report.FormatNumber(lang, *at.GoodputRPS, 2), locale.T(lang, "card_at_rate", report.RateLabel(lang, sessions, at.RateRPS))
		} else {
			goodput.Sub = locale.T(lang, "card_no_valid_rate")
		}
	}

	// The highest rate measured validly: the finite ones first, a burst only when no
	// finite rate was.
	var high *rundoc.RateCell
	for i := range cells {
		c := &cells[i]
		if validRate(c) && (high == nil || high.RateRPS.IsInf() || !c.RateRPS.IsInf()) {
			high = c
		}
	}
	ttft := figureCard{Key: cardTTFT90, Label: locale.T(lang, "card_ttft_p90"), Value: "—", Sub: locale.T(lang, "card_no_valid_rate")}
	tpot := figureCard{Key: cardTPOT90, Label: locale.T(lang, "card_tpot_p90"), Value: "—", Sub: locale.T(lang, "card_no_valid_rate")}
	if high != nil {
		at := locale.T(lang, "card_at_rate", report.RateLabel(lang, sessions, high.RateRPS))
		for _, p := range []struct {
			card     *figureCard
			stats    rundoc.LatencyStats
			decimals int
		}{{&ttft, high.TTFTMs, 0}, {&tpot, high.TPOTMs, 1}} {
			p.card.Sub = at
			switch {
			case p.stats.P90 != nil:
				p.card.Value = report.FormatMs(lang, *p.stats.P90, p.decimals)
			case p.stats.Samples < p90Samples:
				p.card.Sub = at + " · " + locale.T(lang, "card_p90_few", strconv.Itoa(p90Samples), report.FormatInt(lang, p.stats.Samples))
			}
		}
	}
	return []figureCard{maxRate, goodput, ttft, tpot}
}

// compareCardRow is one row of the compare page's summary: a figure of each run.
type compareCardRow struct {
	Label  string
	Values []figureCard
}

// compareCardRows lays the runs' cards out as rows, one per figure any run has, in
// the order of the cards, with "—" where a run lacks the figure.
func compareCardRows(runs []runView) []compareCardRow {
	order := []string{cardDecode, cardPeak, cardPrefill, cardPerGB, cardJTok, cardUSD, cardMaxRate, cardGoodput, cardTTFT90, cardTPOT90}
	var rows []compareCardRow
	for _, key := range order {
		row := compareCardRow{}
		found := false
		for _, rv := range runs {
			cell := figureCard{Key: key, Value: "—"}
			for _, c := range rv.Cards {
				if c.Key == key {
					cell, found = c, true
					row.Label = c.Label
				}
			}
			row.Values = append(row.Values, cell)
		}
		if found {
			rows = append(rows, row)
		}
	}
	return rows
}

// rateRunChart draws an open-loop run's achieved requests/s and goodput against the
// rate it offered, one point per valid cell (rate inf last): where goodput falls
// away from the achieved rate, requests began missing the SLO; where the achieved
// rate falls below the offered one, the server stopped keeping up.
func rateRunChart(run *rundoc.Run, lang string) *chartView {
	if metric.ModeOf(run) != metric.ModeRate {
		return nil
	}
	sessions := run.SessionRates() // sessions arrive at the rates, not requests
	cells := slices.Clone(run.Rate)
	slices.SortStableFunc(cells, func(a, b rundoc.RateCell) int { return cmp.Compare(a.RateRPS, b.RateRPS) })
	var xs []float64
	achieved, goodput := report.Line{Name: locale.T(lang, "chart_line_achieved")}, report.Line{Name: locale.T(lang, "chart_line_goodput")}
	for i := range cells {
		c := &cells[i]
		x := float64(c.RateRPS)
		if c.RateRPS.IsInf() {
			x = metric.RateInf // the axis is categorical: inf is its last place
		}
		if !validRate(c) || slices.Contains(xs, x) {
			continue
		}
		xs = append(xs, x)
		rate := rateText(lang, c.RateRPS)
		if c.AchievedRPS != nil {
			achieved.Points = append(achieved.Points, report.XY{X: x, Y: *c.AchievedRPS,
				Title: locale.T(lang, "chart_point_achieved", rate, report.FormatNumber(lang, *c.AchievedRPS, 2))})
		}
		if c.GoodputRPS != nil {
			goodput.Points = append(goodput.Points, report.XY{X: x, Y: *c.GoodputRPS,
				Title: locale.T(lang, "chart_point_goodput", rate, report.FormatNumber(lang, *c.GoodputRPS, 2))})
		}
	}
	lines := []report.Line{achieved}
	title := locale.T(lang, report.SessionsKey("chart_rate_achieved", sessions))
	if len(goodput.Points) > 0 {
		lines, title = append(lines, goodput), locale.T(lang, report.SessionsKey("chart_rate_goodput", sessions))
	}
	label := func(x float64) string {
		if x == metric.RateInf {
			return "inf"
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return &chartView{Title: title, SVG: report.CategoryChart(lang, "run-rate-goodput", title, locale.T(lang, report.SessionsKey("axis_rate", sessions)), locale.T(lang, "axis_rps"), xs, label, lines)}
}

// goodputCompareChart draws each rate run's goodput against the rate it achieved,
// through its valid cells in order of rate (nil when no run has goodput): the closer
// a line stays to the diagonal, the more of what that server completed met the SLO.
func goodputCompareChart(runs []runView, lang string) *chartView {
	cv := &chartView{Title: locale.T(lang, "chart_goodput_compare")}
	var lines []report.Line
	drawn := false
	for i, rv := range runs {
		mark := strconv.Itoa(i + 1)
		line := report.Line{Name: mark}
		cells := slices.Clone(rv.Run.Rate)
		slices.SortStableFunc(cells, func(a, b rundoc.RateCell) int { return cmp.Compare(a.RateRPS, b.RateRPS) })
		for j := range cells {
			c := &cells[j]
			if !validRate(c) || c.AchievedRPS == nil || c.GoodputRPS == nil {
				continue
			}
			drawn = true
			line.Points = append(line.Points, report.XY{X: *c.AchievedRPS, Y: *c.GoodputRPS,
				Title: locale.T(lang, "goodput_point", rv.Rec.Title, rateText(lang, c.RateRPS), report.FormatNumber(lang, *c.AchievedRPS, 2), report.FormatNumber(lang, *c.GoodputRPS, 2))})
		}
		cv.Legend = append(cv.Legend, legendItem{Mark: mark, Color: report.ChartColor(i), Name: rv.Rec.Title, URL: "/runs/" + pathEscape(rv.Rec.ID)})
		lines = append(lines, line)
	}
	if !drawn {
		return nil
	}
	cv.SVG = report.LatencyThroughputChart(lang, "cmp-rate-goodput", cv.Title, locale.T(lang, "axis_goodput"), lines)
	cv.Legend = sameLines(lang, cv.Legend, lines, false)
	return cv
}
