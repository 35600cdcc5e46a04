package site

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"

	"github.com/llmbench/llmbench/internal/report"
)

// series is one line of a chart: a name and a value per x label (nil = no point).
type series struct {
	Name   string
	Values []*float64
}

// chartColors tell up to four overlaid runs apart (and stay apart in greyscale).
var chartColors = []string{"#2563eb", "#dc2626", "#16a34a", "#9333ea"}

// lineChart draws series over categorical x labels as an inline SVG, without
// JavaScript. Every text in it is escaped; everything else is numbers.
func lineChart(lang, title string, xLabels []string, ss []series) template.HTML {
	const w, h, left, right, top, bottom = 640.0, 300.0, 64.0, 16.0, 36.0, 64.0
	maxY := 0.0
	for _, s := range ss {
		for _, v := range s.Values {
			if v != nil {
				maxY = math.Max(maxY, *v)
			}
		}
	}
	if maxY == 0 {
		maxY = 1
	}
	maxY = niceCeil(maxY)
	x := func(i int) float64 {
		if len(xLabels) < 2 {
			return left + (w-left-right)/2
		}
		return left + float64(i)*(w-left-right)/float64(len(xLabels)-1)
	}
	y := func(v float64) float64 { return top + (h-top-bottom)*(1-v/maxY) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`, w, h, html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%.0f" y="20" class="chart-title">%s</text>`, left, html.EscapeString(title))
	for i := 0; i <= 4; i++ {
		v := maxY * float64(i) / 4
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="grid"/>`, left, w-right, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="axis" text-anchor="end">%s</text>`, left-6, y(v)+4, report.FormatNumber(lang, v, 0))
	}
	for i, l := range xLabels {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="axis" text-anchor="middle">%s</text>`, x(i), h-bottom+18, html.EscapeString(l))
	}
	for si, s := range ss {
		color := chartColors[si%len(chartColors)]
		var pts []string
		for i, v := range s.Values {
			if v == nil || i >= len(xLabels) {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(*v)))
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s: %s</title></circle>`, x(i), y(*v), color, html.EscapeString(s.Name), report.FormatNumber(lang, *v, 1))
		}
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, color, strings.Join(pts, " "))
		}
		lx := left + float64(si%2)*(w-left-right)/2
		ly := h - 26 + float64(si/2)*16
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="12" height="4" fill="%s"/><text x="%.1f" y="%.1f" class="legend">%s</text>`,
			lx, ly-4, color, lx+16, ly+1, html.EscapeString(truncate(s.Name, 48)))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // built above from escaped text and numbers only
}

func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
