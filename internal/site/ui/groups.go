package ui

import (
	"context"
	"errors"
	"html/template"
	"net/http"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/calc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// A group page gathers the runs of one GPU, one model or one model family: specs from
// the catalog, the trade-off of its best runs, the best of each GPU (or model) at a
// chosen cell, and every run.

// bestRun names the run a group page's best figure is of: its model on its GPUs,
// and the run itself.
type bestRun struct {
	Of, Title, URL string
}

// bestRunOf is the measured run of q with the best figure m (the one run_groups'
// best is of), nil when no measured run has it.
func (s *Pages) bestRunOf(ctx context.Context, lang string, q store.Query, m metric.Metric) (*bestRun, error) {
	q.Kinds, q.Sort, q.Limit, q.Offset = []string{rundoc.RunMeasured}, m, 1, 0
	rs, err := s.store.ListRuns(ctx, q)
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	r := rs[0]
	return &bestRun{Of: locale.T(lang, "best_run_of", r.Model, gpuLabel(r)), Title: r.Title, URL: "/runs/" + pathEscape(r.ID)}, nil
}

type groupListData struct {
	Groups []store.GroupStat
	// Kind is hardware, models or families, each group's page /Kind/name: the
	// template writes the path's start as text, so that a name that looks like a
	// URL scheme (an Ollama tag, qwen3:32b) is not taken for one.
	Kind string
}

type groupPageData struct {
	Name    string
	Kind    string // hardware, models, families
	Specs   []wire.Spec
	Catalog bool
	Stat    *store.GroupStat
	// BestDecode and BestPeak are the measured runs behind Stat's best figures (issue
	// 37 item 10: a GPU's best single-stream decode was a Qwen3-8B run among 27B runs,
	// and said neither).
	BestDecode, BestPeak *bestRun
	RateRuns             int // how many of Stat.Runs are open-loop (they have no matrix figures)
	Runs                 []store.RunRecord
	Models               []store.Facet // a family's model names
	History              []historyLink // a GPU's or a model's histories (history.go)
	Cell                 board.Cell
	CellForm             cellForm
	Tradeoff             *chartView
	Bars                 template.HTML
	BarTitle             string
	Dim                  string     // the query parameter that selects this group's runs: gpu, model, family
	Users                *usersBest // how many users the group's best measured runs serve (capacity.go)
}

// cellForm fills the small form that picks a cell on group pages.
type cellForm struct {
	Metrics   []metricOption
	Context   string
	Level     string
	LevelName string
}

func newCellForm(lang string, cell board.Cell) cellForm {
	f := cellForm{Context: rundoc.FormatTokens(cell.Context), Level: board.FormatLevel(cell.Level), LevelName: board.LevelParam(cell.Metric.Axis)}
	// Open-loop metrics need their conditions stated, which the leaderboard's form does.
	f.Metrics = metricOptions(lang, cell.Metric.Name, false)
	return f
}

// HardwareList, ModelList and FamilyList show GET /hardware, /models and /families;
// HardwarePage, ModelPage and FamilyPage one group of each.
func (s *Pages) HardwareList(w http.ResponseWriter, r *http.Request) { s.groupList(w, r, board.GPUs) }
func (s *Pages) ModelList(w http.ResponseWriter, r *http.Request)    { s.groupList(w, r, board.Models) }
func (s *Pages) FamilyList(w http.ResponseWriter, r *http.Request)   { s.groupList(w, r, board.Families) }

func (s *Pages) groupList(w http.ResponseWriter, r *http.Request, kind board.Group) {
	gs, err := kind.List(s.store, r.Context())
	if err != nil {
		s.serverError(w, r, "listing "+kind.What, err)
		return
	}
	s.render(w, r, http.StatusOK, "groups", kind.Nav, "", groupListData{Groups: gs, Kind: kind.Nav})
}

func (s *Pages) HardwarePage(w http.ResponseWriter, r *http.Request) { s.groupPage(w, r, board.GPUs) }
func (s *Pages) ModelPage(w http.ResponseWriter, r *http.Request)    { s.groupPage(w, r, board.Models) }
func (s *Pages) FamilyPage(w http.ResponseWriter, r *http.Request)   { s.groupPage(w, r, board.Families) }

func (s *Pages) groupPage(w http.ResponseWriter, r *http.Request, kind board.Group) {
	ctx, lang := r.Context(), locale.FromRequest(r)
	name := r.PathValue("name")
	// One page per group: other spellings (nvidia-smi's GPU names, another case)
	// redirect to the name the store holds.
	switch held, err := s.store.Spelling(ctx, kind.Dim, name); {
	case err == nil && held != name:
		target := "/" + kind.Nav + "/" + pathEscape(held)
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, target, http.StatusMovedPermanently)
		return
	case err != nil && !errors.Is(err, store.ErrNotFound):
		s.serverError(w, r, "reading "+name, err)
		return
	}
	d := groupPageData{Name: name, Kind: kind.Nav, Dim: kind.Dim}
	d.Specs, d.Catalog = calc.SpecsOf(s.catalog, name, kind.ModelSpecs)
	q := kind.Runs(name)
	stat, err := kind.Stat(s.store, ctx, name)
	switch {
	case err == nil:
		d.Stat = &stat
	case !errors.Is(err, store.ErrNotFound):
		s.serverError(w, r, "reading "+name, err)
		return
	}
	if d.Stat == nil && !d.Catalog {
		s.NotFound(w, r)
		return
	}
	cell, ferr := board.CellFromQuery(r.URL.Query())
	if ferr != nil {
		cell = board.DefaultCell()
	}
	d.Cell, d.CellForm = cell, newCellForm(lang, cell)
	if d.Stat != nil {
		all := q
		all.Limit = 200
		if d.Runs, err = s.store.ListRuns(ctx, all); err != nil {
			s.serverError(w, r, "listing runs", err)
			return
		}
		if d.BestDecode, err = s.bestRunOf(ctx, lang, q, metric.MetricDecode); err == nil {
			d.BestPeak, err = s.bestRunOf(ctx, lang, q, metric.MetricPeak)
		}
		if err != nil {
			s.serverError(w, r, "finding the best runs", err)
			return
		}
		rate := q
		rate.Mode = metric.ModeRate
		if d.RateRuns, err = s.store.CountRuns(ctx, rate); err != nil {
			s.serverError(w, r, "counting open-loop runs", err)
			return
		}
		if d.Models, d.History, err = s.groupLinks(ctx, kind.Dim, name); err != nil {
			s.serverError(w, r, "listing the group's models or histories", err)
			return
		}
		measured := q
		measured.Kinds = []string{rundoc.RunMeasured}
		// The trade-off of the best measured runs (by peak total tok/s), at the cell's context.
		peak, _ := metric.MetricByName("peak_tok_s")
		measured.Limit = tradeoffRuns
		top, err := s.store.RankByCell(ctx, board.Cell{Metric: peak}.Store(measured))
		if err != nil {
			s.serverError(w, r, "ranking runs", err)
			return
		}
		var recs []store.RunRecord
		for _, t := range top {
			recs = append(recs, t.RunRecord)
		}
		if d.Tradeoff, err = s.tradeoffChart(ctx, lang, "tradeoff-"+kind.Dim, recs, cell.Context); err != nil {
			s.serverError(w, r, "reading cells", err)
			return
		}
		best, err := s.board.BestByGroup(ctx, cell.Store(measured), kind.BarBy, 16)
		if err != nil {
			s.serverError(w, r, "best per group", err)
			return
		}
		key := "chart_best_gpu"
		if kind.BarBy == "model" {
			key = "chart_best_model"
		}
		d.BarTitle = locale.T(lang, key, cell.Label(lang))
		d.Bars = s.bestChart(ctx, lang, "bars-"+kind.Dim, d.BarTitle, cell, best)
		if d.Users, err = s.usersBest(ctx, measured, kind.Dim, name, lang); err != nil {
			s.serverError(w, r, "ranking runs by capacity", err)
			return
		}
	}
	s.render(w, r, http.StatusOK, "group", kind.Nav, name, d)
}

// groupLinks are the names a group page links besides its runs: a family's models,
// or a GPU's or model's histories (one per model run on the GPU, or per GPU the model
// ran on).
func (s *Pages) groupLinks(ctx context.Context, dim, name string) ([]store.Facet, []historyLink, error) {
	switch dim {
	case "family":
		models, err := s.store.FamilyModels(ctx, name)
		return models, nil, err
	case "gpu", "model":
		links, err := s.historyLinks(ctx, dim, name)
		return nil, links, err
	}
	return nil, nil, nil
}
