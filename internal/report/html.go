package report

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

//go:embed templates/*.html templates/*.css templates/*.js
var templateFS embed.FS

// pageTemplates holds "page" (a whole self-contained document) and "body" (the run
// page's content, which the site puts inside its own layout).
var pageTemplates = template.Must(template.New("").ParseFS(templateFS, "templates/*.html"))

var (
	styles = mustRead("templates/style.css")
	script = mustRead("templates/page.js")
)

func mustRead(name string) string {
	b, err := templateFS.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// HTMLStyles is the CSS that HTMLBody's markup needs. Every selector is scoped under
// .lb-run (or starts with lb-), so it can sit in another page's <head> without
// restyling that page.
func HTMLStyles() template.CSS { return template.CSS(styles) }

// HTMLBody writes the run page's content — header, cards, launch command, prefill,
// sustained-decode matrix, charts, all measurements, and the few lines of script that
// sort the table and copy the launch command — without <html>, <head> or <body>, for a
// page that supplies its own layout and includes HTMLStyles.
func HTMLBody(w io.Writer, run *rundoc.Run, lang string) error {
	if err := pageTemplates.ExecuteTemplate(w, "body", newHTMLData(run, Options{Lang: lang})); err != nil {
		return fmt.Errorf("rendering run page: %w", err)
	}
	return nil
}

func writeHTMLPage(w io.Writer, run *rundoc.Run, opts Options) error {
	return pageTemplates.ExecuteTemplate(w, "page", newHTMLData(run, opts))
}

// htmlData is what the templates see: the view, the charts, and the helpers that turn
// view values into markup attributes.
type htmlData struct {
	*view
	Styles       template.CSS
	Script       template.JS
	PrefillChart template.HTML
	Charts       []htmlChart
	Head         []htmlHeadCell
	Rows         []htmlRow

	// CapacityChart is the capacity section's chart (capacitychart.go), "" without one.
	CapacityChart template.HTML

	// An open-loop run's table and charts.
	RateHead   []htmlHeadCell
	RateRows   []htmlRow
	RateCharts []htmlChart

	// TurnCharts are a sessions run's charts by turn (turnchart.go), in its workload
	// section.
	TurnCharts []htmlChart

	// AccuracySets are the run's evaluations and Comparisons the A/B of Options.AB,
	// each a title and its lines (accuracy.go).
	AccuracySets []htmlAccuracy
	Comparisons  [][]string
	evalOnly     bool

	// Reasons are the matrix's reasons as placed: on their cells, or each once below
	// the matrix (reasonnotes.go).
	Reasons ReasonNotes
}

// keyedTable is a table whose first column names each row and whose others are
// numbers (the capacity and accuracy sections).
type keyedTable struct {
	Class string
	Head  []string
	Rows  [][]string
}

type htmlChart struct {
	SVG     template.HTML
	Caption string
}

type htmlHeadCell struct {
	Label   string
	Numeric bool
}

type htmlRow struct {
	Class string
	Cells []htmlCell
	Title string
}

type htmlCell struct {
	Text    string
	Sort    string // numeric sort key; empty for "—" (sorts last) and for text columns
	Numeric bool
}

func newHTMLData(run *rundoc.Run, opts Options) *htmlData {
	v := viewFor(run, opts)
	d := &htmlData{view: v, Styles: HTMLStyles(), Script: template.JS(script), evalOnly: run.EvalOnly()}
	for _, c := range turnCharts(run, v.Lang) {
		d.TurnCharts = append(d.TurnCharts, htmlChart{SVG: c.SVG(), Caption: c.Title})
	}
	var reasons []string
	for _, row := range v.Matrix {
		for _, c := range row {
			reasons = append(reasons, c.Reason)
		}
	}
	d.Reasons = PlaceReasons(reasons)
	if c, ok := capacityChart(run, v); ok {
		d.CapacityChart = c.SVG()
	}
	d.PrefillChart = prefillChart(v).SVG()
	for _, c := range []lineChart{
		decodeChart(run, v, "lb-chart-total", "chart_total", "axis_total", func(f *rundoc.DecodeFigures) float64 { return f.TotalTokS }),
		decodeChart(run, v, "lb-chart-per-request", "chart_per_request", "axis_per_request", func(f *rundoc.DecodeFigures) float64 { return f.PerRequestTokS }),
		interactivityChart(run, v),
	} {
		d.Charts = append(d.Charts, htmlChart{SVG: c.SVG(), Caption: c.Title})
	}
	if c, ok := energyChart(run, v); ok {
		d.Charts = append(d.Charts, htmlChart{SVG: c.SVG(), Caption: c.Title})
	}
	for _, c := range seriesCharts(run, v) {
		d.Charts = append(d.Charts, htmlChart{SVG: c.SVG(), Caption: c.Title})
	}
	head, right := measurementHead(v)
	for i, h := range head {
		d.Head = append(d.Head, htmlHeadCell{Label: h, Numeric: right[i] || i == 1})
	}
	for _, m := range v.Measurements {
		row := htmlRow{Class: "lb-st-" + string(m.Status)}
		if m.Warn {
			row.Class += " lb-warn"
		}
		row.Title = strings.Join(append(nonEmpty(d.reasonOrRef(m.Reason)), m.Details...), "\n")
		for i, s := range measurementRow(v, m) {
			c := htmlCell{Text: s, Numeric: d.Head[i].Numeric}
			if i < len(m.Raw) && c.Numeric && !math.IsNaN(m.Raw[i]) {
				c.Sort = strconv.FormatFloat(m.Raw[i], 'g', -1, 64)
			}
			if i == len(m.Cells) && v.HasCacheHit && m.CacheHit != "" {
				c.Sort = strings.TrimSuffix(m.CacheHit, "%")
			}
			if k := i - len(m.Cells) - boolInt(v.HasCacheHit); v.HasEnergy && k >= 0 && k < len(m.EnergyRaw) && !math.IsNaN(m.EnergyRaw[k]) {
				c.Sort = strconv.FormatFloat(m.EnergyRaw[k], 'g', -1, 64)
			}
			if i == len(d.Head)-1 && m.Footnote > 0 && hasFootnoteColumn(v) {
				c.Text = "⚠" + strconv.Itoa(m.Footnote) // the matrix's badge, not text's [1]
				c.Sort = strconv.Itoa(m.Footnote)
			}
			row.Cells = append(row.Cells, c)
		}
		d.Rows = append(d.Rows, row)
	}
	addRateHTML(d, run)
	addAccuracyHTML(d, opts)
	return d
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// addRateHTML fills the open-loop table and charts.
func addRateHTML(d *htmlData, run *rundoc.Run) {
	v := d.view
	if v.Rate == nil {
		return
	}
	head, right := rateHead(v)
	for i, h := range head {
		d.RateHead = append(d.RateHead, htmlHeadCell{Label: h, Numeric: right[i]})
	}
	for _, r := range v.Rate.Rows {
		row := htmlRow{Class: "lb-st-" + string(r.Status)}
		if r.Warn {
			row.Class += " lb-warn"
		}
		row.Title = strings.Join(append(nonEmpty(r.Reason), r.Details...), "\n")
		for i, s := range rateCells(v, r, func(n int) string { return "⚠" + strconv.Itoa(n) }) {
			row.Cells = append(row.Cells, htmlCell{Text: s, Numeric: d.RateHead[i].Numeric})
		}
		d.RateRows = append(d.RateRows, row)
	}
	for _, c := range rateCharts(run, v) {
		d.RateCharts = append(d.RateCharts, htmlChart{SVG: c.SVG(), Caption: c.Title})
	}
	if c, ok := rateSeriesChart(run, v); ok {
		d.RateCharts = append(d.RateCharts, htmlChart{SVG: c.SVG(), Caption: c.Title})
	}
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// Eyebrow names what the document measured: a rate test, the speed test matrix, or
// the accuracy alone (an llmbench eval document).
func (d *htmlData) Eyebrow() string {
	switch {
	case d.Rate != nil:
		return d.T("rate_test")
	case d.evalOnly:
		return d.T("accuracy")
	}
	return d.T("speed_test_matrix")
}

// T is the label helper for templates: {{$.T "prefill"}}.
func (d *htmlData) T(key string, args ...any) string { return locale.T(d.Lang, key, args...) }

// CellStyle shades a matrix cell on one colour scale by its tok/s: light blue for the
// slowest, deep blue for the fastest.
func (d *htmlData) CellStyle(c MatrixCell) template.CSS {
	if !c.HasFigures || !rundoc.Measured(c.TotalTokS) {
		return ""
	}
	l := 93 - 55*c.Shade
	fg := "#0b1f33"
	if l < 58 {
		fg = "#ffffff"
	}
	return template.CSS(fmt.Sprintf("background-color:hsl(212,72%%,%.0f%%);color:%s", l, fg))
}

// CellTitle is a matrix cell's hover text: its figures, its reason, its notes.
func (d *htmlData) CellTitle(c MatrixCell) string {
	where := rundoc.FormatTokens(c.Context) + " × " + strconv.Itoa(c.Concurrency)
	var parts []string
	switch {
	case c.HasFigures:
		parts = append(parts, fmt.Sprintf("%s: %s %s, %s %s, %s, %s %s", where,
			locale.T(d.Lang, "total_toks"), c.ValueStr, locale.T(d.Lang, "per_request_toks"), c.PerRequestStr,
			locale.T(d.Lang, "x_ttft", c.TTFTStr), locale.T(d.Lang, "tbt"), c.TBTStr))
	default:
		parts = append(parts, where+": "+c.StatusStr)
	}
	if c.Reason != "" {
		parts = append(parts, d.reasonOrRef(c.Reason))
	} else if c.Status == rundoc.StatusOverCapacity {
		parts = append(parts, locale.T(d.Lang, "note_over_capacity"))
	}
	parts = append(parts, c.Details...)
	return strings.Join(parts, "\n")
}

// reasonOrRef is a reason as a cell, its row and its footnote give it: itself, or the
// number it has under the matrix.
func (d *htmlData) reasonOrRef(reason string) string {
	if ref, listed := d.Reasons.reasonRef(d.Lang, reason); listed {
		return ref
	}
	return reason
}

// ReasonNumber is the number of a cell's reason under the matrix, 0 when the cell
// has none there.
func (d *htmlData) ReasonNumber(c MatrixCell) int {
	n, _ := d.Reasons.Number(c.Reason)
	return n
}

// FootnoteText is a footnote's text, its reason as reasonOrRef gives it.
func (d *htmlData) FootnoteText(f footnote) string {
	if f.Reason == "" {
		return f.Text
	}
	return strings.Join(append([]string{d.reasonOrRef(f.Reason)}, nonEmpty(f.Rest)...), "; ")
}

// CellClass names a matrix cell's status for the stylesheet.
func (d *htmlData) CellClass(c MatrixCell) string {
	cls := "lb-cell lb-st-" + string(c.Status)
	if !c.Present {
		cls = "lb-cell lb-st-missing"
	}
	if c.Warn {
		cls += " lb-warn"
	}
	return cls
}

// ContextLabel is "8K context" for the prefill table's row headers.
func (d *htmlData) ContextLabel(s string) string { return locale.T(d.Lang, "n_context", s) }

// TTFTLabel is "85 ms TTFT" (en) or "TTFT 85 ms" (ja).
func (d *htmlData) TTFTLabel(s string) string { return locale.T(d.Lang, "x_ttft", s) }

// Tokens writes a context like the seed: 57344 → "56K".
func (d *htmlData) Tokens(n int) string { return rundoc.FormatTokens(n) }
