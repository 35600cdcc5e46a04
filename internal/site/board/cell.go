package board

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
)

// Cell is the cell the leaderboard ranks by: a registered metric, a context and a
// level on the metric's second axis (the concurrency of a decode cell, the request
// rate of an open-loop cell) and, for an open-loop metric, the conditions its values
// were measured under (conditions.go).
type Cell struct {
	Metric  metric.CellMetric
	Context int
	Level   float64
	Cond    metric.RateCond
}

// rated reports whether the cell is an open-loop one, ranked under conditions.
func (c Cell) Rated() bool { return c.Metric.Under != metric.NoConditions }

// legacySorts maps the leaderboard's first rankings (sort=…) to the cells they are.
var legacySorts = map[string]Cell{
	"decode":      {Context: 0, Level: 1},
	"peak":        {},
	"prefill_32k": {Context: 32 * rundoc.K},
	"per_gb":      {},
}

var legacyMetric = map[string]string{"decode": "total_tok_s", "peak": "peak_tok_s", "prefill_32k": "prompt_tok_s", "per_gb": "peak_tok_s_per_gb"}

// DefaultCell is what the leaderboard ranks by when asked nothing: single-stream
// decode at context 0, the seed site's first ranking.
func DefaultCell() Cell {
	m, _ := metric.MetricByName("total_tok_s")
	return Cell{Metric: m, Context: 0, Level: 1}
}

// LevelParam is the query parameter naming a metric's second axis.
func LevelParam(a metric.Axis) string {
	switch a {
	case metric.AxisRate:
		return "rate"
	case metric.AxisConcurrency:
		return "concurrency"
	case metric.AxisTarget:
		return "speed"
	}
	return ""
}

// CellFromQuery reads metric, context and concurrency (or rate) from the query:
// context in tokens or with K (32768, 32K), the level a number. Missing parts take the
// defaults (context 0, level 1); sort= of the first leaderboard still works.
func CellFromQuery(v url.Values) (Cell, *guard.FieldError) {
	name := v.Get("metric")
	if name == "" {
		if legacy := v.Get("sort"); legacy != "" && legacy != "newest" {
			sel, ok := legacySorts[legacy]
			if !ok {
				return DefaultCell(), guard.Refuse("sort", "qerr_sort")
			}
			sel.Metric, _ = metric.MetricByName(legacyMetric[legacy])
			return sel, nil
		}
		name = "total_tok_s"
	}
	m, ok := metric.MetricByName(name)
	if !ok {
		return DefaultCell(), guard.Refuse("metric", "qerr_one_of", strings.Join(metric.MetricNames(), ", "))
	}
	sel := Cell{Metric: m}
	if m.Axis == metric.AxisRun {
		return sel, nil
	}
	if sel.Rated() {
		sel.Context = metric.DefaultInputLen
	}
	if c := v.Get("context"); c != "" {
		n, err := rundoc.ParseTokens(c)
		if err != nil || n < 0 || n > rundoc.MaxTokens {
			return DefaultCell(), guard.Refuse("context", "qerr_context")
		}
		sel.Context = n
	}
	if p := LevelParam(m.Axis); p != "" {
		l, ferr := levelFromRequest(v.Get(p), p, m.Axis)
		if ferr != nil {
			return DefaultCell(), ferr
		}
		sel.Level = l
	}
	if sel.Rated() {
		cond, ferr := rateCondFromRequest(v, m, sel.Level)
		sel.Cond = cond
		if ferr != nil {
			if MissingSLO(ferr, v) {
				return sel, ferr // the page offers the SLOs runs were measured under
			}
			return DefaultCell(), ferr
		}
	}
	return sel, nil
}

// levelFromRequest reads a cell's level: a concurrency, or a request rate (or inf);
// 1 when the query gives none.
func levelFromRequest(s, param string, axis metric.Axis) (float64, *guard.FieldError) {
	switch {
	case axis == metric.AxisTarget:
		return ParseSpeed(s)
	case s == "":
		return 1, nil
	case axis == metric.AxisRate:
		return parseRateLevel(s)
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x > 0) || x > rundoc.MaxConc {
		return 0, guard.Refuse(param, "qerr_level", rundoc.MaxConc)
	}
	return x, nil
}

// label is how pages name the cell: "Total tok/s at 32K × 1".
func (c Cell) Label(lang string) string {
	name := locale.T(lang, "metric_"+c.Metric.Name)
	switch c.Metric.Axis {
	case metric.AxisRun:
		return name
	case metric.AxisPrefill:
		return locale.T(lang, "cell_prefill", name, rundoc.FormatTokens(c.Context))
	case metric.AxisRate:
		if c.Level == metric.RateInf {
			return locale.T(lang, "cell_rate_inf", name, report.FormatInt(lang, c.Context))
		}
		return locale.T(lang, "cell_rate", name, report.FormatInt(lang, c.Context), FormatLevel(c.Level))
	case metric.AxisRateRun:
		return locale.T(lang, "cell_rate_run", name, report.FormatInt(lang, c.Context))
	case metric.AxisTarget:
		return locale.T(lang, "cell_target", name, FormatLevel(c.Level), rundoc.FormatTokens(c.Context))
	}
	return locale.T(lang, "cell_decode", name, rundoc.FormatTokens(c.Context), FormatLevel(c.Level))
}

// shortLabel names an open-loop cell without its metric: "512 in, 4 req/s".
func (c Cell) ShortLabel(lang string) string {
	if c.Metric.Axis == metric.AxisRateRun {
		return locale.T(lang, "cell_short_run", report.FormatInt(lang, c.Context))
	}
	if c.Level == metric.RateInf {
		return locale.T(lang, "cell_short_inf", report.FormatInt(lang, c.Context))
	}
	return locale.T(lang, "cell_short_rate", report.FormatInt(lang, c.Context), FormatLevel(c.Level))
}

// FormatLevel writes a level as URLs take it: 8, 0.5, inf (a rate inf cell).
func FormatLevel(l float64) string {
	if l == metric.RateInf {
		return "inf"
	}
	return strconv.FormatFloat(l, 'f', -1, 64)
}

// query sets the cell's URL parameters on v.
func (c Cell) Query(v url.Values) url.Values {
	v.Del("sort")
	v.Del("offset")
	v.Set("metric", c.Metric.Name)
	v.Del("context")
	v.Del("concurrency")
	v.Del("rate")
	if c.Metric.Axis != metric.AxisRun {
		v.Set("context", strconv.Itoa(c.Context))
	}
	if p := LevelParam(c.Metric.Axis); p != "" {
		v.Set(p, FormatLevel(c.Level))
	}
	if c.Rated() {
		setCondParams(v, c.Cond)
	} else {
		for _, p := range CondParams {
			v.Del(p)
		}
	}
	return v
}

// Store is the store's query of the cell under q's filters.
func (c Cell) Store(q store.Query) store.CellQuery {
	cq := store.CellQuery{Query: q, Metric: c.Metric.Name, Context: c.Context, Level: c.Level}
	if c.Rated() {
		cq.Cond = c.Cond.Key()
	}
	return cq
}

// MissingSLO reports whether ferr says an SLO metric was asked for with no SLO.
func MissingSLO(ferr *guard.FieldError, v url.Values) bool {
	return ferr != nil && ferr.Field == ErrNoSLO && strings.TrimSpace(v.Get("slo")) == ""
}

// MaxSpeed bounds a target speed per user in tok/s.
const MaxSpeed = 10000

// ParseSpeed reads a target speed per user (the capacity metrics' level, the compare
// page's and the calculator's speed=): metric.DefaultSpeed when not given.
func ParseSpeed(s string) (float64, *guard.FieldError) {
	s = strings.TrimSpace(s)
	if s == "" {
		return metric.DefaultSpeed, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x > 0) || x > MaxSpeed {
		return 0, guard.Refuse("speed", "reason_speed", MaxSpeed)
	}
	return x, nil
}
