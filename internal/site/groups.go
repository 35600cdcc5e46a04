package site

import (
	"context"
	"errors"
	"html/template"
	"net/http"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
)

// A group page gathers the runs of one GPU, one model or one model family: specs from
// the catalog, the trade-off of its best runs, the best of each GPU (or model) at a
// chosen cell, and every run.

// groupKind says which column a group page filters by, what its bar chart compares,
// and how its list, its summary, its runs and its catalog specs are read.
type groupKind struct {
	Nav   string // menu entry and URL base: hardware, models, families
	Dim   string // the runs column: gpu, model, family
	BarBy string // what the bars are: gpu or model
	what  string // the groups, for the log: "GPUs"
	list  func(*store.Store, context.Context) ([]store.GroupStat, error)
	stat  func(*store.Store, context.Context, string) (store.GroupStat, error)
	runs  func(name string) store.Query
	specs func(*Server, string) ([]Spec, bool)
}

var (
	gpuGroup = groupKind{Nav: "hardware", Dim: "gpu", BarBy: "model", what: "GPUs",
		list: (*store.Store).GPUs, stat: (*store.Store).GPU, runs: func(n string) store.Query { return store.Query{GPU: n} },
		specs: (*Server).gpuSpecs}
	modelGroup = groupKind{Nav: "models", Dim: "model", BarBy: "gpu", what: "models",
		list: (*store.Store).Models, stat: (*store.Store).Model, runs: func(n string) store.Query { return store.Query{Model: n} },
		specs: (*Server).modelSpecs}
	familyGroup = groupKind{Nav: "families", Dim: "family", BarBy: "gpu", what: "model families",
		list: (*store.Store).Families, stat: (*store.Store).FamilyStat, runs: func(n string) store.Query { return store.Query{Family: n} },
		specs: (*Server).modelSpecs}
)

// bestRun names the run a group page's best figure is of: its model on its GPUs,
// and the run itself.
type bestRun struct {
	Of, Title, URL string
}

// bestRunOf is the measured run of q with the best figure m (the one run_groups'
// best is of), nil when no measured run has it.
func (s *Server) bestRunOf(ctx context.Context, lang string, q store.Query, m metric.Metric) (*bestRun, error) {
	q.Kinds, q.Sort, q.Limit, q.Offset = []string{rundoc.RunMeasured}, m, 1, 0
	rs, err := s.store.ListRuns(ctx, q)
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	r := rs[0]
	return &bestRun{Of: T(lang, "best_run_of", r.Model, gpuLabel(r)), Title: r.Title, URL: "/runs/" + pathEscape(r.ID)}, nil
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
	Specs   []Spec
	Catalog bool
	Stat    *store.GroupStat
	// BestDecode and BestPeak are the measured runs behind Stat's best figures (issue
	// 37 item 10: a GPU's best single-stream decode was a Qwen3-8B run among 27B runs,
	// and said neither).
	BestDecode, BestPeak *bestRun
	RateRuns             int // how many of Stat.Runs are open-loop (they have no matrix figures)
	Runs                 []store.RunRecord
	Models               []store.Facet // a family's model names
	Cell                 cellSel
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

func newCellForm(lang string, cell cellSel) cellForm {
	f := cellForm{Context: rundoc.FormatTokens(cell.Context), Level: formatLevel(cell.Level), LevelName: levelParam(cell.Metric.Axis)}
	// Open-loop metrics need their conditions stated, which the leaderboard's form does.
	f.Metrics = metricOptions(lang, cell.Metric.Name, false)
	return f
}

func (s *Server) hardwareList(w http.ResponseWriter, r *http.Request) { s.groupList(w, r, gpuGroup) }
func (s *Server) modelList(w http.ResponseWriter, r *http.Request)    { s.groupList(w, r, modelGroup) }
func (s *Server) familyList(w http.ResponseWriter, r *http.Request)   { s.groupList(w, r, familyGroup) }

func (s *Server) groupList(w http.ResponseWriter, r *http.Request, kind groupKind) {
	gs, err := kind.list(s.store, r.Context())
	if err != nil {
		s.serverError(w, r, "listing "+kind.what, err)
		return
	}
	s.render(w, r, http.StatusOK, "groups", kind.Nav, "", groupListData{Groups: gs, Kind: kind.Nav})
}

func (s *Server) apiHardware(w http.ResponseWriter, r *http.Request) { s.apiGroups(w, r, gpuGroup) }
func (s *Server) apiModels(w http.ResponseWriter, r *http.Request)   { s.apiGroups(w, r, modelGroup) }
func (s *Server) apiFamilies(w http.ResponseWriter, r *http.Request) { s.apiGroups(w, r, familyGroup) }

func (s *Server) hardwarePage(w http.ResponseWriter, r *http.Request) { s.groupPage(w, r, gpuGroup) }
func (s *Server) modelPage(w http.ResponseWriter, r *http.Request)    { s.groupPage(w, r, modelGroup) }
func (s *Server) familyPage(w http.ResponseWriter, r *http.Request)   { s.groupPage(w, r, familyGroup) }

func (s *Server) groupPage(w http.ResponseWriter, r *http.Request, kind groupKind) {
	ctx, lang := r.Context(), requestLang(r)
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
	d.Specs, d.Catalog = kind.specs(s, name)
	q := kind.runs(name)
	stat, err := kind.stat(s.store, ctx, name)
	switch {
	case err == nil:
		d.Stat = &stat
	case !errors.Is(err, store.ErrNotFound):
		s.serverError(w, r, "reading "+name, err)
		return
	}
	if d.Stat == nil && !d.Catalog {
		s.notFound(w, r)
		return
	}
	cell, ferr := cellFromRequest(r.URL.Query())
	if ferr != nil {
		cell = defaultCell()
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
		if kind.Dim == "family" {
			if d.Models, err = s.store.FamilyModels(ctx, name); err != nil {
				s.serverError(w, r, "listing the family's models", err)
				return
			}
		}
		measured := q
		measured.Kinds = []string{rundoc.RunMeasured}
		// The trade-off of the best measured runs (by peak total tok/s), at the cell's context.
		peak, _ := metric.MetricByName("peak_tok_s")
		measured.Limit = tradeoffRuns
		top, err := s.store.RankByCell(ctx, cellSel{Metric: peak}.store(measured))
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
		best, err := s.bestByGroup(ctx, cell.store(measured), kind.BarBy, 16)
		if err != nil {
			s.serverError(w, r, "best per group", err)
			return
		}
		key := "chart_best_gpu"
		if kind.BarBy == "model" {
			key = "chart_best_model"
		}
		d.BarTitle = T(lang, key, cell.label(lang))
		d.Bars = s.bestChart(ctx, lang, "bars-"+kind.Dim, d.BarTitle, cell, best)
		if d.Users, err = s.usersBest(ctx, measured, kind.Dim, name, lang); err != nil {
			s.serverError(w, r, "ranking runs by capacity", err)
			return
		}
	}
	s.render(w, r, http.StatusOK, "group", kind.Nav, name, d)
}
