package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// The charts are SVG written here, so the page needs no script and no network to show
// them, and every point carries a <title> that browsers show on hover.

// palette is Tableau 10: distinct hues that survive greyscale printing reasonably.
var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

type chartPoint struct {
	X, Y  float64
	Title string // hover text
}

type chartSeries struct {
	Name   string
	Color  string
	Points []chartPoint // a nil-Y gap is expressed by a break: consecutive runs are drawn as separate lines
	Breaks []int        // indexes in Points where a new line segment starts
}

type lineChart struct {
	ID             string
	Title          string
	XLabel, YLabel string
	// XTicks are the x positions with labels. With Categorical, points sit at the
	// index of their X in XTicks (evenly spaced: concurrency levels 1, 2, 4 … 128 are
	// a doubling series, so this is a log scale); otherwise x is linear from 0.
	XTicks      []float64
	XTickLabel  func(float64) string
	Categorical bool
	Series      []chartSeries
	Lang        string
	Empty       string
	LegendTitle string // heads the legend: the series names are values of it ("16K" of "Context")
	// Rules are horizontal lines across the plot (capacitychart.go: the target speeds).
	Rules []chartRule
	// Marks are points with their intervals apart from the lines, named MarksName in
	// the legend (historychart.go: the runs of each version).
	Marks     []chartMark
	MarksName string
}

const (
	chartW, chartH                     = 640, 340
	padLeft, padRight, padTop, padBott = 64, 120, 16, 52
)

func (c lineChart) SVG() template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="lb-chart" viewBox="0 0 %d %d" role="img" aria-labelledby="%s-t">`, chartW, chartH, c.ID)
	fmt.Fprintf(&b, `<title id="%s-t">%s</title>`, c.ID, html.EscapeString(c.Title))
	maxY, n := c.drawable()
	if n+len(c.Marks) == 0 || len(c.XTicks) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" class="lb-axis-label">%s</text></svg>`, chartW/2, chartH/2, html.EscapeString(c.Empty))
		return template.HTML(b.String())
	}
	f := c.frame(max(maxY, c.rulesMax(), c.marksMax()))
	c.drawAxes(&b, f)
	c.drawRules(&b, f)
	c.drawSeries(&b, f)
	c.drawMarks(&b, f)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// drawable drops the points that cannot be drawn on an axis from 0 (negative or
// infinite) and returns the largest y left and how many points remain.
func (c lineChart) drawable() (maxY float64, n int) {
	for i := range c.Series {
		pts := c.Series[i].Points[:0:0]
		for _, p := range c.Series[i].Points {
			if p.Y >= 0 && !math.IsInf(p.Y, 0) {
				pts = append(pts, p)
				maxY = math.Max(maxY, p.Y)
			}
		}
		c.Series[i].Points = pts
		n += len(pts)
	}
	return maxY, n
}

// chartFrame is where a chart's values land: the plot's size, the y axis's round
// gridlines, the x axis's extent.
type chartFrame struct {
	left             float64 // where the plot starts
	plotW, plotH     float64
	step, ticks, top float64
	maxX             float64
	decimals         int
	categorical      bool
	xTicks           []float64
}

// frame lays out four or five gridlines at round values. Dividing before scaling keeps
// a value near the largest float from overflowing into an endless tick loop.
func (c lineChart) frame(maxY float64) chartFrame {
	f := chartFrame{plotH: float64(chartH - padTop - padBott), categorical: c.Categorical, xTicks: c.XTicks}
	f.step = niceStep(maxY / 4)
	f.ticks = math.Ceil(maxY / f.step * 1.05)
	if !(f.ticks >= 1 && f.ticks <= 20) {
		f.ticks = 4
	}
	f.top = f.ticks * f.step
	for _, x := range c.XTicks {
		f.maxX = math.Max(f.maxX, x)
	}
	if f.step < 1 {
		f.decimals = int(math.Ceil(-math.Log10(f.step)))
	}
	// The plot starts right of the longest y tick label as a phone draws it (larger:
	// site.css), which starts right of the axis's own label.
	f.left = float64(padLeft)
	for k := 0.0; k <= f.ticks; k++ {
		f.left = math.Max(f.left, yLabelX+yLabelRoom+textWidth(FormatNumber(c.Lang, k*f.step, f.decimals), textFontMax))
	}
	f.plotW = float64(chartW-padRight) - f.left
	return f
}

// yLabelX is where the y axis's label (turned upright) stands; yLabelRoom is the
// room from it to the tick labels, which end 6 units left of the plot.
const yLabelX, yLabelRoom = 22, 14

func (f chartFrame) y(v float64) float64 { return float64(padTop) + f.plotH*(1-v/f.top) }

func (f chartFrame) x(v float64) float64 {
	if f.categorical {
		for i, t := range f.xTicks {
			if t == v {
				if len(f.xTicks) == 1 {
					return f.left + f.plotW/2
				}
				return f.left + f.plotW*float64(i)/float64(len(f.xTicks)-1)
			}
		}
		return f.left
	}
	if f.maxX == 0 {
		return f.left
	}
	return f.left + f.plotW*v/f.maxX
}

// drawAxes draws the grid, the ticks, the axes and their labels.
func (c lineChart) drawAxes(b *strings.Builder, f chartFrame) {
	for k := 0.0; k <= f.ticks; k++ {
		v := k * f.step
		py := f.y(v)
		fmt.Fprintf(b, `<line class="lb-grid" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, f.left, f.left+f.plotW, py, py)
		fmt.Fprintf(b, `<text class="lb-tick" x="%.1f" y="%.1f" text-anchor="end" dy="0.32em">%s</text>`, f.left-6, py, FormatNumber(c.Lang, v, f.decimals))
	}
	base := float64(padTop) + f.plotH
	for _, v := range c.XTicks {
		px := f.x(v)
		fmt.Fprintf(b, `<line class="lb-axis" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, px, px, base, base+4)
		fmt.Fprintf(b, `<text class="lb-tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, px, base+18, html.EscapeString(c.XTickLabel(v)))
	}
	fmt.Fprintf(b, `<line class="lb-axis" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, f.left, f.left+f.plotW, base, base)
	fmt.Fprintf(b, `<text class="lb-axis-label" x="%.1f" y="%d" text-anchor="middle">%s</text>`, f.left+f.plotW/2, chartH-8, html.EscapeString(fitText(c.XLabel, f.plotW, labelFontMax)))
	// The y label stands centred on the chart's height, which is all it may take.
	fmt.Fprintf(b, `<text class="lb-axis-label" transform="translate(%d %d) rotate(-90)" text-anchor="middle">%s</text>`, yLabelX, chartH/2, html.EscapeString(fitText(c.YLabel, chartH-8, labelFontMax)))
	if c.LegendTitle != "" {
		fmt.Fprintf(b, `<text class="lb-legend lb-legend-title" x="%d" y="%d">%s</text>`, chartW-padRight+legendInset, padTop+2, html.EscapeString(fitText(c.LegendTitle, padRight-legendInset-2, labelFontMax)))
	}
}

// drawSeries draws each series' lines (broken where it says) and points, whose hover
// shows their value, and its legend row on the right.
//
// A series that coincides with an earlier one (coincident) would hide it, or be
// hidden: it is drawn dashed, over the other, with rings for points, so that both
// colours show, and its legend row names the series it lies on ("2 ≈ 1").
func (c lineChart) drawSeries(b *strings.Builder, f chartFrame) {
	same := coincident(c.Series, c.Categorical)
	over := 0 // how many series were drawn over another so far: each gets its own dash and ring
	for i, s := range c.Series {
		color := s.Color
		if color == "" {
			color = palette[i%len(palette)]
		}
		dash, name, ring := "", s.Name, 0
		if same[i] >= 0 {
			dash, name = ` stroke-dasharray="`+overDashes[over%len(overDashes)]+`"`, s.Name+" ≈ "+c.Series[same[i]].Name
			ring = 6 + 2*(over%3)
			over++
		}
		start := 0
		for k := 1; k <= len(s.Points); k++ {
			if k < len(s.Points) && !contains(s.Breaks, k) {
				continue
			}
			if k-start > 1 {
				var pts []string
				for _, p := range s.Points[start:k] {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", f.x(p.X), f.y(p.Y)))
				}
				fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2.5" stroke-linejoin="round"%s points="%s"/>`, color, dash, strings.Join(pts, " "))
			}
			start = k
		}
		for _, p := range s.Points {
			if ring > 0 {
				fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="%d" fill="none" stroke="%s" stroke-width="2"><title>%s</title></circle>`, f.x(p.X), f.y(p.Y), ring, color, html.EscapeString(p.Title))
				continue
			}
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s</title></circle>`, f.x(p.X), f.y(p.Y), color, html.EscapeString(p.Title))
		}
		ly := float64(padTop) + 20 + float64(i)*20
		lx := float64(chartW - padRight + legendInset)
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="3"%s/>`, lx, lx+18, ly, ly, color, dash)
		fmt.Fprintf(b, `<text class="lb-legend" x="%.1f" y="%.1f" dy="0.32em">%s</text>`, lx+24, ly, html.EscapeString(fitText(name, chartW-lx-26, labelFontMax)))
	}
}

// legendInset is the legend's distance right of the plot.
const legendInset = 10

// overDashes are the dash patterns of series drawn over others, in turn.
var overDashes = []string{"7 5", "3 4", "12 4 3 4"}

// coincidentShare is how close two series' points must be, as a share of the largest
// value on each axis, for one line to hide the other: 1% of the plot is about 3 px.
const coincidentShare = 0.01

// coincident says, for each series, the first earlier series it coincides with, -1
// for none: the same number of points at the same x (the same category, with
// categorical), each pair within coincidentShare of the largest x and y drawn.
func coincident(series []chartSeries, categorical bool) []int {
	maxX, maxY := 0.0, 0.0
	for _, s := range series {
		for _, p := range s.Points {
			maxX, maxY = math.Max(maxX, math.Abs(p.X)), math.Max(maxY, math.Abs(p.Y))
		}
	}
	near := func(a, b, scale float64) bool { return math.Abs(a-b) <= coincidentShare*scale }
	same := func(a, b chartSeries) bool {
		if len(a.Points) == 0 || len(a.Points) != len(b.Points) {
			return false
		}
		for k, p := range a.Points {
			q := b.Points[k]
			if categorical && p.X != q.X || !categorical && !near(p.X, q.X, maxX) || !near(p.Y, q.Y, maxY) {
				return false
			}
		}
		return true
	}
	out := make([]int, len(series))
	for i := range series {
		out[i] = -1
		for j := range i {
			if same(series[i], series[j]) {
				out[i] = j
				break
			}
		}
	}
	return out
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// niceStep rounds a raw step up to 1, 2, 2.5 or 5 × 10^k.
func niceStep(raw float64) float64 {
	if !(raw > 0) || math.IsInf(raw, 1) {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

// decodeChart draws one line per context of a decode figure against concurrency.
// Cells without figures (over capacity, failed) break the line rather than bridging it.
func decodeChart(run *rundoc.Run, v *view, id, titleKey, yKey string, value func(*rundoc.DecodeFigures) float64) lineChart {
	return decodeChartBy(run, v, id, titleKey, yKey, func(c *rundoc.DecodeCell) (float64, bool) {
		if c.DecodeFigures == nil {
			return 0, false
		}
		y := value(c.DecodeFigures)
		return y, rundoc.Measured(y) // a figure the cell lacks is no point at 0

	}, func(y float64) string { return FormatNumber(v.Lang, y, 1) + " tok/s" })
}

// decodeChartBy draws any per-cell value against concurrency, one line per context;
// label writes a point's value for its hover text.
func decodeChartBy(run *rundoc.Run, v *view, id, titleKey, yKey string, value func(*rundoc.DecodeCell) (float64, bool), label func(float64) string) lineChart {
	lang := v.Lang
	cells := cellIndex(run)
	c := lineChart{ID: id, Title: locale.T(lang, titleKey), XLabel: locale.T(lang, "axis_requests"), YLabel: locale.T(lang, yKey), Categorical: true, Lang: lang, Empty: locale.T(lang, "no_data"), LegendTitle: locale.T(lang, "context")}
	for _, n := range v.Concurrency {
		c.XTicks = append(c.XTicks, float64(n))
	}
	c.XTickLabel = func(x float64) string { return strconv.Itoa(int(x)) }
	for i, ctx := range v.Contexts {
		s := chartSeries{Name: rundoc.FormatTokens(ctx), Color: palette[i%len(palette)]}
		gap := false
		for _, n := range v.Concurrency {
			cell := cells[cellKey{ctx, n}]
			if cell == nil || cell.DecodeFigures == nil || cell.Status == rundoc.StatusOverCapacity || !hasFigures(cell.Status) {
				gap = true
				continue
			}
			y, ok := value(cell)
			if !ok {
				gap = true
				continue
			}
			if gap && len(s.Points) > 0 {
				s.Breaks = append(s.Breaks, len(s.Points))
			}
			gap = false
			s.Points = append(s.Points, chartPoint{X: float64(n), Y: y, Title: fmt.Sprintf("%s × %d: %s", rundoc.FormatTokens(ctx), n, label(y))})
		}
		if len(s.Points) > 0 {
			c.Series = append(c.Series, s)
		}
	}
	return c
}

// hasFigures: the statuses whose numbers may be drawn. A failed or invalid cell's
// partial figures stay in the table, where their status is beside them.
func hasFigures(s rundoc.Status) bool {
	return s == rundoc.StatusValid || s == rundoc.StatusPredicted
}

func prefillChart(v *view) lineChart {
	lang := v.Lang
	c := lineChart{ID: "lb-chart-prefill", Title: locale.T(lang, "chart_prefill"), XLabel: locale.T(lang, "axis_context"), YLabel: locale.T(lang, "axis_prompt"), Lang: lang, Empty: locale.T(lang, "no_data")}
	c.XTickLabel = func(x float64) string { return rundoc.FormatTokens(int(x)) }
	s := chartSeries{Name: locale.T(lang, "prefill"), Color: palette[0]}
	for _, p := range v.Prefill {
		c.XTicks = append(c.XTicks, float64(p.Context))
		if p.HasFigures && hasFigures(p.Status) && rundoc.Measured(p.TokS) {
			s.Points = append(s.Points, chartPoint{X: float64(p.Context), Y: p.TokS, Title: fmt.Sprintf("%s: %s tok/s, %s", p.ContextStr, p.TokSStr, locale.T(lang, "x_ttft", p.TTFTStr))})
		}
	}
	if len(s.Points) > 0 {
		c.Series = append(c.Series, s)
	}
	return c
}
