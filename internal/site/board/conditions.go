package board

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
)

// CondParams are the URL parameters of a rate cell's conditions.
var CondParams = []string{"output", "arrival", "len_dist", "max_concurrency", "prefix_share", "requests", "duration", "slo", "target"}

// maxRateLevel bounds a rate in a query: rundoc.Validate's bound on a cell's rate.
const maxRateLevel = rundoc.MaxRPS

// ErrNoSLO marks the guard.FieldError of a metric judged against an SLO asked for without one.
const ErrNoSLO = "slo"

// parseRateLevel reads a request rate: a positive number or "inf".
func parseRateLevel(s string) (float64, *guard.FieldError) {
	if strings.EqualFold(strings.TrimSpace(s), "inf") {
		return metric.RateInf, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x > 0) || x > maxRateLevel {
		return 0, guard.Refuse("rate", "qerr_rate", maxRateLevel)
	}
	return x, nil
}

// rateCondFromRequest reads the conditions a rate metric's cell is ranked under.
func rateCondFromRequest(v url.Values, m metric.CellMetric, level float64) (metric.RateCond, *guard.FieldError) {
	c := metric.RateCond{OutputLen: metric.DefaultOutputLen}
	intParam := func(name string, lo, hi int, into *int) *guard.FieldError {
		s := v.Get(name)
		if s == "" {
			return nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return guard.Refuse(name, "calc_reason_int", lo, hi)
		}
		*into = n
		return nil
	}
	if err := intParam("output", 1, rundoc.MaxTokens, &c.OutputLen); err != nil {
		return c, err
	}
	arr, err := rundoc.ParseArrival(v.Get("arrival"))
	if err != nil {
		return c, guard.Refuse("arrival", "qerr_arrival")
	}
	c.Arrival = arr.String()
	dist, err := rundoc.ParseLenDist(v.Get("len_dist"))
	if err != nil {
		return c, guard.Refuse("len_dist", "qerr_len_dist")
	}
	c.LenDist = dist.String()
	if err := intParam("max_concurrency", 0, rundoc.MaxConc, &c.MaxConcurrency); err != nil {
		return c, err
	}
	if s := v.Get("prefix_share"); s != "" {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !(x >= 0 && x < 1) {
			return c, guard.Refuse("prefix_share", "qerr_prefix_share")
		}
		c.PrefixShare = x
	}
	// A cell's length: its requests (--requests, or a rate inf cell's burst) or the
	// seconds its arrivals were scheduled for (--duration).
	if err := intParam("requests", 1, rundoc.MaxConc, &c.Requests); err != nil {
		return c, err
	}
	switch {
	case c.Requests > 0:
	case m.Axis == metric.AxisRate && level == metric.RateInf:
		return c, guard.Refuse("requests", "qerr_requests_inf")
	default:
		c.DurationS = metric.DefaultDurationS
		if s := v.Get("duration"); s != "" {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || !(x > 0) || x > rundoc.MaxSeconds {
				return c, guard.Refuse("duration", "qerr_duration")
			}
			c.DurationS = x
		}
	}
	if m.Under >= metric.UnderSLO {
		text := v.Get("slo")
		if strings.TrimSpace(text) == "" {
			return c, &guard.FieldError{Field: ErrNoSLO, Reason: fmt.Sprintf("%s is judged against an SLO, and runs judged against other targets are not comparable: state the targets the runs were measured under, e.g. slo=ttft:500ms,tpot:50ms", m.Name)}
		}
		slo, err := metric.ParseSLOText(text)
		if err != nil {
			return c, guard.Refuse("slo", "qerr_slo", err.Error())
		}
		c.SLO = slo
	}
	if m.Under >= metric.UnderSLOTarget {
		c.Target = metric.DefaultTarget
		if s := v.Get("target"); s != "" {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || !(x > 0 && x <= 1) {
				return c, guard.Refuse("target", "qerr_target")
			}
			c.Target = x
		}
	}
	return c, nil
}

// setCondParams writes a rate cell's conditions on v, leaving out the defaults.
func setCondParams(v url.Values, c metric.RateCond) {
	for _, p := range CondParams {
		v.Del(p)
	}
	v.Set("output", strconv.Itoa(c.OutputLen))
	if c.Arrival != "" && c.Arrival != "poisson" {
		v.Set("arrival", c.Arrival)
	}
	if c.LenDist != "" && c.LenDist != "fixed" {
		v.Set("len_dist", c.LenDist)
	}
	if c.MaxConcurrency > 0 {
		v.Set("max_concurrency", strconv.Itoa(c.MaxConcurrency))
	}
	if c.PrefixShare > 0 {
		v.Set("prefix_share", strconv.FormatFloat(c.PrefixShare, 'f', -1, 64))
	}
	if c.Requests > 0 {
		v.Set("requests", strconv.Itoa(c.Requests))
	} else if c.DurationS != metric.DefaultDurationS {
		v.Set("duration", strconv.FormatFloat(c.DurationS, 'f', -1, 64))
	}
	if c.SLO != nil {
		v.Set("slo", metric.SLOText(c.SLO))
	}
	if c.Target > 0 {
		v.Set("target", strconv.FormatFloat(c.Target, 'f', -1, 64))
	}
}

// CondLabel says the conditions in words, with the run report's own phrases where
// they are short: "64 output tokens · Poisson arrivals · at most 8 in flight (client
// cap) · SLO: TTFT ≤ 1,000 ms, TPOT ≤ 60 ms".
func CondLabel(lang string, c metric.RateCond) string {
	parts := []string{locale.T(lang, "cond_output", report.FormatInt(lang, c.OutputLen))}
	switch arrival := c.Arrival; {
	case strings.HasPrefix(arrival, "gamma:"):
		parts = append(parts, locale.T(lang, "arr_gamma", strings.TrimPrefix(arrival, "gamma:")))
	case arrival != "":
		parts = append(parts, locale.T(lang, "arr_"+arrival))
	}
	if c.LenDist != "" && c.LenDist != "fixed" {
		parts = append(parts, locale.T(lang, "cond_len_dist", c.LenDist))
	}
	if c.MaxConcurrency > 0 {
		parts = append(parts, locale.T(lang, "cond_max_conc", report.FormatInt(lang, c.MaxConcurrency)))
	}
	if c.PrefixShare > 0 {
		parts = append(parts, locale.T(lang, "rate_prefix", report.FormatPercent(lang, c.PrefixShare)))
	}
	if c.Requests > 0 {
		parts = append(parts, locale.T(lang, "cond_requests", report.FormatInt(lang, c.Requests)))
	} else {
		parts = append(parts, locale.T(lang, "cond_duration", strconv.FormatFloat(c.DurationS, 'f', -1, 64)))
	}
	if c.SLO != nil {
		parts = append(parts, locale.T(lang, "cond_slo", sloWords(lang, c.SLO)))
	}
	if c.Target > 0 {
		parts = append(parts, locale.T(lang, "cond_target", report.FormatPercent(lang, c.Target)))
	}
	return strings.Join(parts, " · ")
}

// sloWords is "TTFT ≤ 1,000 ms, TPOT ≤ 60 ms".
func sloWords(lang string, s *rundoc.SLO) string {
	var parts []string
	add := func(name string, v *float64) {
		if v != nil {
			decimals := 0
			if *v != math.Trunc(*v) {
				decimals = 1
			}
			parts = append(parts, name+" ≤ "+report.FormatMs(lang, *v, decimals))
		}
	}
	add("TTFT", s.TTFTMs)
	add("TPOT", s.TPOTMs)
	add("E2E", s.E2EMs)
	return strings.Join(parts, ", ")
}

// KnownSLOs lists the SLOs a metric's runs were judged against (for the reason of a
// request that states none), the most used first.
func KnownSLOs(cells []store.MetricCell, limit int) []string {
	runs := map[string]int{}
	var out []string
	for _, c := range cells {
		cond, err := metric.ParseCondKey(c.Cond)
		if err != nil || cond.SLO == nil {
			continue
		}
		text := metric.SLOText(cond.SLO)
		if _, ok := runs[text]; !ok {
			out = append(out, text)
		}
		runs[text] = max(runs[text], c.Runs)
	}
	slices.SortStableFunc(out, func(a, b string) int { return runs[b] - runs[a] })
	return out[:min(limit, len(out))]
}

// CellsUnder keeps the cells measured under one set of conditions.
func CellsUnder(cells []store.MetricCell, cond string) []store.MetricCell {
	var out []store.MetricCell
	for _, c := range cells {
		if c.Cond == cond {
			out = append(out, c)
		}
	}
	return out
}
