package ui

import (
	"fmt"
	"html/template"
	"math"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/stats"
)

// runView is what a run's page and the compare page show of one run.
type runView struct {
	Rec     store.RunRecord
	Run     *rundoc.Run
	Prefill []prefillView
	Matrix  matrixView
	// Cards are the run's headline figures (cards.go).
	Cards []figureCard
	// Report is the HTML report's body when a ReportRenderer is wired in.
	Report template.HTML
}

type prefillView struct {
	Context, Status, TokS, TTFT string
	Class                       string
}

type matrixView struct {
	Concurrency []int
	Rows        []matrixRow
	// Notes are the cells' distinct reasons, each once, when they are too long to
	// repeat on every cell (matrixnotes.go); MoreNotes counts those past the list.
	Notes     []string
	MoreNotes int
}

type matrixRow struct {
	Context string
	Cells   []cellView
}

type cellView struct {
	Class     string // valid, over, failed, missing; shade-N for valid cells
	Main, Sub string // "48.2", "85 ms TTFT"
	Title     string // hover text: a failed cell's reason (placeReasons), a valid one's interval
	Reason    string // why a failed or over-capacity cell has no figures
	Note      int    // the number of Reason among the matrix's Notes; 0 when it is not listed
	Diff      string // compare: "+12.3%" against the first run
	DiffClass string // up, down; noise where the intervals overlap (comparenoise.go)
	DiffTitle string // whether the difference is beyond the noise
	tokS      *float64
	ci        *stats.Interval // total tok/s's 95% interval, where the cell has one
}

func newRunView(rec store.RunRecord, run *rundoc.Run, lang string) runView {
	v := runView{Rec: rec, Run: run}
	for _, p := range run.Prefill {
		pv := prefillView{Context: rundoc.FormatTokens(p.Context), Status: report.StatusLabel(lang, p.Status), Class: string(p.Status), TokS: "—", TTFT: "—"}
		// A figure a row lacks is "—", not 0 (metric.Measured).
		if p.PrefillFigures != nil && metric.Measured(p.PromptTokS) {
			pv.TokS = report.FormatNumber(lang, p.PromptTokS, 0)
		}
		if p.PrefillFigures != nil && metric.Measured(p.TTFTMs) {
			pv.TTFT = report.FormatMs(lang, p.TTFTMs, 0)
		}
		v.Prefill = append(v.Prefill, pv)
	}
	contexts, concurrency := report.MatrixAxes(run)
	v.Matrix = buildMatrix(run, contexts, concurrency, lang)
	v.Cards = runCards(rec, run, lang)
	return v
}

func buildMatrix(run *rundoc.Run, contexts, concurrency []int, lang string) matrixView {
	return matrixOf(report.NewMatrix(run, contexts, concurrency, lang), func(c report.MatrixCell) cellView { return cellOf(c, lang) })
}

// matrixOf lays out one view of each cell of the report's matrix m (the report's axes,
// status labels and shade, report.NewMatrix): the tok/s matrix, the calculator's
// energy matrix.
func matrixOf(m report.Matrix, view func(report.MatrixCell) cellView) matrixView {
	v := matrixView{Concurrency: m.Concurrency}
	for i, ctx := range m.Contexts {
		row := matrixRow{Context: rundoc.FormatTokens(ctx)}
		for _, c := range m.Cells[i] {
			row.Cells = append(row.Cells, view(c))
		}
		v.Rows = append(v.Rows, row)
	}
	placeReasons(&v)
	return v
}

// cellOf is a cell of the report's matrix as the site shows it: figures only on a
// valid or predicted cell (a failed or invalid cell's numbers are not ones to read),
// the report's shade in the five steps of site.css (shade-0 to shade-4).
func cellOf(c report.MatrixCell, lang string) cellView {
	switch {
	case !c.Present:
		return cellView{Class: "missing", Main: "—"}
	case c.Status == rundoc.StatusOverCapacity:
		return cellView{Class: "over", Main: c.StatusStr, Reason: c.Reason}
	case (c.Status == rundoc.StatusValid || c.Status == rundoc.StatusPredicted) && c.HasFigures:
		// A figure the cell lacks is "—", not 0 (metric.Measured).
		cv := cellView{Class: "valid shade-0", Main: c.ValueStr, Sub: c.TTFTStr + " " + locale.T(lang, "ttft")}
		if metric.Measured(c.TotalTokS) {
			v := c.TotalTokS
			cv.Class, cv.tokS = fmt.Sprintf("valid shade-%d", int(math.Round(c.Shade*4))), &v
			withCellCI(&cv, c.Doc, lang)
		}
		return cv
	default:
		return cellView{Class: "failed", Main: c.StatusStr, Reason: c.Reason}
	}
}

// addDiffs marks every cell of m with its change against the same cell of base.
func addDiffs(m, base *matrixView) {
	for i := range m.Rows {
		for j := range m.Rows[i].Cells {
			c, b := &m.Rows[i].Cells[j], base.Rows[i].Cells[j]
			if c.tokS == nil || b.tokS == nil || *b.tokS == 0 {
				continue
			}
			d := (*c.tokS - *b.tokS) / *b.tokS * 100
			c.Diff = fmt.Sprintf("%+.1f%%", d)
			switch {
			case d > 0.05:
				c.DiffClass = "up"
			case d < -0.05:
				c.DiffClass = "down"
			}
			markNoise(c, b)
		}
	}
}

// gpuLabel is "RTX 3090 24GB" or "2× H100 80GB".
func gpuLabel(r store.RunRecord) string {
	s := r.GPU
	if r.GPUCount > 1 {
		s = fmt.Sprintf("%d× %s", r.GPUCount, s)
	}
	if r.VRAMGB != nil && r.GPUCount > 0 {
		// Digits group alike in every language the site speaks, so the label needs none.
		s += " " + report.FormatNumber(locale.EN, *r.VRAMGB/float64(r.GPUCount), 0) + " GB"
	}
	return s
}
