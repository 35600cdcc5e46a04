package ui

import (
	"html/template"
	"net/http"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
)

type compareData struct {
	Runs []runView
	// CardRows are the runs' headline figures side by side (cards.go).
	CardRows []compareCardRow
	Charts   []chartView
	Message  string
	// Dropped says which runs ticked beyond MaxCompare were left out.
	Dropped string
	Rate    *rateCompare // the rate runs' cells, when some run is one
	// HasMatrix: some run is a matrix run (otherwise the matrix charts and matrices,
	// all empty, are left out).
	HasMatrix bool
	// Users are the rows "Users at ≥ X tok/s" (capacity.go).
	Users *compareUsers
	// AB is the paired A/B of the runs' evaluations (accuracy.go).
	AB template.HTML
}

// MaxCompare is how many runs a comparison shows side by side: more do not fit a
// screen's width as matrices and numbered lines.
const MaxCompare = 4

// Compare shows GET /compare: two to four runs side by side.
func (s *Pages) Compare(w http.ResponseWriter, r *http.Request) {
	lang := locale.FromRequest(r)
	var ids []string
	for _, v := range r.URL.Query()["id"] {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	d := compareData{}
	if len(ids) > MaxCompare {
		// More ticked than a comparison can show side by side: compare the first ones
		// and say which were left out, rather than nothing.
		d.Dropped = locale.T(lang, "compare_dropped", len(ids), MaxCompare, strings.Join(ids[MaxCompare:], ", "))
		ids = ids[:MaxCompare]
	}
	if len(ids) < 2 {
		d.Message = locale.T(lang, "compare_need")
		s.render(w, r, http.StatusOK, "compare", "runs", locale.T(lang, "compare"), d)
		return
	}
	var runs []*rundoc.Run
	for _, id := range ids {
		rec, run, err := s.board.Run(r.Context(), id)
		if !s.found(w, r, "reading a run", err) {
			return
		}
		d.Runs = append(d.Runs, runView{Rec: rec, Run: run, Cards: runCards(rec, run, lang)})
		runs = append(runs, run)
	}
	contexts, concurrency := axisContexts(runs...), axisConcurrency(runs...)
	if len(contexts) > rundoc.MaxAxis || len(concurrency) > rundoc.MaxAxis {
		// Each run's axes are within the limit; together they could make a matrix of
		// 256 × 256 cells per run.
		d.Runs, d.Message = nil, locale.T(lang, "compare_too_wide", len(contexts), len(concurrency), rundoc.MaxAxis)
		s.render(w, r, http.StatusBadRequest, "compare", "runs", locale.T(lang, "compare"), d)
		return
	}
	for i := range d.Runs {
		d.Runs[i].Matrix = buildMatrix(runs[i], contexts, concurrency, lang)
		if i > 0 {
			addDiffs(&d.Runs[i].Matrix, &d.Runs[0].Matrix)
		}
	}
	d.Charts = compareCharts(d.Runs, concurrency, lang)
	d.CardRows = compareCardRows(d.Runs)
	d.Rate = compareRates(d.Runs, lang)
	d.AB = abHTML(runs, lang)
	d.HasMatrix = slices.ContainsFunc(runs, func(r *rundoc.Run) bool { return metric.ModeOf(r) == metric.ModeMatrix })
	d.Users = compareUsersOf(runs, ids, r.URL.Query().Get("speed"), lang)
	s.render(w, r, http.StatusOK, "compare", "runs", locale.T(lang, "compare"), d)
}
