package report

import (
	"math"
	"slices"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// The decode matrix as every renderer lays it out: the text, Markdown and HTML
// reports here, and the site's run, compare and calculator pages. One order of the
// axes, one status label per status, one colour scale, so that a run reads the same
// wherever it is shown.

// Matrix is a run's decode cells on its axes.
type Matrix struct {
	Contexts    []int
	Concurrency []int
	Cells       [][]MatrixCell // [context][concurrency]
	HasOverCap  bool           // a cell is over capacity (the reports then say what that means)
}

// MatrixCell is one cell of the matrix: its figures as text, its status and its
// place on the colour scale.
type MatrixCell struct {
	Context, Concurrency int
	Doc                  *rundoc.DecodeCell // the document's cell; nil where the run has none
	Status               rundoc.Status
	StatusStr            string
	Present              bool // the run has this cell
	HasFigures           bool
	TotalTokS            float64
	ValueStr             string // "48.2"
	TTFTStr              string // "85 ms"
	PerRequestStr        string // "48.2"
	TBTStr               string // "20.7 ms"
	Reason               string
	Details              []string // every extension note: warnings first, then information
	Warn                 bool     // queueing, preemptions, errors, ended early, flags, client-limited, or a failure reason
	Footnote             int      // 1-based footnote number in text and md, 0 if none
	Shade                float64  // 0..1 position on the colour scale (cells with figures)
}

// Text is the cell as the seed's text matrix writes it: "48.2 (85 ms)" or "Over capacity".
func (c MatrixCell) Text() string {
	if !c.HasFigures {
		return c.StatusStr
	}
	return c.ValueStr + " (" + c.TTFTStr + ")"
}

// NewMatrix lays run's decode cells out on the axes (MatrixAxes), each shaded on one
// scale over the run's cells with figures.
func NewMatrix(run *rundoc.Run, contexts, concurrency []int, lang string) Matrix {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range run.Decode {
		c := &run.Decode[i]
		if c.DecodeFigures != nil && c.TotalTokS > 0 {
			lo, hi = min(lo, c.TotalTokS), max(hi, c.TotalTokS)
		}
	}
	m := Matrix{Contexts: contexts, Concurrency: concurrency, Cells: make([][]MatrixCell, len(contexts))}
	cells := cellIndex(run)
	for i, ctx := range contexts {
		m.Cells[i] = make([]MatrixCell, len(concurrency))
		for j, n := range concurrency {
			mc := MatrixCell{Context: ctx, Concurrency: n, StatusStr: dash}
			if c := cells[cellKey{ctx, n}]; c != nil {
				mc = decodeCell(lang, c, lo, hi)
				m.HasOverCap = m.HasOverCap || c.Status == rundoc.StatusOverCapacity
			}
			m.Cells[i][j] = mc
		}
	}
	return m
}

// MatrixAxes are the matrix's rows and columns: the first run's planned contexts and
// concurrency levels in the plan's order, then any a cell of any run has beyond them,
// ascending (a cell is never silently dropped). Several runs share one set of axes,
// so that a row is the same context in each of their matrices.
func MatrixAxes(runs ...*rundoc.Run) (contexts, concurrency []int) {
	if len(runs) == 0 {
		return nil, nil
	}
	contexts = axis(runs, func(c rundoc.Config) []int { return c.Contexts }, func(c *rundoc.DecodeCell) int { return c.Context })
	concurrency = axis(runs, func(c rundoc.Config) []int { return c.Concurrency }, func(c *rundoc.DecodeCell) int { return c.Concurrency })
	return contexts, concurrency
}

// axis is the first run's plan (each value once), then the values of runs' cells and
// plans it lacks, ascending.
func axis(runs []*rundoc.Run, plan func(rundoc.Config) []int, of func(*rundoc.DecodeCell) int) []int {
	seen := map[int]bool{}
	var out, extra []int
	for _, x := range plan(runs[0].Config) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	add := func(x int) {
		if !seen[x] {
			seen[x] = true
			extra = append(extra, x)
		}
	}
	for i, r := range runs {
		if i > 0 {
			// Another run's plan is beyond the first's: its values go with the extras.
			for _, x := range plan(r.Config) {
				add(x)
			}
		}
		for j := range r.Decode {
			add(of(&r.Decode[j]))
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

// StatusLabel is a cell's status in words ("Over capacity", "容量超過"); a status this
// version does not know shows as the document has it.
func StatusLabel(lang string, s rundoc.Status) string {
	if s == "" {
		return dash
	}
	return labelOr(lang, "st_"+string(s), string(s))
}

func decodeCell(lang string, c *rundoc.DecodeCell, lo, hi float64) MatrixCell {
	mc := MatrixCell{Context: c.Context, Concurrency: c.Concurrency, Doc: c, Status: c.Status, StatusStr: StatusLabel(lang, c.Status), Present: true, Reason: CapacityReason(c.Reason, lang)}
	if c.DecodeFigures != nil && c.Status != rundoc.StatusOverCapacity {
		mc.HasFigures = true
		mc.TotalTokS = c.TotalTokS
		mc.ValueStr = figureOr(c.TotalTokS, FormatNumber(lang, c.TotalTokS, 1))
		mc.TTFTStr = figureOr(c.TTFTMs, FormatMs(lang, c.TTFTMs, 0))
		mc.PerRequestStr = figureOr(c.PerRequestTokS, FormatNumber(lang, c.PerRequestTokS, 1))
		mc.TBTStr = figureOr(c.TBTMs, FormatMs(lang, c.TBTMs, 1))
		mc.Shade = shade(c.TotalTokS, lo, hi)
	}
	warnings, info := cellDetails(lang, c)
	info = append(info, energyInfo(lang, c.CellEnergy)...)
	info = append(info, intervalInfo(lang, c)...)
	mc.Details = append(warnings, info...)
	failedStatus := c.Status == rundoc.StatusFailed || c.Status == rundoc.StatusInvalid || c.Status == rundoc.StatusInterrupted
	mc.Warn = len(warnings) > 0 || (failedStatus && c.Reason != "")
	return mc
}

// shade places a tok/s value on the colour scale: log-spaced, because a matrix spans
// from one stream to hundreds and a linear scale would leave the first columns flat.
func shade(x, lo, hi float64) float64 {
	if x <= 0 || hi <= lo {
		return 1
	}
	return math.Max(0, math.Min(1, math.Log(x/lo)/math.Log(hi/lo)))
}
