package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
)

// This file holds the history chart of the site (a GPU × model across one engine's
// versions): the best figure of each version as a line, and every run as a dot with
// its 95% interval as a whisker, so that a version's spread reads beside its best.

// Mark is one run on a history chart: its figure Y at the version of index X, with
// its interval [Low, High] when HasInterval. Title is shown on hover.
type Mark struct {
	X           int
	Y           float64
	Low, High   float64
	HasInterval bool
	Title       string
}

// chartMark is a Mark placed: Shift is where it stands among its version's runs, as a
// share of the space between two versions (-0.3 to 0.3), so that runs of one version
// do not hide each other.
type chartMark struct {
	Mark
	Shift float64
}

// HistoryChart draws an engine's versions (labels, in order) on x and a figure on y:
// best holds one point per version (its X the version's index), drawn as a line
// named bestName, and marks every run, named marksName in the legend. Version labels
// that would overlap are thinned to every k-th (the last always shown); the page lists
// them all.
func HistoryChart(lang, id, title, xLabel, yLabel string, labels []string, bestName string, best []XY, marksName string, marks []Mark) template.HTML {
	xs := make([]float64, len(labels))
	for i := range xs {
		xs[i] = float64(i)
	}
	shown := thinLabels(labels)
	c := lineChart{ID: id, Title: title, XLabel: xLabel, YLabel: yLabel, XTicks: xs, Categorical: true, Lang: lang, Empty: locale.T(lang, "no_data"),
		XTickLabel: func(x float64) string {
			if i := int(x); i >= 0 && i < len(labels) && shown[i] {
				return labels[i]
			}
			return ""
		}}
	if len(best) > 0 {
		s := chartSeries{Name: bestName, Color: ChartColor(0)}
		for _, p := range best {
			s.Points = append(s.Points, chartPoint(p))
		}
		c.Series = append(c.Series, s)
	}
	c.Marks, c.MarksName = placeMarks(marks), marksName
	return c.SVG()
}

// thinLabels says which of n evenly spaced labels to print so that none overlaps the
// next at the phone's tick size: every k-th from the first, and the last.
func thinLabels(labels []string) []bool {
	shown := make([]bool, len(labels))
	if len(labels) == 0 {
		return shown
	}
	widest := 0.0
	for _, l := range labels {
		widest = math.Max(widest, textWidth(l, textFontMax))
	}
	plotW := float64(chartW-padRight-padLeft) - 40 // the y tick labels may push the plot right (frame)
	gap := plotW
	if len(labels) > 1 {
		gap = plotW / float64(len(labels)-1)
	}
	k := max(1, int(math.Ceil((widest+textFontMax)/gap)))
	for i := range labels {
		shown[i] = i == len(labels)-1 || i%k == 0 && len(labels)-1-i >= k
	}
	return shown
}

// placeMarks spreads each version's runs across a band around its position, in the
// order given.
func placeMarks(marks []Mark) []chartMark {
	per := map[int]int{}
	for _, m := range marks {
		per[m.X]++
	}
	seen := map[int]int{}
	out := make([]chartMark, 0, len(marks))
	for _, m := range marks {
		n, k := per[m.X], seen[m.X]
		seen[m.X]++
		shift := 0.0
		if n > 1 {
			shift = -0.3 + 0.6*float64(k)/float64(n-1)
		}
		out = append(out, chartMark{Mark: m, Shift: shift})
	}
	return out
}

// marksMax is the highest end of a mark, so that the y axis reaches it.
func (c lineChart) marksMax() float64 {
	m := 0.0
	for _, k := range c.Marks {
		for _, v := range []float64{k.Y, k.High} {
			if v > 0 && !math.IsInf(v, 0) {
				m = max(m, v)
			}
		}
	}
	return m
}

// drawMarks draws each mark as a ring on a whisker from its interval's low to its
// high, and the marks' legend row under the lines'.
func (c lineChart) drawMarks(b *strings.Builder, f chartFrame) {
	if len(c.Marks) == 0 {
		return
	}
	space := f.plotW / 2
	if len(f.xTicks) > 1 {
		space = f.plotW / float64(len(f.xTicks)-1)
	}
	color := "#5b6b7b"
	for _, m := range c.Marks {
		if !(m.Y >= 0) || math.IsInf(m.Y, 0) {
			continue
		}
		px := f.x(float64(m.X)) + m.Shift*space
		if m.HasInterval && m.Low >= 0 && m.High >= m.Low && !math.IsInf(m.High, 0) {
			fmt.Fprintf(b, `<line class="lb-whisker" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"/>`, px, px, f.y(m.Low), f.y(m.High), color)
			for _, v := range []float64{m.Low, m.High} {
				fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"/>`, px-4, px+4, f.y(v), f.y(v), color)
			}
		}
		fmt.Fprintf(b, `<circle class="lb-mark" cx="%.1f" cy="%.1f" r="3.5" fill="#fff" stroke="%s" stroke-width="1.5"><title>%s</title></circle>`, px, f.y(m.Y), color, html.EscapeString(m.Title))
	}
	ly := float64(padTop) + 20 + float64(len(c.Series))*20
	lx := float64(chartW - padRight + legendInset)
	fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"/>`, lx+9, lx+9, ly-7, ly+7, color)
	fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="#fff" stroke="%s" stroke-width="1.5"/>`, lx+9, ly, color)
	fmt.Fprintf(b, `<text class="lb-legend" x="%.1f" y="%.1f" dy="0.32em">%s</text>`, lx+24, ly, html.EscapeString(fitText(c.MarksName, chartW-lx-26, labelFontMax)))
}
