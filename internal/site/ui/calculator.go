package ui

import (
	"cmp"
	"context"
	"net/http"
	"slices"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/calc"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
)

// nameMatcher is what a calc.Calculator may also do: tell that two names ("RTX 3090",
// "rtx-3090") are the same GPU or model, so the calculator finds measured runs
// whatever name the reader typed.
type nameMatcher interface {
	SameGPU(a, b string) bool
	SameModel(a, b string) bool
}

// measuredLike lists measured runs of the GPU and model, best single-stream decode first.
func (s *Pages) measuredLike(ctx context.Context, gpu, model string) ([]store.RunRecord, error) {
	gpus, models := []string{gpu}, []string{model}
	if m, ok := s.calc.Calculator().(nameMatcher); ok {
		f, err := s.board.Facets(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range f.GPUs {
			if len(gpus) < 4 && v.Value != gpu && m.SameGPU(v.Value, gpu) {
				gpus = append(gpus, v.Value)
			}
		}
		for _, v := range f.Models {
			if len(models) < 4 && v.Value != model && m.SameModel(v.Value, model) {
				models = append(models, v.Value)
			}
		}
	}
	// Names that differ (the typed "rtx-3090", the stored "RTX 3090", another case)
	// may find the same runs: each is listed once (issue 37 item 8).
	var out []store.RunRecord
	seen := map[string]bool{}
	for _, g := range gpus {
		for _, mo := range models {
			rs, err := s.store.ListRuns(ctx, store.Query{GPU: g, Model: mo, Kinds: []string{rundoc.RunMeasured}, Sort: metric.MetricDecode, Limit: 20})
			if err != nil {
				return nil, err
			}
			for _, r := range rs {
				if !seen[r.ID] {
					seen[r.ID] = true
					out = append(out, r)
				}
			}
		}
	}
	sortByDecode(out)
	return out[:min(len(out), 20)], nil
}

type calcData struct {
	Available    bool
	GPUs, Models []string
	Choices      calc.Choices
	In           calc.Input
	Form         calcFormValues
	Predicted    *runView
	Memory       *calc.Memory
	Why          []string // why cells are over capacity, in the page's language
	Advice       []calc.FitAdvice
	Notes        []string // the calculator's own notes (English)
	// Energy is the predicted matrix's estimated J/token (W and $/Mtok below), with
	// how it was estimated (in the page's language where the site knows the
	// calculator's sentence); nil when the estimate has nothing to show.
	Energy       *matrixView
	EnergyNotes  []string
	Measured     []store.RunRecord
	Error        string
	ErrorField   string
	Asked        bool
	APIURL       string
	DefaultKnobs calcFormValues
	// Users is the capacity answer (calcusers.go), UsersForm its fields as typed.
	Users     *calcUsers
	UsersForm calcUsersForm
}

// calcFormValues are the form's fields as typed (or the defaults shown as placeholders).
type calcFormValues struct {
	GPUs, MaxModelLen, Util, MaxNumSeqs, MaxOutput string
	PrefixOff                                      bool
}

// Calculator shows GET /calculator: the decode calculator's form and its answer.
func (s *Pages) Calculator(w http.ResponseWriter, r *http.Request) {
	ctx, lang := r.Context(), locale.FromRequest(r)
	v := r.URL.Query()
	d := calcData{Available: s.calc != nil,
		DefaultKnobs: calcFormValues{GPUs: "1", MaxModelLen: locale.T(lang, "calc_default_context"), Util: "0.9", MaxNumSeqs: "256 / 1024", MaxOutput: "8192"}}
	in, ferr := calc.FromQuery(v)
	d.In = in
	d.Form = calcFormValues{GPUs: v.Get("gpus"), MaxModelLen: v.Get("max_model_len"), Util: cmp.Or(v.Get("gpu_memory_utilization"), v.Get("util")),
		MaxNumSeqs: v.Get("max_num_seqs"), MaxOutput: v.Get("max_output"), PrefixOff: in.NoPrefixCaching}
	if d.Available {
		d.GPUs, d.Models, d.Choices = s.calc.Calculator().GPUs(), s.calc.Calculator().Models(), s.calc.Calculator().Choices()
	} else if f, err := s.board.Facets(ctx); err == nil {
		for _, x := range f.GPUs {
			d.GPUs = append(d.GPUs, x.Value)
		}
		for _, x := range f.Models {
			d.Models = append(d.Models, x.Value)
		}
	}
	status := http.StatusOK
	if ferr != nil {
		d.Error, d.ErrorField, status = locale.T(lang, "calc_err_field", locale.T(lang, "calc_field_"+ferr.Field), ferr.ReasonIn(lang)), ferr.Field, http.StatusBadRequest
	} else if in.GPU != "" && in.Model != "" {
		d.Asked = true
		d.APIURL = "/api/v1/predict?" + in.Query().Encode()
		if d.Available {
			s.fillPrediction(ctx, &d, lang)
			if !s.fillUsers(ctx, &d, v, lang) {
				status = http.StatusBadRequest
			}
		}
		measured, err := s.measuredLike(ctx, in.GPU, in.Model)
		if err != nil {
			s.serverError(w, r, "listing measured runs", err)
			return
		}
		d.Measured = measured
	}
	s.render(w, r, status, "calculator", "calculator", "", d)
}

// fillPrediction predicts the input and explains its over-capacity cells.
func (s *Pages) fillPrediction(ctx context.Context, d *calcData, lang string) {
	p, err := s.calc.Predict(ctx, d.In)
	if err != nil {
		ce := calc.AsError(err)
		d.Error, d.ErrorField = ce.Message(lang), ce.Field
		if ce.NoRoom {
			m := ce.Memory
			d.Memory = &m
			d.Advice = []calc.FitAdvice{s.calc.AdviseContext(ctx, d.In, 8192, 0, 0)}
		}
		return
	}
	rec := store.RunRecord{Summary: metric.Summarize(p.Run)}
	rv := newRunView(rec, p.Run, lang)
	d.Predicted, d.Memory, d.Notes = &rv, &p.Memory, p.Run.Notes
	d.Energy, d.EnergyNotes = energyMatrix(p.Run, lang)
	d.Why = overCapacityWhy(lang, p.Run, p.Memory)
	if len(d.Why) > 0 {
		d.Advice = s.calc.AdviseFit(ctx, d.In, p.Run, p.Memory)
	}
}

// overCapacityWhy says, in the page's language, why a prediction's cells are over
// capacity: the rule, the numbers, and vLLM's startup check.
func overCapacityWhy(lang string, run *rundoc.Run, m calc.Memory) []string {
	over := 0
	for _, c := range run.Decode {
		if c.Status == rundoc.StatusOverCapacity {
			over++
		}
	}
	if over == 0 {
		return nil
	}
	out := []string{locale.T(lang, "why_rule", over, len(run.Decode), report.FormatInt(lang, int(m.KVTokens)), report.FormatInt(lang, run.Config.MaxOutputTokens))}
	if m.MaxModelLen > 0 && m.KVTokens < m.MaxModelLen {
		out = append(out, locale.T(lang, "why_max_model_len", report.FormatInt(lang, int(m.KVTokens)), report.FormatInt(lang, int(m.MaxModelLen))))
	}
	if m.MaxModelLen > 0 {
		for _, c := range run.Config.Contexts {
			if int64(c+run.Config.MaxOutputTokens) > m.MaxModelLen {
				out = append(out, locale.T(lang, "why_longer", rundoc.FormatTokens(c), report.FormatInt(lang, c+run.Config.MaxOutputTokens), report.FormatInt(lang, int(m.MaxModelLen))))
				break
			}
		}
	}
	return out
}

func num(lang string, v float64, decimals int) string { return report.FormatNumber(lang, v, decimals) }

// energyMatrix is the predicted matrix's energy estimate: J/token in each cell, its
// power and $/Mtok beneath; nil when no cell has an estimated power (a GPU the power
// catalog does not list), so the page shows only the notes saying why.
func energyMatrix(run *rundoc.Run, lang string) (*matrixView, []string) {
	if run.Energy == nil {
		return nil, nil
	}
	// How the energy was estimated, in the page's language, and the price.
	notes := slices.Clone(locale.DocTexts(lang, run.Energy.Notes))
	if p := run.Energy.Price; p != nil {
		notes = append(notes, locale.T(lang, "calc_energy_cost", report.FormatNumber(lang, p.USDPerHour, 2), p.Source, p.Date))
	}
	shown := false
	m := matrixOf(run, axisContexts(run), axisConcurrency(run), func(c *rundoc.DecodeCell) cellView {
		if c == nil || c.CellEnergy == nil || c.CellEnergy.PowerWMean == nil {
			v := cellOf(c, 0, 0, lang)
			v.Sub = ""
			return v
		}
		shown = true
		w, j, usd := report.CellEnergyText(lang, c)
		sub := w + " W"
		if c.CellEnergy.USDPerMTok != nil {
			sub += " · $" + usd + "/Mtok"
		}
		return cellView{Class: "valid", Main: j, Sub: sub}
	})
	if !shown {
		return nil, notes
	}
	return &m, notes
}

func sortByDecode(rs []store.RunRecord) {
	slices.SortStableFunc(rs, func(a, b store.RunRecord) int {
		av, bv := -1.0, -1.0
		if a.DecodeTokS != nil {
			av = *a.DecodeTokS
		}
		if b.DecodeTokS != nil {
			bv = *b.DecodeTokS
		}
		return cmp.Or(cmp.Compare(bv, av), cmp.Compare(a.ID, b.ID))
	})
}
