package ui

import (
	"context"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/stats"
)

// boardEntry is one ranked run with its row of the matrix at a glance.
type boardEntry struct {
	Rank  int
	Rec   store.RunRecord
	Value string
	Row   []glanceCell // the metric at each of the board's RowHeads
	// rowVals are Row's values (NaN where the run has none), at the board's rowLevels.
	rowVals []float64
	// CI is "± 0.6" where the value has a 95% interval; Tied marks an entry whose
	// interval overlaps the one above (board.Tied); Runs and Spread a grouped setup's.
	CI     string
	Tied   bool
	Runs   int
	Spread string
}

// glanceCell is one value of a board entry's row at a glance: "—" where the run has
// none, Over where it has none because the cell was over capacity (not run).
type glanceCell struct {
	Text string
	Over bool
}

type metricOption struct {
	Name, Label string
	Selected    bool
	Rated       bool // an open-loop metric: the picker lists these apart
}

// metricOptions lists the registry for a metric menu; rated keeps the open-loop
// metrics too (group pages' small form has no way to state their conditions).
func metricOptions(lang, selected string, rated bool) []metricOption {
	var out []metricOption
	for _, m := range metric.CellMetrics {
		isRated := m.Under != metric.NoConditions
		if isRated && !rated && m.Name != selected {
			continue
		}
		out = append(out, metricOption{Name: m.Name, Label: locale.T(lang, "metric_"+m.Name), Selected: m.Name == selected, Rated: isRated})
	}
	return out
}

// pickerView is the matrix picker: the cells some run has, by context (rows) and
// level (columns), each a link to rank by it.
type pickerView struct {
	Levels []string
	Rows   []pickerRow
}

type pickerRow struct {
	Context string
	Cells   []pickerCell
}

type pickerCell struct {
	URL      string
	Runs     int
	Selected bool
}

type boardData struct {
	listData
	Cell      board.Cell
	CellLabel string
	Metrics   []metricOption
	Picker    *pickerView
	Context   string // the form's values
	Level     string
	LevelName string // "concurrency", "rate" or "" (no second axis)
	RowHeads  []string
	rowLevels []float64 // the levels of RowHeads (an open-loop row's rates)
	Entries   []boardEntry
	Sizes     []store.SizeBucket
	Chart     template.HTML // best per GPU at the cell, when a model or family is chosen
	// RateChart draws an open-loop metric against the request rate for the first
	// runs ranked, under the board's conditions (cards.go's chart, for the board).
	RateChart *chartView
	// An open-loop metric's conditions: the form's values, the chosen ones in words,
	// and every set of conditions its runs were measured under.
	Rated     bool
	CondForm  condForm
	CondLabel string
	Conds     []condOption
	NeedSLO   bool // an SLO metric asked for without one: pick from Conds
	// Grouped: one entry per setup (?group=setup); GroupURL toggles it.
	Grouped  bool
	GroupURL string
	// AccuracyWithin is the accuracy filter's points, "" when it is off
	// (board.AccuracyFilter).
	AccuracyWithin string
}

// condForm holds the form's values of an open-loop cell's conditions.
type condForm struct {
	Output, Arrival, LenDist, MaxConcurrency, PrefixShare, Requests, Duration, SLO, Target string
	SLOMetric, TargetMetric, Inf                                                           bool
}

func newCondForm(c board.Cell) condForm {
	f := condForm{Output: strconv.Itoa(c.Cond.OutputLen), Arrival: c.Cond.Arrival, LenDist: c.Cond.LenDist,
		SLOMetric: c.Metric.Under >= metric.UnderSLO, TargetMetric: c.Metric.Under >= metric.UnderSLOTarget, Inf: c.Level == metric.RateInf}
	if c.Cond.MaxConcurrency > 0 {
		f.MaxConcurrency = strconv.Itoa(c.Cond.MaxConcurrency)
	}
	if c.Cond.PrefixShare > 0 {
		f.PrefixShare = strconv.FormatFloat(c.Cond.PrefixShare, 'f', -1, 64)
	}
	if c.Cond.Requests > 0 {
		f.Requests = strconv.Itoa(c.Cond.Requests)
	} else {
		f.Duration = strconv.FormatFloat(c.Cond.DurationS, 'f', -1, 64)
	}
	if c.Cond.SLO != nil {
		f.SLO = metric.SLOText(c.Cond.SLO)
	}
	if c.Cond.Target > 0 {
		f.Target = strconv.FormatFloat(c.Cond.Target, 'f', -1, 64)
	}
	return f
}

// Picker and row limits: a plan may have up to 64 values per axis; the picker shows the
// ones most runs have.
const (
	pickerContexts = 8
	pickerLevels   = 10
)

// Leaderboard shows GET / and /leaderboard: runs ranked by a cell.
func (s *Pages) Leaderboard(w http.ResponseWriter, r *http.Request) {
	lang := locale.FromRequest(r)
	d := &boardData{Sizes: store.SizeBuckets}
	q, cell := boardQuery(r, lang, d)
	ctx := r.Context()
	var entries []store.RankedRun
	var marks []board.Mark
	next := -1
	if !d.NeedSLO {
		var err error
		if entries, marks, next, err = s.board.Rank(ctx, cell, q, board.Grouped(r.URL.Query())); err != nil {
			s.serverError(w, r, "ranking runs", err)
			return
		}
	}
	d.Grouped, d.GroupURL = board.Grouped(r.URL.Query()), groupToggle(r.URL)
	if next >= 0 {
		d.NextURL = withParam(r.URL, "offset", strconv.Itoa(next))
	}
	if q.Offset > 0 {
		d.PrevURL = withParam(r.URL, "offset", strconv.Itoa(max(0, q.Offset-q.Limit)))
	}
	d.Offset = q.Offset
	if err := s.boardCells(ctx, r.URL, d, cell, q, entries, lang); err != nil {
		s.serverError(w, r, "reading the board's cells", err)
		return
	}
	applyMarks(d.Entries, entries, marks, cell, lang)
	var err error
	if d.Facets, err = s.board.Facets(ctx); err == nil {
		err = s.menuNames(ctx, &d.Sel)
	}
	if err != nil {
		s.serverError(w, r, "listing filter values", err)
		return
	}
	if (q.Model != "" || q.Family != "") && !d.NeedSLO {
		best, err := s.board.BestByGroup(ctx, cell.Store(q), "gpu", 12)
		if err != nil {
			s.serverError(w, r, "best GPUs", err)
			return
		}
		d.Chart = s.bestChart(ctx, lang, "lb-best-gpu", locale.T(lang, "chart_best_gpu", cell.Label(lang)), cell, best)
	}
	status := http.StatusOK
	if d.NeedSLO {
		status = http.StatusBadRequest
	}
	s.render(w, r, status, "leaderboard", "leaderboard", "", d)
}

// boardQuery reads the leaderboard's filters and cell into d and returns them: a
// query the page cannot use ranks the default cell under an error, but an SLO metric
// asked for without an SLO keeps its metric (NeedSLO), so that the page can offer the
// SLOs its runs were judged against.
func boardQuery(r *http.Request, lang string, d *boardData) (store.Query, board.Cell) {
	v := r.URL.Query()
	q, ferr := board.Filters(r.URL.Query(), 200)
	if ferr == nil {
		q.Accuracy, ferr = board.AccuracyFilter(v)
	}
	cell, cerr := board.CellFromQuery(v)
	d.NeedSLO = ferr == nil && board.MissingSLO(cerr, v)
	if ferr == nil {
		ferr = cerr
	}
	switch {
	case d.NeedSLO:
		d.Error = locale.T(lang, "need_slo", locale.T(lang, "metric_"+cell.Metric.Name))
	case ferr != nil:
		d.Error = ferr.In(lang)
		q, cell = store.Query{}, board.DefaultCell()
	}
	q = board.Defaults(q, v)
	d.Sel = filterSel{Model: q.Model, GPU: q.GPU, Engine: q.Engine, Quant: q.Quantization, Profile: q.Profile,
		Family: q.Family, Size: v.Get("size"), All: v.Get("kind") == "all", Metric: cell.Metric.Name, Mode: q.Mode}
	if q.Accuracy.On {
		d.AccuracyWithin = strconv.FormatFloat(q.Accuracy.WithinPoints, 'f', -1, 64)
	}
	d.Cell, d.CellLabel, d.LevelName = cell, cell.Label(lang), board.LevelParam(cell.Metric.Axis)
	d.Context, d.Level = rundoc.FormatTokens(cell.Context), board.FormatLevel(cell.Level)
	d.Metrics = metricOptions(lang, cell.Metric.Name, true)
	if d.Rated = cell.Rated(); d.Rated {
		d.Context = strconv.Itoa(cell.Context) // input lengths are written out: 512, 1024
		d.CondForm = newCondForm(cell)
		if !d.NeedSLO {
			d.CondLabel = board.CondLabel(lang, cell.Cond)
		}
	}
	return q, cell
}

// boardCells fills the picker, an open-loop metric's conditions, and each ranked
// run's row at a glance. Their counts are of the runs the ranking takes — q's filters
// and kinds (measured only unless the reader includes the others) — so that a cell the
// picker says 3 runs have ranks 3.
func (s *Pages) boardCells(ctx context.Context, u *url.URL, d *boardData, cell board.Cell, q store.Query, entries []store.RankedRun, lang string) error {
	cells, err := s.board.MetricCells(ctx, cell.Metric.Name, q)
	if err != nil {
		return err
	}
	if cell.Rated() {
		d.Conds = condOptions(u, cell, cells, lang)
		cells = board.CellsUnder(cells, cell.Cond.Key())
	}
	if cell.Metric.Axis != metric.AxisRun && !d.NeedSLO {
		d.Picker = buildPicker(u, cell, cells)
	}
	d.RowHeads, d.rowLevels, d.Entries, err = s.boardRows(ctx, cell, q, cells, entries, lang)
	if err == nil && cell.Metric.Axis == metric.AxisRate {
		d.RateChart = boardRateChart(cell, d.rowLevels, d.Entries, lang)
	}
	return err
}

// buildPicker lays the cells out as a small matrix: the contexts and levels most runs
// have, always including the chosen one.
func buildPicker(u *url.URL, sel board.Cell, cells []store.MetricCell) *pickerView {
	ctxRuns, lvlRuns := map[int]int{}, map[float64]int{}
	byCell := map[[2]float64]int{}
	for _, c := range cells {
		ctxRuns[c.Context] += c.Runs
		lvlRuns[c.Level] += c.Runs
		byCell[[2]float64{float64(c.Context), c.Level}] = c.Runs
	}
	contexts := topKeys(ctxRuns, pickerContexts, sel.Context)
	levels := topKeys(lvlRuns, pickerLevels, sel.Level)
	p := &pickerView{}
	if sel.Metric.Axis != metric.AxisPrefill && sel.Metric.Axis != metric.AxisRateRun {
		for _, l := range levels {
			p.Levels = append(p.Levels, board.FormatLevel(l))
		}
	} else {
		levels = []float64{0}
	}
	for _, c := range contexts {
		row := pickerRow{Context: rundoc.FormatTokens(c)}
		if sel.Rated() {
			row.Context = strconv.Itoa(c)
		}
		for _, l := range levels {
			at := board.Cell{Metric: sel.Metric, Context: c, Level: l, Cond: sel.Cond}
			pc := pickerCell{Runs: byCell[[2]float64{float64(c), l}], Selected: c == sel.Context && l == sel.Level}
			pc.URL = u.EscapedPath() + "?" + at.Query(u.Query()).Encode()
			row.Cells = append(row.Cells, pc)
		}
		p.Rows = append(p.Rows, row)
	}
	return p
}

// topKeys returns the n keys with the most runs, in ascending order, with must among them.
func topKeys[K int | float64](runs map[K]int, n int, must K) []K {
	keys := make([]K, 0, len(runs))
	for k := range runs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b K) int {
		if runs[a] != runs[b] {
			return runs[b] - runs[a]
		}
		if a < b {
			return -1
		}
		return 1
	})
	keys = keys[:min(n, len(keys))]
	if !slices.Contains(keys, must) {
		keys = append(keys, must)
	}
	slices.Sort(keys)
	return keys
}

// boardRows formats the ranked runs with each one's row at a glance: the metric at
// the chosen context across the picker's levels (a prefill metric across contexts; a
// run-level one shows total tok/s at context 0).
func (s *Pages) boardRows(ctx context.Context, cell board.Cell, q store.Query, cells []store.MetricCell, ranked []store.RankedRun, lang string) ([]string, []float64, []boardEntry, error) {
	offset := q.Offset
	rowMetric, rowContext := cell.Metric, cell.Context
	if cell.Metric.Axis == metric.AxisRateRun {
		// One value per run: the cell is the row. Show the ranked values alone.
		var out []boardEntry
		for i, r := range ranked {
			out = append(out, boardEntry{Rank: offset + i + 1, Rec: r.RunRecord, Value: report.FormatNumber(lang, r.Value, cell.Metric.Decimals)})
		}
		return nil, nil, out, nil
	}
	if cell.Metric.Axis == metric.AxisRun {
		rowMetric, _ = metric.MetricByName("total_tok_s")
		rowContext = 0
		var err error
		if cells, err = s.board.MetricCells(ctx, rowMetric.Name, q); err != nil {
			return nil, nil, nil, err
		}
	}
	type key struct {
		context int
		level   float64
	}
	var cols []key
	var heads []string
	switch rowMetric.Axis {
	case metric.AxisPrefill:
		runs := map[int]int{}
		for _, c := range cells {
			runs[c.Context] += c.Runs
		}
		for _, c := range topKeys(runs, pickerLevels, rowContext) {
			cols = append(cols, key{c, 0})
			heads = append(heads, rundoc.FormatTokens(c))
		}
	default:
		runs := map[float64]int{}
		for _, c := range cells {
			if c.Context == rowContext {
				runs[c.Level] += c.Runs
			}
		}
		for _, l := range topKeys(runs, pickerLevels, cell.Level) {
			if cell.Metric.Axis == metric.AxisRun && runs[l] == 0 {
				continue
			}
			cols = append(cols, key{rowContext, l})
			heads = append(heads, board.FormatLevel(l))
		}
	}
	var ids []string
	for _, r := range ranked {
		ids = append(ids, r.ID)
	}
	values, err := s.store.CellValues(ctx, ids, rowMetric.Name)
	if err != nil {
		return nil, nil, nil, err
	}
	rowCond := ""
	if rowMetric.Name == cell.Metric.Name {
		rowCond = cell.Store(store.Query{}).Cond
	}
	over := func(string, metric.Axis, int, float64) bool { return false }
	if rowMetric.Axis == metric.AxisConcurrency || rowMetric.Axis == metric.AxisPrefill {
		over = s.board.OverCapacity(ctx, ids) // the cells each run had over capacity
	}
	var out []boardEntry
	for i, r := range ranked {
		e := boardEntry{Rank: offset + i + 1, Rec: r.RunRecord, Value: report.FormatNumber(lang, r.Value, cell.Metric.Decimals)}
		have := map[key]float64{}
		for _, v := range values[r.ID] {
			if v.Cond == rowCond { // an open-loop row: the same conditions as the cell
				have[key{v.Context, v.Level}] = v.Value
			}
		}
		for _, c := range cols {
			x, ok := have[c]
			switch {
			case ok:
				e.Row = append(e.Row, glanceCell{Text: report.FormatNumber(lang, x, rowMetric.Decimals)})
			case over(r.ID, rowMetric.Axis, c.context, c.level):
				e.Row, x = append(e.Row, glanceCell{Text: locale.T(lang, "over_capacity"), Over: true}), math.NaN()
			default:
				e.Row, x = append(e.Row, glanceCell{Text: "—"}), math.NaN()
			}
			e.rowVals = append(e.rowVals, x)
		}
		out = append(out, e)
	}
	var levels []float64
	for _, c := range cols {
		levels = append(levels, c.level)
	}
	return heads, levels, out, nil
}

// boardRateChart draws the first runs ranked by an open-loop metric across the rates
// of their rows at a glance (goodput against the request rate, for goodput): one line
// per run, numbered as the legend beside it names them.
func boardRateChart(cell board.Cell, levels []float64, entries []boardEntry, lang string) *chartView {
	if len(levels) == 0 || len(entries) == 0 {
		return nil
	}
	cv := &chartView{Title: locale.T(lang, "chart_board_rate", locale.T(lang, "metric_"+cell.Metric.Name), report.FormatInt(lang, cell.Context))}
	var lines []report.Line
	for i, e := range entries[:min(len(entries), tradeoffRuns)] {
		mark := strconv.Itoa(e.Rank)
		line := report.Line{Name: mark}
		for j, x := range e.rowVals {
			if !math.IsNaN(x) {
				line.Points = append(line.Points, report.XY{X: levels[j], Y: x,
					Title: locale.T(lang, "chart_board_point", e.Rec.Title, board.FormatLevel(levels[j]), e.Row[j].Text)})
			}
		}
		cv.Legend = append(cv.Legend, legendItem{Mark: mark, Color: report.ChartColor(i), Name: e.Rec.Title + " · " + gpuLabel(e.Rec), URL: "/runs/" + pathEscape(e.Rec.ID)})
		lines = append(lines, line)
	}
	yLabel := locale.T(lang, "metric_"+cell.Metric.Name)
	if cell.Metric.Unit != "" {
		yLabel = cell.Metric.Unit
	}
	cv.SVG = report.CategoryChart(lang, "lb-rate-chart", cv.Title, locale.T(lang, "axis_rate"), yLabel, levels, board.FormatLevel, lines)
	cv.Legend = sameLines(lang, cv.Legend, lines, true)
	return cv
}

// condOption is one set of conditions runs were measured under, linking to the cell
// most of them have.
type condOption struct {
	Label    string
	URL      string
	Runs     int
	Cell     string // that cell: "512 in, 4 req/s"
	Selected bool
}

// condOptions lists the conditions a metric's cells were measured under, the most
// measured first.
func condOptions(u *url.URL, sel board.Cell, cells []store.MetricCell, lang string) []condOption {
	type best struct {
		cell store.MetricCell
		cond metric.RateCond
	}
	byCond := map[string]*best{}
	var keys []string
	for _, c := range cells {
		b := byCond[c.Cond]
		if b == nil {
			cond, err := metric.ParseCondKey(c.Cond)
			if err != nil {
				continue // written by a later release: not rankable here
			}
			b = &best{cell: c, cond: cond}
			byCond[c.Cond] = b
			keys = append(keys, c.Cond)
		}
		if c.Runs > b.cell.Runs {
			b.cell = c
		}
	}
	// Most runs first; at equal counts the conditions of finite rates before those of
	// rate inf (a burst of N requests), which hold one cell each.
	slices.SortStableFunc(keys, func(a, b string) int {
		if d := byCond[b].cell.Runs - byCond[a].cell.Runs; d != 0 {
			return d
		}
		return cmpBool(byCond[a].cell.Level == metric.RateInf, byCond[b].cell.Level == metric.RateInf)
	})
	var out []condOption
	for _, k := range keys {
		b := byCond[k]
		at := board.Cell{Metric: sel.Metric, Context: b.cell.Context, Level: b.cell.Level, Cond: b.cond}
		out = append(out, condOption{Label: board.CondLabel(lang, b.cond), URL: u.EscapedPath() + "?" + at.Query(u.Query()).Encode(),
			Runs: b.cell.Runs, Cell: at.ShortLabel(lang), Selected: k == sel.Cond.Key()})
	}
	return out
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// plusMinusText writes an entry's interval for the page: "± 0.6" (the larger distance from
// the value to an end), "" without one.
func plusMinusText(lang string, v float64, iv *stats.Interval, decimals int) string {
	if iv == nil {
		return ""
	}
	return "± " + report.FormatNumber(lang, math.Max(v-iv.Low, iv.High-v), decimals)
}

// applyMarks writes the marks into the page's entries (ranked holds their values).
func applyMarks(entries []boardEntry, ranked []store.RankedRun, marks []board.Mark, cell board.Cell, lang string) {
	for i := range entries {
		if i >= len(marks) || i >= len(ranked) {
			return
		}
		m, e := marks[i], &entries[i]
		e.Tied, e.Runs = m.Tied, m.Runs
		if m.CI != nil {
			e.CI = plusMinusText(lang, ranked[i].Value, m.CI, cell.Metric.Decimals)
		}
		if m.Spread != nil {
			e.Spread = report.FormatNumber(lang, m.Spread.Low, cell.Metric.Decimals) + "–" + report.FormatNumber(lang, m.Spread.High, cell.Metric.Decimals)
		}
	}
}

// groupToggle is the page's link between every run and one entry per setup.
func groupToggle(u *url.URL) string {
	v := u.Query()
	if board.Grouped(v) {
		v.Del("group")
	} else {
		v.Set("group", "setup")
	}
	v.Del("offset")
	return u.EscapedPath() + "?" + v.Encode()
}
