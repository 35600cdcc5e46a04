package ui

import (
	"fmt"
	"html/template"
	"math"
	"slices"

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
		pv := prefillView{Context: rundoc.FormatTokens(p.Context), Status: statusText(lang, p.Status), Class: string(p.Status), TokS: "—", TTFT: "—"}
		// A figure a row lacks is "—", not 0 (metric.Measured).
		if p.PrefillFigures != nil && metric.Measured(p.PromptTokS) {
			pv.TokS = report.FormatNumber(lang, p.PromptTokS, 0)
		}
		if p.PrefillFigures != nil && metric.Measured(p.TTFTMs) {
			pv.TTFT = report.FormatMs(lang, p.TTFTMs, 0)
		}
		v.Prefill = append(v.Prefill, pv)
	}
	v.Matrix = buildMatrix(run, axisContexts(run), axisConcurrency(run), lang)
	v.Cards = runCards(rec, run, lang)
	return v
}

// axisContexts and axisConcurrency are the matrix axes that show every cell of runs:
// the planned values and any a cell has beyond them.
func axisContexts(runs ...*rundoc.Run) []int {
	return axis(runs, func(c rundoc.Config) []int { return c.Contexts }, func(d rundoc.DecodeCell) int { return d.Context })
}

func axisConcurrency(runs ...*rundoc.Run) []int {
	return axis(runs, func(c rundoc.Config) []int { return c.Concurrency }, func(d rundoc.DecodeCell) int { return d.Concurrency })
}

func axis(runs []*rundoc.Run, planned func(rundoc.Config) []int, of func(rundoc.DecodeCell) int) []int {
	var xs []int
	for _, r := range runs {
		xs = append(xs, planned(r.Config)...)
		for _, c := range r.Decode {
			xs = append(xs, of(c))
		}
	}
	slices.Sort(xs)
	return slices.Compact(xs)
}

func buildMatrix(run *rundoc.Run, contexts, concurrency []int, lang string) matrixView {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range run.Decode {
		if c.DecodeFigures != nil && (c.Status == rundoc.StatusValid || c.Status == rundoc.StatusPredicted) && metric.Measured(c.TotalTokS) {
			lo, hi = math.Min(lo, c.TotalTokS), math.Max(hi, c.TotalTokS)
		}
	}
	return matrixOf(run, contexts, concurrency, func(c *rundoc.DecodeCell) cellView { return cellOf(c, lo, hi, lang) })
}

// matrixOf lays out one view of each cell of run (nil where the run has none) on the
// axes: the tok/s matrix, the calculator's energy matrix.
func matrixOf(run *rundoc.Run, contexts, concurrency []int, view func(*rundoc.DecodeCell) cellView) matrixView {
	m := matrixView{Concurrency: concurrency}
	for _, ctx := range contexts {
		row := matrixRow{Context: rundoc.FormatTokens(ctx)}
		for _, conc := range concurrency {
			row.Cells = append(row.Cells, view(run.Cell(ctx, conc)))
		}
		m.Rows = append(m.Rows, row)
	}
	placeReasons(&m)
	return m
}

func cellOf(c *rundoc.DecodeCell, lo, hi float64, lang string) cellView {
	switch {
	case c == nil:
		return cellView{Class: "missing", Main: "—"}
	case c.Status == rundoc.StatusOverCapacity:
		return cellView{Class: "over", Main: locale.T(lang, "over_capacity"), Reason: report.CapacityReason(c.Reason, lang)}
	case (c.Status == rundoc.StatusValid || c.Status == rundoc.StatusPredicted) && c.DecodeFigures != nil:
		// A figure the cell lacks is "—", not 0 (metric.Measured).
		cv := cellView{Class: "valid shade-0", Main: "—", Sub: "— " + locale.T(lang, "ttft")}
		if metric.Measured(c.TotalTokS) {
			shade := 0
			if hi > lo {
				shade = int(math.Round((c.TotalTokS - lo) / (hi - lo) * 4))
			}
			v := c.TotalTokS
			cv.Class, cv.Main, cv.tokS = fmt.Sprintf("valid shade-%d", shade), report.FormatNumber(lang, c.TotalTokS, 1), &v
		}
		if metric.Measured(c.TTFTMs) {
			cv.Sub = report.FormatMs(lang, c.TTFTMs, 0) + " " + locale.T(lang, "ttft")
		}
		if cv.tokS != nil {
			withCellCI(&cv, c, lang)
		}
		return cv
	default:
		return cellView{Class: "failed", Main: statusText(lang, c.Status), Reason: c.Reason}
	}
}

func statusText(lang string, s rundoc.Status) string {
	switch s {
	case rundoc.StatusOverCapacity:
		return locale.T(lang, "over_capacity")
	case rundoc.StatusValid, rundoc.StatusFailed, rundoc.StatusInvalid, rundoc.StatusInterrupted:
		return locale.T(lang, "st_"+string(s))
	case rundoc.StatusPredicted:
		return locale.T(lang, "kind_predicted")
	}
	return string(s)
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
