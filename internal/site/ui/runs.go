package ui

import (
	"context"
	"net/http"
	"strconv"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
)

type filterSel struct {
	Metric                             string
	Model, GPU, Engine, Quant, Profile string
	Family, Size                       string
	Mode                               string // matrix, rate or "" (both)
	All                                bool
}

// menuNames sets sel's model, GPU, engine, quantization and family to the names the
// filter menus give them (store.MenuName): a page asked for "?quant=q4_k_m" or
// "?engine=VLLM" filters in any case, and shows the menu's value chosen.
func (s *Pages) menuNames(ctx context.Context, sel *filterSel) error {
	for _, f := range []struct {
		dim string
		v   *string
	}{{"model", &sel.Model}, {"gpu", &sel.GPU}, {"engine", &sel.Engine}, {"quantization", &sel.Quant}, {"family", &sel.Family}} {
		if *f.v == "" {
			continue
		}
		name, err := s.store.MenuName(ctx, f.dim, *f.v)
		if err != nil {
			return err
		}
		*f.v = name
	}
	return nil
}

type listData struct {
	Sel              filterSel
	Metrics          []string
	Facets           store.Facets
	Rows             []store.RunRecord
	Offset           int
	PrevURL, NextURL string
	Error            string
}

func (s *Pages) listRuns(w http.ResponseWriter, r *http.Request, ranked bool) (*listData, bool) {
	q, ferr := board.Filters(r.URL.Query(), 200)
	d := &listData{}
	for _, m := range metric.Metrics {
		d.Metrics = append(d.Metrics, string(m))
	}
	if ferr != nil {
		d.Error = ferr.In(locale.FromRequest(r))
		q = store.Query{}
	}
	d.Sel = filterSel{Model: q.Model, GPU: q.GPU, Engine: q.Engine, Quant: q.Quantization, Profile: q.Profile,
		Family: q.Family, Size: r.URL.Query().Get("size"), All: r.URL.Query().Get("kind") == "all", Mode: q.Mode}
	if ranked {
		if q.Sort == "" {
			q.Sort = metric.MetricDecode
		}
		d.Sel.Metric = string(q.Sort)
		if len(q.Kinds) == 0 && !d.Sel.All {
			q.Kinds = []string{rundoc.RunMeasured} // emulated and predicted runs stay off the main board
		}
	}
	if q.Limit == 0 {
		q.Limit = 50
	}
	rows, next, err := s.board.List(r.Context(), q)
	if err != nil {
		s.serverError(w, r, "listing runs", err)
		return nil, false
	}
	if next >= 0 {
		d.NextURL = withParam(r.URL, "offset", strconv.Itoa(next))
	}
	if q.Offset > 0 {
		d.PrevURL = withParam(r.URL, "offset", strconv.Itoa(max(0, q.Offset-q.Limit)))
	}
	d.Rows, d.Offset = rows, q.Offset
	if d.Facets, err = s.board.Facets(r.Context()); err == nil {
		err = s.menuNames(r.Context(), &d.Sel)
	}
	if err != nil {
		s.serverError(w, r, "listing filter values", err)
		return nil, false
	}
	return d, true
}

// RunList shows GET /runs: runs, filtered, newest first.
func (s *Pages) RunList(w http.ResponseWriter, r *http.Request) {
	d, ok := s.listRuns(w, r, false)
	if ok {
		s.render(w, r, http.StatusOK, "runs", "runs", "", d)
	}
}
