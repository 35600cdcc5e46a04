package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// rateView is an open-loop run's part of the view: the plan in words, the search's
// outcome, and one row per rate cell, every figure already formatted.
type rateView struct {
	Plan      string // "Poisson arrivals · 1,024 → 256 tokens (fixed) · 30 s a rate"
	SLO       string // "SLO: TTFT ≤ 500 ms, TPOT ≤ 50 ms for 95% of requests"
	MaxRate   string // the --find-max-rate outcome, or ""
	Rows      []rateRow
	HasSLO    bool
	HasEnergy bool
}

type rateRow struct {
	Cell       *rundoc.RateCell
	Rate       string // "10 req/s", "inf"
	Status     rundoc.Status
	StatusStr  string
	Reason     string
	HasFigures bool
	Achieved   string // "9.81 req/s"
	Done       string // "598 / 600"
	TTFT       string // "241 · 410 · — ms"
	TPOT       string
	ITL        string
	E2E        string
	TotalTokS  string
	PerRequest string
	SLOMet     string   // "97%"
	Goodput    string   // "9.52 req/s"
	Energy     []string // power W, J/token, $/Mtok, where the run was metered or priced
	Saturated  bool
	Details    []string
	Warn       bool
	Footnote   int
}

// rateColumns are the label keys of the rate table, in order.
var rateColumns = []string{"rate", "status", "achieved", "done", "ttft_pct", "tpot_pct", "itl_pct", "e2e_pct", "total_toks", "per_request_toks", "slo_met", "goodput"}

func newRateView(run *rundoc.Run, v *view) *rateView {
	lang := v.Lang
	rv := &rateView{}
	if c := run.Config.Rate; c != nil {
		rv.Plan = ratePlanLine(lang, c, run.Config.DurationS, run.Config.Workload)
		if c.SLO != nil {
			rv.SLO = sloLine(lang, c.SLO)
			rv.HasSLO = true
		}
	}
	sessions := run.SessionRates()
	if m := run.MaxRate; m != nil {
		rv.MaxRate = maxRateLine(lang, m, sessions)
	}
	for i := range run.Rate {
		c := &run.Rate[i]
		row := rateRow{Cell: c, Rate: RateLabel(lang, sessions, c.RateRPS), Status: c.Status, StatusStr: StatusLabel(lang, c.Status), Reason: locale.SentenceIn(lang, c.Reason)}
		if f := c.RateFigures; f != nil {
			row.HasFigures = true
			row.Achieved = optNum(lang, f.AchievedRPS, 2)
			row.Done = FormatInt(lang, f.CompletedRequests) + " / " + FormatInt(lang, f.Requests)
			row.TTFT = pctTriple(lang, f.TTFTMs, 0)
			row.TPOT = pctTriple(lang, f.TPOTMs, 1)
			row.ITL = pctTriple(lang, f.ITLMs, 1)
			row.E2E = pctTriple(lang, f.E2EMs, 0)
			row.TotalTokS = FormatNumber(lang, f.TotalTokS, 1)
			row.PerRequest = optNum(lang, f.PerRequestTokS, 1)
			if f.SLOMetRatio != nil {
				row.SLOMet = FormatPercent(lang, *f.SLOMetRatio)
			}
			row.Goodput = optNum(lang, f.GoodputRPS, 2)
			if f.GoodputRPS != nil && f.RateIntervals != nil {
				row.Goodput = plusMinus(lang, row.Goodput, *f.GoodputRPS, f.GoodputRPSCI, 2)
			}
			row.Saturated = c.Saturated()
		}
		if e := c.Energy; e != nil && (e.PowerWMean != nil || e.JoulesPerToken != nil || e.USDPerMTok != nil) {
			row.Energy, _ = energyCells(lang, e.PowerWMean, e.JoulesPerToken, e.USDPerMTok)
			rv.HasEnergy = true
		}
		warnings, info := rateDetails(lang, c)
		row.Details = append(warnings, info...)
		failed := c.Status == rundoc.StatusFailed || c.Status == rundoc.StatusInvalid || c.Status == rundoc.StatusInterrupted
		row.Warn = len(warnings) > 0 || (failed && c.Reason != "")
		if row.Warn {
			row.Footnote = len(v.Footnotes) + 1
			text := row.Details
			if row.Reason != "" {
				text = append([]string{row.Reason}, text...)
			}
			v.Footnotes = append(v.Footnotes, footnote{N: row.Footnote, Where: row.Rate, Text: strings.Join(text, "; ")})
		}
		rv.Rows = append(rv.Rows, row)
	}
	return rv
}

// RateLabel is "10 req/s", or "10 sessions/s" where sessions arrive at the rates
// (rundoc.Run.SessionRates), or "inf".
func RateLabel(lang string, sessions bool, r rundoc.Rate) string {
	if r.IsInf() {
		return locale.T(lang, "rate_inf")
	}
	return locale.T(lang, SessionsKey("n_rps", sessions), strconv.FormatFloat(float64(r), 'f', -1, 64))
}

// SessionsKey is the label key of a rate's figure in requests a second, or of the
// same figure in sessions a second (key + "_sessions").
func SessionsKey(key string, sessions bool) string {
	if sessions {
		return key + "_sessions"
	}
	return key
}

func optNum(lang string, v *float64, decimals int) string {
	if v == nil {
		return dash
	}
	return FormatNumber(lang, *v, decimals)
}

// pctTriple writes p50 · p90 · p99 of a latency in ms, "—" where too few samples (or
// unfinished requests) leave one undetermined.
func pctTriple(lang string, s rundoc.LatencyStats, decimals int) string {
	return locale.T(lang, "ms", optNum(lang, s.P50, decimals)+" · "+optNum(lang, s.P90, decimals)+" · "+optNum(lang, s.P99, decimals))
}

func ratePlanLine(lang string, c *rundoc.RateConfig, durationS float64, w *rundoc.Workload) string {
	arr := labelOr(lang, "arr_"+c.Arrival, c.Arrival)
	if strings.HasPrefix(c.Arrival, "gamma:") {
		arr = locale.T(lang, "arr_gamma", strings.TrimPrefix(c.Arrival, "gamma:"))
	}
	parts := []string{arr}
	if wl := workloadRateLengths(lang, w); wl != "" {
		parts = append(parts, wl) // the workload's prompts are its own (workload.go)
	} else {
		parts = append(parts, locale.T(lang, "rate_lengths", FormatInt(lang, c.InputLen), FormatInt(lang, c.OutputLen), c.LenDist))
	}
	if c.Requests > 0 {
		parts = append(parts, locale.T(lang, "rate_requests", FormatInt(lang, c.Requests)))
	} else if durationS > 0 && (w == nil || w.Trace == nil) { // a replay lasts as its trace does
		parts = append(parts, locale.T(lang, "rate_duration", strconv.FormatFloat(durationS, 'f', -1, 64)))
	}
	if c.MaxConcurrency > 0 {
		parts = append(parts, locale.T(lang, "rate_max_conc", FormatInt(lang, c.MaxConcurrency)))
	}
	if c.PrefixShare > 0 {
		parts = append(parts, locale.T(lang, "rate_prefix", FormatPercent(lang, c.PrefixShare)))
	} else if w == nil {
		parts = append(parts, locale.T(lang, "rate_unique"))
	}
	return strings.Join(parts, " · ")
}

func sloLine(lang string, s *rundoc.SLO) string {
	var targets []string
	add := func(name string, v *float64) {
		if v != nil {
			targets = append(targets, name+" ≤ "+FormatMs(lang, *v, 0))
		}
	}
	add("TTFT", s.TTFTMs)
	add("TPOT", s.TPOTMs)
	add("E2E", s.E2EMs)
	return locale.T(lang, "slo_line", strings.Join(targets, ", "), FormatPercent(lang, s.Target))
}

func maxRateLine(lang string, m *rundoc.MaxRate, sessions bool) string {
	if m.MaxRateRPS == nil {
		return locale.T(lang, "max_rate_none", FormatInt(lang, m.Steps))
	}
	s := locale.T(lang, SessionsKey("max_rate", sessions), FormatNumber(lang, *m.MaxRateRPS, 2))
	if m.FailedRPS != nil {
		s += " " + locale.T(lang, SessionsKey("max_rate_failed", sessions), FormatNumber(lang, *m.FailedRPS, 2))
	}
	if m.GoodputRPS != nil {
		s += " · " + locale.T(lang, "goodput") + " " + FormatNumber(lang, *m.GoodputRPS, 2)
	}
	return s + " · " + locale.T(lang, "max_rate_steps", FormatInt(lang, m.Steps), labelOr(lang, "stop_"+m.Stop, m.Stop))
}

// rateDetails lists what a rate cell says beyond its row: warnings a reader must not
// miss (saturation and its evidence, requests that failed or never finished, the
// client's own limits and slot waits, flags) and context (server gauges, cache).
func rateDetails(lang string, c *rundoc.RateCell) (warnings, info []string) {
	f := c.RateFigures
	if f == nil {
		return nil, nil
	}
	if len(f.Saturation) > 0 {
		warnings = append(warnings, locale.T(lang, "r_saturated", strings.Join(f.Saturation, "; ")))
	}
	if f.FailedRequests > 0 {
		w := locale.T(lang, "n_errors", FormatInt(lang, f.FailedRequests), FormatInt(lang, f.Requests))
		if len(f.ErrorSamples) > 0 {
			w += ": " + f.ErrorSamples[0]
		}
		warnings = append(warnings, w)
	}
	if f.UnfinishedRequests > 0 {
		warnings = append(warnings, locale.T(lang, "r_unfinished", FormatInt(lang, f.UnfinishedRequests)))
	}
	if slices.Contains(f.Flags, "slot_wait") && f.SlotWaitMs != nil && f.SlotWaitMs.P50 != nil {
		warnings = append(warnings, locale.T(lang, "r_slot_wait", FormatInt(lang, f.MaxConcurrency), FormatMs(lang, *f.SlotWaitMs.P50, 0)))
	}
	if f.EndedEarly > 0 {
		warnings = append(warnings, locale.T(lang, "n_ended_early", FormatInt(lang, f.EndedEarly)))
	}
	for _, fl := range f.Flags {
		switch fl {
		case "saturated", "errors", "unfinished", "slot_wait", "ended_early":
			continue // said above
		case rundoc.FlagRateDrift:
			if f.RateDrift != nil {
				warnings = append(warnings, rateDriftNote(lang, f.RateDrift))
				continue
			}
		}
		warnings = append(warnings, flagNote(lang, fl, nil))
	}
	if f.CacheHitRatio != nil {
		info = append(info, locale.T(lang, "n_cache_hit", FormatPercent(lang, *f.CacheHitRatio)))
	}
	if p := f.ClientSendLagMs.P50; p != nil {
		info = append(info, locale.T(lang, "r_send_lag", FormatMs(lang, *p, 2)))
	}
	info = append(info, rateIntervalInfo(lang, f)...)
	info = append(info, rateWorkloadInfo(lang, f)...)
	if g := serverGauges(lang, f.Server, false); g != "" {
		info = append(info, g)
	}
	return warnings, info
}

// rateHead is the rate table's header, with Notes when a row has a footnote.
func rateHead(v *view) (head []string, right []bool) {
	for i, k := range rateColumns {
		if (k == "slo_met" || k == "goodput") && !v.Rate.HasSLO {
			continue
		}
		head = append(head, locale.T(v.Lang, k))
		right = append(right, i >= 2)
	}
	if v.Rate.HasEnergy {
		for _, k := range energyColumns {
			head, right = append(head, locale.T(v.Lang, k)), append(right, true)
		}
	}
	if rateHasFootnotes(v) {
		head, right = append(head, locale.T(v.Lang, "notes")), append(right, false)
	}
	return head, right
}

func rateHasFootnotes(v *view) bool {
	for _, r := range v.Rate.Rows {
		if r.Footnote > 0 {
			return true
		}
	}
	return false
}

func rateCells(v *view, r rateRow, mark func(int) string) []string {
	var cells []string
	if r.HasFigures {
		cells = []string{r.Rate, r.StatusStr, r.Achieved, r.Done, r.TTFT, r.TPOT, r.ITL, r.E2E, r.TotalTokS, r.PerRequest}
		if r.Saturated {
			cells[1] += " · " + locale.T(v.Lang, "saturated")
		}
	} else {
		cells = []string{r.Rate, r.StatusStr, dash, dash, dash, dash, dash, dash, dash, dash}
	}
	if v.Rate.HasSLO {
		cells = append(cells, cmpOr(r.SLOMet, dash), cmpOr(r.Goodput, dash))
	}
	if v.Rate.HasEnergy {
		if r.Energy == nil {
			r.Energy = []string{dash, dash, dash}
		}
		cells = append(cells, r.Energy...)
	}
	if rateHasFootnotes(v) {
		n := ""
		if r.Footnote > 0 {
			n = mark(r.Footnote)
		}
		cells = append(cells, n)
	}
	return cells
}

// writeRateText writes the open-loop section of the text and markdown reports.
func writeRateText(b *strings.Builder, v *view, p painter, md bool) {
	rv := v.Rate
	if rv == nil || len(rv.Rows) == 0 {
		return
	}
	title, sub := locale.T(v.Lang, "rates"), locale.T(v.Lang, "rates_sub")
	if md {
		fmt.Fprintf(b, "\n## %s\n\n%s\n\n", title, mdEscape(sub))
		for _, line := range []string{rv.Plan, rv.SLO, rv.MaxRate} {
			if line != "" {
				b.WriteString(mdEscape(line) + "  \n")
			}
		}
		b.WriteString("\n")
	} else {
		b.WriteString("\n" + p.paint(ansiBold, title) + " — " + sub + "\n")
		for _, line := range []string{rv.Plan, rv.SLO, rv.MaxRate} {
			if line != "" {
				b.WriteString(line + "\n")
			}
		}
		b.WriteString("\n")
	}
	head, right := rateHead(v)
	var rows, styles [][]string
	for _, r := range rv.Rows {
		rows = append(rows, rateCells(v, r, func(n int) string { return "[" + strconv.Itoa(n) + "]" }))
		st := make([]string, len(head))
		st[1] = statusStyle(r.Status)
		if r.Warn && st[1] == "" {
			st[1] = ansiYellow
		}
		styles = append(styles, st)
	}
	if md {
		mdTable(b, head, right, rows)
		b.WriteString("\n" + mdEscape(locale.T(v.Lang, "note_rates")) + "\n")
	} else {
		writeTable(b, p, head, right, rows, styles)
		b.WriteString("\n" + locale.T(v.Lang, "note_rates") + "\n")
	}
}

// rateCharts are the open-loop run's charts: TTFT against the throughput achieved
// (the latency–throughput curve), TPOT and E2E percentiles by rate, and per-request
// against total tok/s.
func rateCharts(run *rundoc.Run, v *view) []lineChart {
	lang := v.Lang
	sessions := run.SessionRates()
	var valid []*rundoc.RateCell
	for i := range run.Rate {
		c := &run.Rate[i]
		if c.RateFigures != nil && hasFigures(c.Status) {
			valid = append(valid, c)
		}
	}
	pcts := []struct {
		name string
		pick func(rundoc.LatencyStats) *float64
	}{{"p50", func(s rundoc.LatencyStats) *float64 { return s.P50 }}, {"p90", func(s rundoc.LatencyStats) *float64 { return s.P90 }}, {"p99", func(s rundoc.LatencyStats) *float64 { return s.P99 }}}

	// TTFT vs achieved req/s, in the order the rates rise: a saturated server's
	// curve turns up (latency grows, throughput does not).
	tput := lineChart{ID: "lb-chart-rate-ttft", Title: locale.T(lang, "chart_rate_ttft"), XLabel: locale.T(lang, "axis_achieved"), YLabel: locale.T(lang, "axis_ttft_ms"), Lang: lang, Empty: locale.T(lang, "no_data"), LegendTitle: locale.T(lang, "percentile")}
	maxX := 0.0
	for i, p := range pcts {
		s := chartSeries{Name: p.name, Color: palette[i]}
		for _, c := range sortedByRate(valid) {
			y := p.pick(c.TTFTMs)
			if y == nil || c.AchievedRPS == nil {
				continue
			}
			maxX = math.Max(maxX, *c.AchievedRPS)
			s.Points = append(s.Points, chartPoint{X: *c.AchievedRPS, Y: *y, Title: fmt.Sprintf("%s: %s %s, TTFT %s %s", RateLabel(lang, sessions, c.RateRPS), FormatNumber(lang, *c.AchievedRPS, 2), locale.T(lang, "req_s"), p.name, FormatMs(lang, *y, 0))})
		}
		if len(s.Points) > 0 {
			tput.Series = append(tput.Series, s)
		}
	}
	tput.XTicks, tput.XTickLabel = linearTicks(maxX, lang)
	charts := []lineChart{tput}

	// Percentiles by rate (categorical x: the rates as asked, inf last).
	byRate := func(id, titleKey, yKey string, stat func(*rundoc.RateFigures) rundoc.LatencyStats, decimals int) lineChart {
		c := lineChart{ID: id, Title: locale.T(lang, titleKey), XLabel: locale.T(lang, SessionsKey("axis_rate", sessions)), YLabel: locale.T(lang, yKey), Categorical: true, Lang: lang, Empty: locale.T(lang, "no_data"), LegendTitle: locale.T(lang, "percentile")}
		rates := sortedByRate(valid)
		for i := range rates {
			c.XTicks = append(c.XTicks, float64(i))
		}
		c.XTickLabel = func(x float64) string {
			if i := int(x); i >= 0 && i < len(rates) {
				return rates[i].RateRPS.String()
			}
			return ""
		}
		for k, p := range pcts {
			s := chartSeries{Name: p.name, Color: palette[k]}
			for i, cell := range rates {
				y := p.pick(stat(cell.RateFigures))
				if y == nil {
					if len(s.Points) > 0 {
						s.Breaks = append(s.Breaks, len(s.Points))
					}
					continue
				}
				s.Points = append(s.Points, chartPoint{X: float64(i), Y: *y, Title: fmt.Sprintf("%s: %s %s", RateLabel(lang, sessions, cell.RateRPS), p.name, FormatMs(lang, *y, decimals))})
			}
			if len(s.Points) > 0 {
				c.Series = append(c.Series, s)
			}
		}
		return c
	}
	charts = append(charts,
		byRate("lb-chart-rate-tpot", "chart_rate_tpot", "axis_tpot_ms", func(f *rundoc.RateFigures) rundoc.LatencyStats { return f.TPOTMs }, 1),
		byRate("lb-chart-rate-e2e", "chart_rate_e2e", "axis_e2e_ms", func(f *rundoc.RateFigures) rundoc.LatencyStats { return f.E2EMs }, 0))

	// The throughput / interactivity trade-off.
	ia := lineChart{ID: "lb-chart-interactivity", Title: locale.T(lang, "chart_interactivity"), XLabel: locale.T(lang, "axis_total"), YLabel: locale.T(lang, "axis_per_request"), Lang: lang, Empty: locale.T(lang, "no_data")}
	s := chartSeries{Name: locale.T(lang, "rate"), Color: palette[0]}
	maxX = 0
	for _, c := range sortedByRate(valid) {
		if c.PerRequestTokS == nil {
			continue
		}
		maxX = math.Max(maxX, c.TotalTokS)
		s.Points = append(s.Points, chartPoint{X: c.TotalTokS, Y: *c.PerRequestTokS, Title: fmt.Sprintf("%s: %s tok/s, %s tok/s %s", RateLabel(lang, sessions, c.RateRPS), FormatNumber(lang, c.TotalTokS, 1), FormatNumber(lang, *c.PerRequestTokS, 1), locale.T(lang, "per_request"))})
	}
	if len(s.Points) > 0 {
		ia.Series = append(ia.Series, s)
	}
	ia.XTicks, ia.XTickLabel = linearTicks(maxX, lang)
	return append(charts, ia)
}

// interactivityChart is the matrix's throughput / interactivity trade-off: for each
// context, per-request tok/s against total tok/s as concurrency rises.
func interactivityChart(run *rundoc.Run, v *view) lineChart {
	lang := v.Lang
	cells := cellIndex(run)
	c := lineChart{ID: "lb-chart-interactivity", Title: locale.T(lang, "chart_interactivity"), XLabel: locale.T(lang, "axis_total"), YLabel: locale.T(lang, "axis_per_request"), Lang: lang, Empty: locale.T(lang, "no_data"), LegendTitle: locale.T(lang, "context")}
	maxX := 0.0
	for i, ctx := range v.Contexts {
		s := chartSeries{Name: rundoc.FormatTokens(ctx), Color: palette[i%len(palette)]}
		for _, n := range v.Concurrency {
			cell := cells[cellKey{ctx, n}]
			if cell == nil || cell.DecodeFigures == nil || !hasFigures(cell.Status) || !rundoc.Measured(cell.TotalTokS) || !rundoc.Measured(cell.PerRequestTokS) {
				continue
			}
			maxX = math.Max(maxX, cell.TotalTokS)
			s.Points = append(s.Points, chartPoint{X: cell.TotalTokS, Y: cell.PerRequestTokS, Title: fmt.Sprintf("%s × %d: %s tok/s, %s tok/s %s", rundoc.FormatTokens(ctx), n, FormatNumber(lang, cell.TotalTokS, 1), FormatNumber(lang, cell.PerRequestTokS, 1), locale.T(lang, "per_request"))})
		}
		if len(s.Points) > 0 {
			c.Series = append(c.Series, s)
		}
	}
	c.XTicks, c.XTickLabel = linearTicks(maxX, lang)
	return c
}

// linearTicks are round x positions from 0 past max, for a linear axis.
func linearTicks(maxX float64, lang string) ([]float64, func(float64) string) {
	if !(maxX > 0) {
		return nil, func(float64) string { return "" }
	}
	step := niceStep(maxX / 4)
	var ticks []float64
	for x := 0.0; x < maxX+step/2 && len(ticks) < 12; x += step {
		ticks = append(ticks, x)
	}
	if ticks[len(ticks)-1] < maxX {
		ticks = append(ticks, ticks[len(ticks)-1]+step)
	}
	decimals := 0
	if step < 1 {
		decimals = int(math.Ceil(-math.Log10(step)))
	}
	return ticks, func(x float64) string { return FormatNumber(lang, x, decimals) }
}

// sortedByRate orders cells by rate (a search runs them out of order), inf last.
func sortedByRate(cells []*rundoc.RateCell) []*rundoc.RateCell {
	out := append([]*rundoc.RateCell(nil), cells...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].RateRPS < out[j-1].RateRPS; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
