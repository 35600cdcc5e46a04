package rundoc

import (
	"fmt"
	"math"

	"github.com/llmbench/llmbench/internal/stats"
)

// maxRepeats bounds a cell's repeats (run --repeat takes at most 100).
const maxRepeats = 100

// intervals checks every 95% interval a document carries: both ends plausible
// numbers, low ≤ high, and the figure inside its interval (the leaderboard marks
// ties by them, so an interval that excludes its own value is refused, not shown).
func (v *validator) intervals(r *Run) {
	for i := range r.Decode {
		d, f := &r.Decode[i], fmt.Sprintf("decode[%d]", i)
		ci := d.CellIntervals
		if ci == nil {
			continue
		}
		if fig := d.DecodeFigures; fig != nil {
			v.interval(f+".total_tok_s_ci", ci.TotalTokSCI, fig.TotalTokS, maxTokS)
			v.interval(f+".ttft_ms_ci", ci.TTFTMsCI, fig.TTFTMs, maxMs)
			v.interval(f+".tbt_ms_ci", ci.TBTMsCI, fig.TBTMs, maxMs)
		}
		v.text(f+".ci_method", ci.CIMethod, MaxName)
		if len(ci.Repeats) > maxRepeats {
			v.fail(f+".repeats", "%d repeats, at most %d", len(ci.Repeats), maxRepeats)
		}
		if ci.PublishedRepeat < 0 || ci.PublishedRepeat > len(ci.Repeats) {
			v.fail(f+".published_repeat", "%d of %d repeats", ci.PublishedRepeat, len(ci.Repeats))
		}
		v.name(f+".published_why", ci.PublishedWhy)
	}
	for i := range r.Prefill {
		p, f := &r.Prefill[i], fmt.Sprintf("prefill[%d]", i)
		if pi := p.PrefillIntervals; pi != nil && p.PrefillFigures != nil {
			v.interval(f+".prompt_tok_s_ci", pi.PromptTokSCI, p.PromptTokS, maxTokS)
			v.interval(f+".ttft_ms_ci", pi.TTFTMsCI, p.TTFTMs, maxMs)
			if len(pi.Repeats) > maxRepeats {
				v.fail(f+".repeats", "%d repeats, at most %d", len(pi.Repeats), maxRepeats)
			}
			if pi.PublishedRepeat < 0 || pi.PublishedRepeat > len(pi.Repeats) {
				v.fail(f+".published_repeat", "%d of %d repeats", pi.PublishedRepeat, len(pi.Repeats))
			}
			v.name(f+".published_why", pi.PublishedWhy)
		}
	}
	for i := range r.Rate {
		c, f := &r.Rate[i], fmt.Sprintf("rate[%d]", i)
		if c.RateFigures == nil || c.RateIntervals == nil {
			continue
		}
		if g := c.GoodputRPS; g != nil {
			v.interval(f+".goodput_rps_ci", c.GoodputRPSCI, *g, maxTokS)
		}
		if s := c.SLOMetRatio; s != nil {
			v.interval(f+".slo_met_ratio_ci", c.SLOMetRatioCI, *s, 1)
		}
	}
}

// interval checks one interval of figure value (absent is fine). The value may sit
// a rounding step outside (ends are rounded outward to 2 decimals, the figure to its
// own).
func (v *validator) interval(field string, iv *stats.Interval, value, hi float64) {
	if iv == nil {
		return
	}
	v.number(field+".low", iv.Low, hi)
	v.number(field+".high", iv.High, hi)
	const slack = 0.05
	switch {
	case iv.Low > iv.High:
		v.fail(field, "low %v is above high %v", iv.Low, iv.High)
	case !math.IsNaN(value) && (value < iv.Low-slack || value > iv.High+slack):
		v.fail(field, "[%v, %v] does not hold the figure %v", iv.Low, iv.High, value)
	}
}
