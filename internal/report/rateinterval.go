package report

import (
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// rateCIColumns are the open-loop CSV's interval columns: each percentile's and
// goodput's low and high.
var rateCIColumns = func() []string {
	var cols []string
	for _, m := range []string{"ttft", "tpot", "itl", "e2e"} {
		for _, p := range []string{"p50", "p90", "p99"} {
			cols = append(cols, m+"_"+p+"_ms_low", m+"_"+p+"_ms_high")
		}
	}
	return append(cols, "slo_met_ratio_low", "slo_met_ratio_high", "goodput_rps_low", "goodput_rps_high", "ci_method")
}()

// The intervals follow the other figures; rate_of (what arrives at the rate:
// "sessions", or empty for requests, as config.rate.rate_of) came after them.
func init() { rateCSVColumns = append(append(rateCSVColumns, rateCIColumns...), "rate_of") }

// rateLatencyCIs pairs each latency's name with its intervals.
func rateLatencyCIs(ri *rundoc.RateIntervals) []struct {
	name string
	ci   *rundoc.PercentileCIs
} {
	return []struct {
		name string
		ci   *rundoc.PercentileCIs
	}{{"ttft", ri.TTFTMs}, {"tpot", ri.TPOTMs}, {"itl", ri.ITLMs}, {"e2e", ri.E2EMs}}
}

func csvRateIntervals(set func(k, v string), f *rundoc.RateFigures) {
	ri := f.RateIntervals
	if ri == nil {
		return
	}
	for _, l := range rateLatencyCIs(ri) {
		if l.ci == nil {
			continue
		}
		csvInterval(set, l.name+"_p50_ms", l.ci.P50)
		csvInterval(set, l.name+"_p90_ms", l.ci.P90)
		csvInterval(set, l.name+"_p99_ms", l.ci.P99)
	}
	csvInterval(set, "slo_met_ratio", ri.SLOMetRatioCI)
	csvInterval(set, "goodput_rps", ri.GoodputRPSCI)
	set("ci_method", ri.CIMethod)
}

// rateIntervalInfo is a rate cell's intervals for its notes (the row's hover and
// footnote): "95% interval: TTFT p50 41–45 ms, p90 …; goodput 1.2–1.4".
func rateIntervalInfo(lang string, f *rundoc.RateFigures) []string {
	ri := f.RateIntervals
	if ri == nil {
		return nil
	}
	var parts []string
	for _, l := range rateLatencyCIs(ri) {
		if l.ci == nil {
			continue
		}
		var ps []string
		for _, p := range []struct {
			name string
			iv   *stats.Interval
		}{{"p50", l.ci.P50}, {"p90", l.ci.P90}, {"p99", l.ci.P99}} {
			if p.iv != nil {
				ps = append(ps, p.name+" "+locale.T(lang, "ms", ciSpan(lang, *p.iv, 1)))
			}
		}
		if len(ps) > 0 {
			parts = append(parts, strings.ToUpper(l.name)+" "+strings.Join(ps, ", "))
		}
	}
	if ri.GoodputRPSCI != nil {
		parts = append(parts, locale.T(lang, "goodput")+" "+ciSpan(lang, *ri.GoodputRPSCI, 2))
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{locale.T(lang, "n_ci", strings.Join(parts, "; ")) + " " + locale.T(lang, "n_ci_method", ciMethodLabel(lang, ri.CIMethod))}
}
