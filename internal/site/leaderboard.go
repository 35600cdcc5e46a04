package site

import (
	"context"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
)

// cellSel is the cell the leaderboard ranks by: a registered metric, a context and a
// level on the metric's second axis (the concurrency of a decode cell, the request
// rate of an open-loop cell) and, for an open-loop metric, the conditions its values
// were measured under (ratecells.go).
type cellSel struct {
	Metric  metric.CellMetric
	Context int
	Level   float64
	Cond    metric.RateCond
}

// rated reports whether the cell is an open-loop one, ranked under conditions.
func (c cellSel) rated() bool { return c.Metric.Under != metric.NoConditions }

// legacySorts maps the leaderboard's first rankings (sort=…) to the cells they are.
var legacySorts = map[string]cellSel{
	"decode":      {Context: 0, Level: 1},
	"peak":        {},
	"prefill_32k": {Context: 32 * rundoc.K},
	"per_gb":      {},
}

var legacyMetric = map[string]string{"decode": "total_tok_s", "peak": "peak_tok_s", "prefill_32k": "prompt_tok_s", "per_gb": "peak_tok_s_per_gb"}

// defaultCell is what the leaderboard ranks by when asked nothing: single-stream
// decode at context 0, the seed site's first ranking.
func defaultCell() cellSel {
	m, _ := metric.MetricByName("total_tok_s")
	return cellSel{Metric: m, Context: 0, Level: 1}
}

// levelParam is the query parameter naming a metric's second axis.
func levelParam(a metric.Axis) string {
	switch a {
	case metric.AxisRate:
		return "rate"
	case metric.AxisConcurrency:
		return "concurrency"
	case metric.AxisTarget:
		return "speed"
	}
	return ""
}

// cellFromRequest reads metric, context and concurrency (or rate) from the query:
// context in tokens or with K (32768, 32K), the level a number. Missing parts take the
// defaults (context 0, level 1); sort= of the first leaderboard still works.
func cellFromRequest(v url.Values) (cellSel, *FieldError) {
	name := v.Get("metric")
	if name == "" {
		if legacy := v.Get("sort"); legacy != "" && legacy != "newest" {
			sel, ok := legacySorts[legacy]
			if !ok {
				return defaultCell(), fieldErrorT("sort", "qerr_sort")
			}
			sel.Metric, _ = metric.MetricByName(legacyMetric[legacy])
			return sel, nil
		}
		name = "total_tok_s"
	}
	m, ok := metric.MetricByName(name)
	if !ok {
		return defaultCell(), fieldErrorT("metric", "qerr_one_of", strings.Join(metric.MetricNames(), ", "))
	}
	sel := cellSel{Metric: m}
	if m.Axis == metric.AxisRun {
		return sel, nil
	}
	if sel.rated() {
		sel.Context = metric.DefaultInputLen
	}
	if c := v.Get("context"); c != "" {
		n, err := rundoc.ParseTokens(c)
		if err != nil || n < 0 || n > maxTokens {
			return defaultCell(), fieldErrorT("context", "qerr_context")
		}
		sel.Context = n
	}
	if p := levelParam(m.Axis); p != "" {
		l, ferr := levelFromRequest(v.Get(p), p, m.Axis)
		if ferr != nil {
			return defaultCell(), ferr
		}
		sel.Level = l
	}
	if sel.rated() {
		cond, ferr := rateCondFromRequest(v, m, sel.Level)
		sel.Cond = cond
		if ferr != nil {
			if missingSLO(ferr, v) {
				return sel, ferr // the page offers the SLOs runs were measured under
			}
			return defaultCell(), ferr
		}
	}
	return sel, nil
}

// levelFromRequest reads a cell's level: a concurrency, or a request rate (or inf);
// 1 when the query gives none.
func levelFromRequest(s, param string, axis metric.Axis) (float64, *FieldError) {
	switch {
	case axis == metric.AxisTarget:
		return parseSpeed(s) // capacity.go
	case s == "":
		return 1, nil
	case axis == metric.AxisRate:
		return parseRateLevel(s)
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x > 0) || x > maxConc {
		return 0, fieldErrorT(param, "qerr_level", maxConc)
	}
	return x, nil
}

// label is how pages name the cell: "Total tok/s at 32K × 1".
func (c cellSel) label(lang string) string {
	name := T(lang, "metric_"+c.Metric.Name)
	switch c.Metric.Axis {
	case metric.AxisRun:
		return name
	case metric.AxisPrefill:
		return T(lang, "cell_prefill", name, rundoc.FormatTokens(c.Context))
	case metric.AxisRate:
		if c.Level == metric.RateInf {
			return T(lang, "cell_rate_inf", name, report.FormatInt(lang, c.Context))
		}
		return T(lang, "cell_rate", name, report.FormatInt(lang, c.Context), formatLevel(c.Level))
	case metric.AxisRateRun:
		return T(lang, "cell_rate_run", name, report.FormatInt(lang, c.Context))
	case metric.AxisTarget:
		return T(lang, "cell_target", name, formatLevel(c.Level), rundoc.FormatTokens(c.Context))
	}
	return T(lang, "cell_decode", name, rundoc.FormatTokens(c.Context), formatLevel(c.Level))
}

// shortLabel names an open-loop cell without its metric: "512 in, 4 req/s".
func (c cellSel) shortLabel(lang string) string {
	if c.Metric.Axis == metric.AxisRateRun {
		return T(lang, "cell_short_run", report.FormatInt(lang, c.Context))
	}
	if c.Level == metric.RateInf {
		return T(lang, "cell_short_inf", report.FormatInt(lang, c.Context))
	}
	return T(lang, "cell_short_rate", report.FormatInt(lang, c.Context), formatLevel(c.Level))
}

// formatLevel writes a level as URLs take it: 8, 0.5, inf (a rate inf cell).
func formatLevel(l float64) string {
	if l == metric.RateInf {
		return "inf"
	}
	return strconv.FormatFloat(l, 'f', -1, 64)
}

// query sets the cell's URL parameters on v.
func (c cellSel) query(v url.Values) url.Values {
	v.Del("sort")
	v.Del("offset")
	v.Set("metric", c.Metric.Name)
	v.Del("context")
	v.Del("concurrency")
	v.Del("rate")
	if c.Metric.Axis != metric.AxisRun {
		v.Set("context", strconv.Itoa(c.Context))
	}
	if p := levelParam(c.Metric.Axis); p != "" {
		v.Set(p, formatLevel(c.Level))
	}
	if c.rated() {
		setCondParams(v, c.Cond)
	} else {
		for _, p := range condParams {
			v.Del(p)
		}
	}
	return v
}

func (c cellSel) store(q store.Query) store.CellQuery {
	cq := store.CellQuery{Query: q, Metric: c.Metric.Name, Context: c.Context, Level: c.Level}
	if c.rated() {
		cq.Cond = c.Cond.Key()
	}
	return cq
}

// boardEntry is one ranked run with its row of the matrix at a glance.
type boardEntry struct {
	Rank  int
	Rec   store.RunRecord
	Value string
	Row   []glanceCell // the metric at each of the board's RowHeads
	// rowVals are Row's values (NaN where the run has none), at the board's rowLevels.
	rowVals []float64
	// CI is "± 0.6" where the value has a 95% interval; Tied marks an entry whose
	// interval overlaps the one above (ties.go); Runs and Spread a grouped setup's.
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
		out = append(out, metricOption{Name: m.Name, Label: T(lang, "metric_"+m.Name), Selected: m.Name == selected, Rated: isRated})
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
	Cell      cellSel
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
	// (accuracyfilter.go).
	AccuracyWithin string
}

// condForm holds the form's values of an open-loop cell's conditions.
type condForm struct {
	Output, Arrival, LenDist, MaxConcurrency, PrefixShare, Requests, Duration, SLO, Target string
	SLOMetric, TargetMetric, Inf                                                           bool
}

func newCondForm(c cellSel) condForm {
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

// missingSLO reports whether ferr says an SLO metric was asked for with no SLO.
func missingSLO(ferr *FieldError, v url.Values) bool {
	return ferr != nil && ferr.Field == errNoSLO && strings.TrimSpace(v.Get("slo")) == ""
}

// Picker and row limits: a plan may have up to 64 values per axis; the picker shows the
// ones most runs have.
const (
	pickerContexts = 8
	pickerLevels   = 10
)

func (s *Server) leaderboard(w http.ResponseWriter, r *http.Request) {
	lang := requestLang(r)
	d := &boardData{Sizes: store.SizeBuckets}
	q, cell := boardQuery(r, lang, d)
	ctx := r.Context()
	var entries []store.RankedRun
	var marks []rankMark
	next := -1
	if !d.NeedSLO {
		var err error
		if entries, marks, next, err = s.rankMarked(ctx, cell, q, r.URL.Query()); err != nil {
			s.serverError(w, r, "ranking runs", err)
			return
		}
	}
	d.Grouped, d.GroupURL = groupedSetups(r.URL.Query()), groupToggle(r.URL)
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
	if d.Facets, err = s.cachedFacets(ctx); err == nil {
		err = s.menuNames(ctx, &d.Sel)
	}
	if err != nil {
		s.serverError(w, r, "listing filter values", err)
		return
	}
	if (q.Model != "" || q.Family != "") && !d.NeedSLO {
		best, err := s.bestByGroup(ctx, cell.store(q), "gpu", 12)
		if err != nil {
			s.serverError(w, r, "best GPUs", err)
			return
		}
		d.Chart = s.bestChart(ctx, lang, "lb-best-gpu", T(lang, "chart_best_gpu", cell.label(lang)), cell, best)
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
func boardQuery(r *http.Request, lang string, d *boardData) (store.Query, cellSel) {
	v := r.URL.Query()
	q, ferr := queryFromRequest(r, 200)
	if ferr == nil {
		q.Accuracy, ferr = accuracyFilter(v)
	}
	cell, cerr := cellFromRequest(v)
	d.NeedSLO = ferr == nil && missingSLO(cerr, v)
	if ferr == nil {
		ferr = cerr
	}
	switch {
	case d.NeedSLO:
		d.Error = T(lang, "need_slo", T(lang, "metric_"+cell.Metric.Name))
	case ferr != nil:
		d.Error = ferr.In(lang)
		q, cell = store.Query{}, defaultCell()
	}
	q = boardDefaults(q, v)
	d.Sel = filterSel{Model: q.Model, GPU: q.GPU, Engine: q.Engine, Quant: q.Quantization, Profile: q.Profile,
		Family: q.Family, Size: v.Get("size"), All: v.Get("kind") == "all", Metric: cell.Metric.Name, Mode: q.Mode}
	if q.Accuracy.On {
		d.AccuracyWithin = strconv.FormatFloat(q.Accuracy.WithinPoints, 'f', -1, 64)
	}
	d.Cell, d.CellLabel, d.LevelName = cell, cell.label(lang), levelParam(cell.Metric.Axis)
	d.Context, d.Level = rundoc.FormatTokens(cell.Context), formatLevel(cell.Level)
	d.Metrics = metricOptions(lang, cell.Metric.Name, true)
	if d.Rated = cell.rated(); d.Rated {
		d.Context = strconv.Itoa(cell.Context) // input lengths are written out: 512, 1024
		d.CondForm = newCondForm(cell)
		if !d.NeedSLO {
			d.CondLabel = condLabel(lang, cell.Cond)
		}
	}
	return q, cell
}

// boardDefaults completes a ranking's query alike on the page and in the API: 50 runs
// a page, and measured runs only unless kind says otherwise (emulated and predicted
// runs stay off the board); a ranking has its own order, so sort= does not apply.
func boardDefaults(q store.Query, v url.Values) store.Query {
	q.Sort = ""
	if q.Limit == 0 {
		q.Limit = 50
	}
	if len(q.Kinds) == 0 && v.Get("kind") != "all" {
		q.Kinds = []string{rundoc.RunMeasured}
	}
	return q
}

// boardCells fills the picker, an open-loop metric's conditions, and each ranked
// run's row at a glance. Their counts are of the runs the ranking takes — q's filters
// and kinds (measured only unless the reader includes the others) — so that a cell the
// picker says 3 runs have ranks 3.
func (s *Server) boardCells(ctx context.Context, u *url.URL, d *boardData, cell cellSel, q store.Query, entries []store.RankedRun, lang string) error {
	cells, err := s.metricCellsOf(ctx, cell.Metric.Name, q)
	if err != nil {
		return err
	}
	if cell.rated() {
		d.Conds = condOptions(u, cell, cells, lang)
		cells = cellsUnder(cells, cell.Cond.Key())
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

// rankPage ranks one page of runs by the cell and returns the offset of the next page
// (-1 on the last).
func (s *Server) rankPage(ctx context.Context, cell cellSel, q store.Query) ([]store.RankedRun, int, error) {
	want := q.Limit
	q.Limit++
	rows, err := s.store.RankByCell(ctx, cell.store(q))
	if err != nil {
		return nil, -1, err
	}
	if len(rows) > want {
		return rows[:want], q.Offset + want, nil
	}
	return rows, -1, nil
}

// buildPicker lays the cells out as a small matrix: the contexts and levels most runs
// have, always including the chosen one.
func buildPicker(u *url.URL, sel cellSel, cells []store.MetricCell) *pickerView {
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
			p.Levels = append(p.Levels, formatLevel(l))
		}
	} else {
		levels = []float64{0}
	}
	for _, c := range contexts {
		row := pickerRow{Context: rundoc.FormatTokens(c)}
		if sel.rated() {
			row.Context = strconv.Itoa(c)
		}
		for _, l := range levels {
			at := cellSel{Metric: sel.Metric, Context: c, Level: l, Cond: sel.Cond}
			pc := pickerCell{Runs: byCell[[2]float64{float64(c), l}], Selected: c == sel.Context && l == sel.Level}
			pc.URL = u.EscapedPath() + "?" + at.query(u.Query()).Encode()
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
func (s *Server) boardRows(ctx context.Context, cell cellSel, q store.Query, cells []store.MetricCell, ranked []store.RankedRun, lang string) ([]string, []float64, []boardEntry, error) {
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
		if cells, err = s.metricCellsOf(ctx, rowMetric.Name, q); err != nil {
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
			heads = append(heads, formatLevel(l))
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
		rowCond = cell.store(store.Query{}).Cond
	}
	var over map[string]runBounds // the cells each run had over capacity (bounds.go)
	if rowMetric.Axis == metric.AxisConcurrency || rowMetric.Axis == metric.AxisPrefill {
		over = s.bounds(ctx, ids)
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
			case over[r.ID].over[boundKey{string(rowMetric.Axis), c.context, c.level, ""}]:
				e.Row, x = append(e.Row, glanceCell{Text: T(lang, "over_capacity"), Over: true}), math.NaN()
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
func boardRateChart(cell cellSel, levels []float64, entries []boardEntry, lang string) *chartView {
	if len(levels) == 0 || len(entries) == 0 {
		return nil
	}
	cv := &chartView{Title: T(lang, "chart_board_rate", T(lang, "metric_"+cell.Metric.Name), report.FormatInt(lang, cell.Context))}
	var lines []report.Line
	for i, e := range entries[:min(len(entries), tradeoffRuns)] {
		mark := strconv.Itoa(e.Rank)
		line := report.Line{Name: mark}
		for j, x := range e.rowVals {
			if !math.IsNaN(x) {
				line.Points = append(line.Points, report.XY{X: levels[j], Y: x,
					Title: T(lang, "chart_board_point", e.Rec.Title, formatLevel(levels[j]), e.Row[j].Text)})
			}
		}
		cv.Legend = append(cv.Legend, legendItem{Mark: mark, Color: report.ChartColor(i), Name: e.Rec.Title + " · " + gpuLabel(e.Rec), URL: "/runs/" + pathEscape(e.Rec.ID)})
		lines = append(lines, line)
	}
	yLabel := T(lang, "metric_"+cell.Metric.Name)
	if cell.Metric.Unit != "" {
		yLabel = cell.Metric.Unit
	}
	cv.SVG = report.CategoryChart(lang, "lb-rate-chart", cv.Title, report.T(lang, "axis_rate"), yLabel, levels, formatLevel, lines)
	cv.Legend = sameLines(lang, cv.Legend, lines, true)
	return cv
}

// boardJSON is GET /api/v1/leaderboard's answer.
type boardJSON struct {
	Metric        string      `json:"metric"`
	Context       *int        `json:"context,omitempty"`
	Concurrency   *float64    `json:"concurrency,omitempty"`
	Rate          *rateJSON   `json:"rate,omitempty"`
	Speed         *float64    `json:"speed_tok_s,omitempty"` // a capacity metric's target per-user speed
	Conditions    *condJSON   `json:"conditions,omitempty"`
	LowerIsBetter bool        `json:"lower_is_better"`
	Unit          string      `json:"unit"`
	Entries       []entryJSON `json:"entries"`
	NextOffset    *int        `json:"next_offset,omitempty"`
	Grouped       bool        `json:"grouped_by_setup,omitempty"`
	// AccuracyWithin echoes the accuracy filter's points (accuracyfilter.go).
	AccuracyWithin *float64     `json:"accuracy_within,omitempty"`
	Metrics        []metricJSON `json:"metrics"`
}

// rateJSON is a request rate: a number, or "inf".
type rateJSON float64

func (r rateJSON) MarshalJSON() ([]byte, error) {
	if float64(r) == metric.RateInf {
		return []byte(`"inf"`), nil
	}
	return []byte(formatLevel(float64(r))), nil
}

// condJSON is what an open-loop ranking's values were measured under: the run
// document's config.rate fields (input_len is the answer's context).
type condJSON struct {
	InputLen       int         `json:"input_len"`
	OutputLen      int         `json:"output_len"`
	Arrival        string      `json:"arrival"`
	LenDist        string      `json:"len_dist"`
	MaxConcurrency int         `json:"max_concurrency,omitempty"`
	PrefixShare    float64     `json:"prefix_share,omitempty"`
	Requests       int         `json:"requests,omitempty"`
	DurationS      float64     `json:"duration_s,omitempty"`
	SLO            *rundoc.SLO `json:"slo,omitempty"`
}

func condOf(c cellSel) *condJSON {
	out := &condJSON{InputLen: c.Context, OutputLen: c.Cond.OutputLen, Arrival: c.Cond.Arrival, LenDist: c.Cond.LenDist,
		MaxConcurrency: c.Cond.MaxConcurrency, PrefixShare: c.Cond.PrefixShare, Requests: c.Cond.Requests, DurationS: c.Cond.DurationS}
	if c.Cond.SLO != nil {
		slo := *c.Cond.SLO
		slo.Target = c.Cond.Target // 0 (left out) unless the metric depends on it
		out.SLO = &slo
	}
	return out
}

type entryJSON struct {
	Rank          int     `json:"rank"`
	RunID         string  `json:"run_id"`
	URL           string  `json:"url"`
	Value         float64 `json:"value"`
	Title         string  `json:"title"`
	Kind          string  `json:"kind"`
	Model         string  `json:"model"`
	Family        string  `json:"family"`
	GPU           string  `json:"gpu"`
	GPUCount      int     `json:"gpu_count"`
	Engine        string  `json:"engine"`
	EngineVersion string  `json:"engine_version,omitempty"`
	Quantization  string  `json:"quantization,omitempty"`
	Profile       string  `json:"profile"`
	Mode          string  `json:"mode"`
	Submitter     string  `json:"submitter"`
	entryMarks
}

// metricJSON describes a registered metric, so that a client learns what it may ask:
// conditions says what a ranking by it must state beside the cell ("workload":
// output length and the rest, defaults allowed; "slo": and the SLO; "slo_target":
// and the share that must meet it).
type metricJSON struct {
	Name          string `json:"name"`
	Axis          string `json:"axis"`
	LowerIsBetter bool   `json:"lower_is_better"`
	Unit          string `json:"unit"`
	Conditions    string `json:"conditions,omitempty"`
}

func (s *Server) apiLeaderboard(w http.ResponseWriter, r *http.Request) {
	q, ferr := queryFromRequest(r, 100)
	if ferr == nil {
		q.Accuracy, ferr = accuracyFilter(r.URL.Query())
	}
	cell, cerr := cellFromRequest(r.URL.Query())
	if ferr == nil {
		ferr = cerr
	}
	if ferr != nil {
		reason := ferr.Reason
		if missingSLO(ferr, r.URL.Query()) {
			reason += s.sloHint(r.Context(), cell.Metric.Name)
		}
		writeAPIError(w, http.StatusBadRequest, ferr.Field, reason)
		return
	}
	q = boardDefaults(q, r.URL.Query())
	ranked, marks, next, err := s.rankMarked(r.Context(), cell, q, r.URL.Query())
	if err != nil {
		s.log.Error("ranking runs", "err", err)
		writeAPIError(w, http.StatusInternalServerError, "", "could not rank runs")
		return
	}
	out := boardJSON{Metric: cell.Metric.Name, LowerIsBetter: cell.Metric.LowerIsBetter, Unit: cell.Metric.Unit, Entries: []entryJSON{}}
	if cell.Metric.Axis != metric.AxisRun {
		c := cell.Context
		out.Context = &c
	}
	switch cell.Metric.Axis {
	case metric.AxisConcurrency:
		out.Concurrency = &cell.Level
	case metric.AxisRate:
		rate := rateJSON(cell.Level)
		out.Rate = &rate
	case metric.AxisTarget:
		out.Speed = &cell.Level
	}
	if cell.rated() {
		out.Conditions = condOf(cell)
	}
	out.Grouped = groupedSetups(r.URL.Query())
	if q.Accuracy.On {
		out.AccuracyWithin = &q.Accuracy.WithinPoints
	}
	for i, rr := range ranked {
		e := entryJSON{Rank: q.Offset + i + 1, RunID: rr.ID, URL: "/runs/" + pathEscape(rr.ID), Value: rr.Value,
			Title: rr.Title, Kind: rr.Kind, Model: rr.Model, Family: rr.Family, GPU: rr.GPU, GPUCount: rr.GPUCount, Engine: rr.Engine,
			EngineVersion: rr.EngineVersion, Quantization: rr.Quantization, Profile: rr.Profile, Mode: rr.Mode, Submitter: rr.Submitter}
		markJSON(&e, marks[i], cell)
		out.Entries = append(out.Entries, e)
	}
	if next >= 0 {
		out.NextOffset = &next
	}
	for _, m := range metric.CellMetrics {
		out.Metrics = append(out.Metrics, metricJSON{Name: m.Name, Axis: string(m.Axis), LowerIsBetter: m.LowerIsBetter, Unit: m.Unit, Conditions: m.Under.String()})
	}
	writeJSON(w, http.StatusOK, out)
}

// sloHint names the SLOs a metric's runs on this site were judged against, for the
// reason of a request that states none.
func (s *Server) sloHint(ctx context.Context, metric string) string {
	cells, err := s.store.MetricCells(ctx, metric)
	if err != nil {
		s.log.Warn("listing the SLOs runs were judged against", "err", err)
		return ""
	}
	known := knownSLOs(cells, 5)
	if len(known) == 0 {
		return " (no run on this site has " + metric + " yet)"
	}
	return " (runs on this site were judged against: slo=" + strings.Join(known, ", slo=") + ")"
}
