package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
)

// Bar is one bar of a bar chart; Title is shown on hover. Tied marks a bar whose
// value cannot be told from the one above it (their 95% intervals overlap, or they
// read the same): it shares that bar's rank.
type Bar struct {
	Label string
	Value float64
	Title string
	Tied  bool
}

// Each bar is a row: its rank and label on a line with its value at the right end,
// and the bar beneath it across the whole width. The label has the whole line, so a
// long model name is shortened to what fits instead of running off the left edge.
const (
	barRowH  = 40 // a row: the text line, then the bar
	barH     = 12
	barInset = 8 // the chart's margin on the left and right
)

// BarChart draws horizontal bars, one per label, longest for the largest value, with
// the value printed at the end of each bar's line (decimals digits) and each bar's
// rank before its label: tied bars share a rank, their values marked ≈ and a note
// under the chart says why.
func BarChart(lang, id, title, valueLabel string, bars []Bar, decimals int) template.HTML {
	ties := false
	for i, bar := range bars {
		ties = ties || bar.Tied && i > 0
	}
	h := padTop + 24 + barRowH*max(len(bars), 1) + 12
	if ties {
		h += 24
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="lb-chart lb-bars" viewBox="0 0 %d %d" role="img" aria-labelledby="%s-t">`, chartW, h, id)
	fmt.Fprintf(&b, `<title id="%s-t">%s</title>`, id, html.EscapeString(title))
	maxV := 0.0
	for _, bar := range bars {
		if bar.Value > 0 && !math.IsInf(bar.Value, 0) {
			maxV = math.Max(maxV, bar.Value)
		}
	}
	if len(bars) == 0 || maxV == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" class="lb-axis-label">%s</text></svg>`, chartW/2, h/2, html.EscapeString(locale.T(lang, "no_data")))
		return template.HTML(b.String())
	}
	plotW := float64(chartW - 2*barInset)
	fmt.Fprintf(&b, `<text class="lb-axis-label" x="%d" y="%d">%s</text>`, barInset, padTop+8, html.EscapeString(fitText(valueLabel, plotW, labelFontMax)))
	rank := 0
	for i, bar := range bars {
		if i == 0 || !bar.Tied {
			rank = i + 1
		}
		top := float64(padTop + 24 + i*barRowH)
		w := 0.0
		if bar.Value > 0 && !math.IsInf(bar.Value, 0) {
			w = plotW * bar.Value / maxV
		}
		value := FormatNumber(lang, bar.Value, decimals)
		if bar.Tied && i > 0 {
			value = "≈ " + value
		}
		whole := strconv.Itoa(rank) + "  " + bar.Label
		label, full := fitText(whole, plotW-textWidth(value, textFontMax)-textFontMax, textFontMax), ""
		if label != whole {
			full = "<title>" + html.EscapeString(bar.Label) + "</title>" // what was cut, on hover
		}
		fmt.Fprintf(&b, `<text class="lb-tick lb-bar-label" x="%d" y="%.1f">%s%s</text>`, barInset, top+14, html.EscapeString(label), full)
		fmt.Fprintf(&b, `<text class="lb-tick lb-bar-value" x="%d" y="%.1f" text-anchor="end">%s</text>`, chartW-barInset, top+14, html.EscapeString(value))
		fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`, barInset, top+20, w, barH, ChartColor(0), html.EscapeString(bar.Title))
	}
	if ties {
		fmt.Fprintf(&b, `<text class="lb-tick lb-bar-note" x="%d" y="%d">%s</text>`, barInset, h-14, html.EscapeString(fitText(locale.T(lang, "bar_tie_note"), plotW, textFontMax)))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
