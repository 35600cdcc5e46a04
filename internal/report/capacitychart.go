package report

import (
	"fmt"
	"html"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// This file holds the capacity chart: per-user tok/s against simultaneous requests,
// with the target speeds drawn across it.

// chartRule is a horizontal line across a chart at Y, labelled; Strong marks the
// target the answer is at.
type chartRule struct {
	Y      float64
	Label  string
	Strong bool
}

// capacityChart is the per-request chart with a rule at every speed of the capacity
// table, so a reader sees where each context's line crosses each target.
func capacityChart(run *rundoc.Run, v *view) (lineChart, bool) {
	cv := v.Capacity
	if cv == nil || len(cv.Summary.Table) == 0 {
		return lineChart{}, false
	}
	c := decodeChart(run, v, "lb-chart-capacity", "cap_chart", "axis_per_request", func(f *rundoc.DecodeFigures) float64 { return f.PerRequestTokS })
	for _, a := range cv.Summary.Table {
		c.Rules = append(c.Rules, chartRule{Y: a.Targets.TokS, Label: locale.T(v.Lang, "cap_chart_target", trimNumber(v.Lang, a.Targets.TokS)), Strong: a.Targets == cv.Summary.Targets})
	}
	return c, true
}

// rulesMax is the highest rule, so the y axis reaches it.
func (c lineChart) rulesMax() float64 {
	m := 0.0
	for _, r := range c.Rules {
		m = max(m, r.Y)
	}
	return m
}

// drawRules draws the rules: dashed, the strong one darker, each labelled at its right end.
func (c lineChart) drawRules(b *strings.Builder, f chartFrame) {
	for _, r := range c.Rules {
		if r.Y < 0 || r.Y > f.top {
			continue
		}
		color, width := "#8a97a4", 1.5
		if r.Strong {
			color, width = "#b42318", 2
		}
		py := f.y(r.Y)
		fmt.Fprintf(b, `<line class="lb-rule" x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f" stroke-dasharray="6 4"/>`, padLeft, float64(padLeft)+f.plotW, py, py, color, width)
		fmt.Fprintf(b, `<text class="lb-tick" x="%.1f" y="%.1f" dy="-3" text-anchor="end" fill="%s">%s</text>`, float64(padLeft)+f.plotW, py, color, html.EscapeString(r.Label))
	}
}
